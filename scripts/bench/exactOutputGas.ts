import { encodeAbiParameters, getAddress, parseAbiParameters, parseUnits, type Address, type Hex } from "viem";
import {
  buildExactOutputPermitTypedData,
  buildGaslessExactOutputPermitTypedData,
  encodeRouteActions,
  encodeSwapExactOutputNative,
  encodeSwapExactOutputWithAllowance,
  encodeSwapExactOutputWithPermit,
  encodeSwapGaslessExactOutput,
  getAmountIn,
  NATIVE_TOKEN,
  patchSignature,
  uniswapV2PairAbi,
  type ExactOutputOrder,
  type RouteAction,
} from "../../sdk";
import { encodeUniversalExecute, grantPermit2Allowance, universalRouterPermitInput, type GasBench } from "./gasVenues";

/**
 * Exact-output rows of `npm run bench:gas`: the same single-hop exact-output swap through our routers
 * (TakerSwapRouterV2 by Permit2 signature, allowance holder and ETH; the feature-3 router gasless) and
 * through Uniswap's UniversalRouter (`V2_SWAP_EXACT_OUT`, command 0x09), each from the same chain state.
 * Both sides take only the input the pool needs for the output and allow the same maximum.
 */

const MSG_SENDER: Address = "0x0000000000000000000000000000000000000001";
const ADDRESS_THIS: Address = "0x0000000000000000000000000000000000000002";
/** The maximum both sides allow: the input needed at the measured state plus 0.5 %. */
const SLACK_BPS = 50n;
/** The gasless row's relayer fee and payee (warmed up once, as a relayer's payee would be). */
const RELAYER_FEE = parseUnits("0.5", 6);
const FEE_PAYEE: Address = getAddress("0x00000000000000000000000000000000000e0fee");

export type ExactOutputSettlement = "permit" | "allowance" | "native" | "gasless";
/**
 * One exact-output swap: buy `amountOut` of `path`'s last token, `native` selling ETH (path starts with
 * WETH); through the V2 pair unless `route` names other actions and the maximum they allow.
 */
export type ExactOutputBenchSwap = {
  path: [Address, Address];
  amountOut: bigint;
  settlement: ExactOutputSettlement;
  route?: { actions: RouteAction[]; maximum: bigint };
};
export type ExactOutputGasRow = { name: string; ours: number; universalRouter: number };

/**
 * Permit2 nonces of this module: in the taker's bitmap word 0, which the exact-input rows have already
 * written, so no row pays for a fresh word (the exact-input rows use nonces from 1 upwards).
 */
let nonce = 200n;

/** The input the pair needs for `amountOut` at the current reserves, and the maximum both sides allow. */
async function needed(bench: GasBench, swap: ExactOutputBenchSwap): Promise<{ amountIn: bigint; maximum: bigint }> {
  const [tokenIn, tokenOut] = swap.path;
  const [reserve0, reserve1] = await bench.clients.publicClient.readContract({ address: bench.pairOf(tokenIn, tokenOut), abi: uniswapV2PairAbi, functionName: "getReserves" });
  const zeroForOne = tokenIn.toLowerCase() < tokenOut.toLowerCase();
  const amountIn = getAmountIn(swap.amountOut, zeroForOne ? reserve0 : reserve1, zeroForOne ? reserve1 : reserve0, 30);
  if (amountIn === undefined) throw new Error("the bench pool cannot pay the exact output");
  return { amountIn, maximum: amountIn + (amountIn * SLACK_BPS) / 10_000n };
}

/** Our exact-output entry point for the settlement; the gasless one is sent by the deployer as relayer. */
export async function measureOursExactOutput(bench: GasBench, swap: ExactOutputBenchSwap): Promise<bigint> {
  const { taker, deployer, contracts, wait } = bench;
  const [tokenIn, tokenOut] = swap.path;
  const native = swap.settlement === "native";
  const actions: RouteAction[] = [];
  if (native) actions.push({ type: "wrap" });
  actions.push(...(swap.route?.actions ?? [{ type: "swapV2", pair: bench.pairOf(tokenIn, tokenOut), tokenOut, feeBps: 30 }]));
  const { maximum } = swap.route ?? (await needed(bench, swap));
  const order: ExactOutputOrder = {
    sellToken: native ? NATIVE_TOKEN : tokenIn,
    maxSellAmount: maximum,
    buyToken: tokenOut,
    buyAmount: swap.amountOut,
    recipient: taker.account.address,
    deadline: (await bench.clients.publicClient.getBlock()).timestamp + 600n,
    quoteId: `0x${"00".repeat(16)}${"e0".repeat(16)}`,
    actions: encodeRouteActions(actions),
  };
  let hash: Hex;
  if (swap.settlement === "permit") {
    const permitNonce = nonce++;
    const signature = await bench.signer.signTypedData(buildExactOutputPermitTypedData({ chainId: 4663, permit2: contracts.permit2, router: contracts.takerSwapRouter, order, nonce: permitNonce }));
    const { data, signatureOffset } = encodeSwapExactOutputWithPermit(order, permitNonce);
    hash = await taker.sendTransaction({ to: contracts.takerSwapRouter, data: patchSignature(data, signatureOffset, signature) });
  } else if (swap.settlement === "gasless") {
    const permitNonce = nonce++;
    const fee = { relayerFee: RELAYER_FEE, relayerFeeRecipient: FEE_PAYEE };
    const signature = await bench.signer.signTypedData(
      buildGaslessExactOutputPermitTypedData({ chainId: 4663, permit2: contracts.permit2, router: contracts.gaslessSwapRouter, order, nonce: permitNonce, ...fee }),
    );
    const { data, signatureOffset } = encodeSwapGaslessExactOutput(order, taker.account.address, fee, permitNonce);
    hash = await deployer.sendTransaction({ to: contracts.gaslessSwapRouter, data: patchSignature(data, signatureOffset, signature) });
  } else if (native) {
    hash = await taker.sendTransaction({ to: contracts.takerSwapRouter, data: encodeSwapExactOutputNative(order), value: maximum });
  } else {
    hash = await taker.sendTransaction({ to: contracts.allowanceHolder, data: encodeSwapExactOutputWithAllowance(order, contracts.takerSwapRouter) });
  }
  const receipt = await wait(hash);
  if (receipt.status !== "success") throw new Error(`our ${swap.settlement} exact-output swap reverted`);
  return receipt.gasUsed;
}

/**
 * UniversalRouter's exact output: PERMIT2_PERMIT of the maximum (signed rows; the allowance row spends
 * the standing Permit2 allowance), then V2_SWAP_EXACT_OUT; with ETH, WRAP_ETH of the maximum, the swap
 * paid from the router's WETH, and UNWRAP_WETH of what is left back to the taker.
 */
export async function measureUniversalRouterExactOut(bench: GasBench, swap: ExactOutputBenchSwap): Promise<bigint> {
  const { taker, wait, universalRouter } = bench;
  const native = swap.settlement === "native";
  const { maximum } = await needed(bench, swap);
  const commands: number[] = [];
  const inputs: Hex[] = [];
  if (native) {
    commands.push(0x0b);
    inputs.push(encodeAbiParameters(parseAbiParameters("address, uint256"), [ADDRESS_THIS, maximum]));
  } else if (swap.settlement !== "allowance") {
    commands.push(0x0a);
    inputs.push(await universalRouterPermitInput(bench, swap.path[0], maximum));
  }
  commands.push(0x09);
  inputs.push(encodeAbiParameters(parseAbiParameters("address, uint256, uint256, address[], bool"), [MSG_SENDER, swap.amountOut, maximum, swap.path, !native]));
  if (native) {
    commands.push(0x0c);
    inputs.push(encodeAbiParameters(parseAbiParameters("address, uint256"), [MSG_SENDER, 0n]));
  }
  const deadline = (await bench.clients.publicClient.getBlock()).timestamp + 600n;
  const receipt = await wait(await taker.sendTransaction({ to: universalRouter, data: encodeUniversalExecute(commands, inputs, deadline), value: native ? maximum : 0n }));
  if (receipt.status !== "success") throw new Error(`UniversalRouter's ${swap.settlement} exact-output swap reverted`);
  return receipt.gasUsed;
}

/**
 * Every exact-output row, ours against UniversalRouter, each measured from the same state (`isolate`
 * restores a snapshot around each measurement). One warm-up swap per row first, outside the snapshots,
 * so neither side pays first-use storage (the relayer fee payee's balance, a Permit2 allowance slot).
 */
export async function measureExactOutputRows(
  bench: GasBench,
  rows: readonly { name: string; swap: ExactOutputBenchSwap }[],
  isolate: <T>(measure: () => Promise<T>) => Promise<T>,
): Promise<ExactOutputGasRow[]> {
  // A signed warm-up replaces UniversalRouter's standing Permit2 allowance, which the allowance row
  // spends: it is granted again before that row's warm-up and after all of them.
  const grant = async () => {
    for (const { swap } of rows) if (swap.settlement === "allowance") await grantPermit2Allowance(bench, swap.path[0]);
  };
  for (const { swap } of rows) {
    await measureOursExactOutput(bench, swap);
    if (swap.settlement === "allowance") await grant();
    await measureUniversalRouterExactOut(bench, swap);
  }
  await grant();
  const results: ExactOutputGasRow[] = [];
  for (const { name, swap } of rows) {
    const ours = Number(await isolate(() => measureOursExactOutput(bench, swap)));
    const universalRouter = Number(await isolate(() => measureUniversalRouterExactOut(bench, swap)));
    results.push({ name, ours, universalRouter });
  }
  return results;
}
