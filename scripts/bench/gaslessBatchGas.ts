import hre from "hardhat";
import { createWalletClient, custom, erc20Abi, getAddress, keccak256, maxUint256, parseUnits, stringToHex, type Address } from "viem";
import { privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { buildGaslessPermitTypedData, encodeRouteActions, encodeSwapGasless, encodeSwapGaslessBatch, getAmountOut, patchSignature, uniswapV2PairAbi, type SignedGaslessOrder, type SwapOrder } from "../../sdk";
import { BATCH_ORDER_GAS } from "../../sdk/relay/batchGasLimit";
import { devnetChain } from "../../sdk/chain/devnet";
import type { GasBench } from "./gasVenues";

const devTokenMintAbi = [
  { type: "function", name: "mint", stateMutability: "nonpayable", inputs: [{ type: "address" }, { type: "uint256" }], outputs: [] },
] as const;

/** The relayer operator's fee payee: one address for every order, as one relayer's batch would have. */
const FEE_PAYEE: Address = getAddress("0x00000000000000000000000000000000000b47c4");
const SELL_AMOUNT = parseUnits("100", 6);
const RELAYER_FEE = parseUnits("0.5", 6);

/** One row of the batch table: gas of the whole transaction and per swap. */
export type BatchGasRow = { swaps: number; gasUsed: number; perSwap: number };

/**
 * Takers for gasless batches: `count` wallets with USDC approved to Permit2, each of which has already
 * settled one gasless swap (so its nonce word and WETH balance are not fresh), as the single-swap
 * baseline is measured too. Deterministic keys, so every run measures the same state.
 */
async function batchTakers(bench: GasBench, count: number): Promise<PrivateKeyAccount[]> {
  const { clients, deployer, contracts, token, wait } = bench;
  const takers = Array.from({ length: count }, (_, index) => privateKeyToAccount(keccak256(stringToHex(`gas-bench-batch-taker-${index}`))));
  for (const taker of takers) {
    await clients.testClient.setBalance({ address: taker.address, value: parseUnits("1", 18) });
    await wait(await deployer.writeContract({ address: token("USDC"), abi: devTokenMintAbi, functionName: "mint", args: [taker.address, parseUnits("100000", 6)] }));
    const wallet = createWalletClient({ chain: devnetChain, transport: custom(hre.network.provider, { retryCount: 0 }), account: taker });
    await wait(await wallet.writeContract({ address: token("USDC"), abi: erc20Abi, functionName: "approve", args: [contracts.permit2, maxUint256] }));
  }
  await sendBatch(bench, await signOrders(bench, takers, 0n));
  return takers;
}

let quoteCounter = 0;

/** A USDC→WETH single-hop order per taker (nonce `nonce`), accepting 10 % below the current quote. */
async function signOrders(bench: GasBench, takers: PrivateKeyAccount[], nonce: bigint): Promise<SignedGaslessOrder[]> {
  const { clients, contracts, token, pairOf } = bench;
  const [USDC, WETH] = [token("USDC"), token("WETH")];
  const pair = pairOf(USDC, WETH);
  const [reserve0, reserve1] = await clients.publicClient.readContract({ address: pair, abi: uniswapV2PairAbi, functionName: "getReserves" });
  const zeroForOne = USDC.toLowerCase() < WETH.toLowerCase();
  const quoted = getAmountOut(SELL_AMOUNT, zeroForOne ? reserve0 : reserve1, zeroForOne ? reserve1 : reserve0, 30);
  const deadline = (await clients.publicClient.getBlock()).timestamp + 3600n;
  const orders: SignedGaslessOrder[] = [];
  for (const taker of takers) {
    const params: SwapOrder = {
      sellToken: USDC,
      sellAmount: SELL_AMOUNT,
      buyToken: WETH,
      minBuyAmount: (quoted * 9n) / 10n,
      recipient: taker.address,
      deadline,
      quoteId: `0x${(++quoteCounter).toString(16).padStart(64, "0")}`,
      actions: encodeRouteActions([{ type: "swapV2", pair, tokenOut: WETH, feeBps: 30 }]),
    };
    const fee = { relayerFee: RELAYER_FEE, relayerFeeRecipient: FEE_PAYEE };
    const signature = await taker.signTypedData(
      buildGaslessPermitTypedData({ chainId: 4663, permit2: contracts.permit2, router: contracts.gaslessSwapRouter, order: params, nonce, ...fee }),
    );
    orders.push({ params, taker: taker.address, nonce, signature, ...fee });
  }
  return orders;
}

/**
 * Each order may use the router's BATCH_ORDER_GAS: gas used does not depend on the caps (no order runs
 * short), and the relayer's caps (its members' shares, a few hundred thousand) take as many non-zero
 * calldata bytes as 1,000,000 does.
 */
async function sendBatch(bench: GasBench, orders: SignedGaslessOrder[]): Promise<bigint> {
  const receipt = await bench.wait(await bench.deployer.sendTransaction({ to: bench.contracts.gaslessSwapRouter, data: encodeSwapGaslessBatch(orders, orders.map(() => BATCH_ORDER_GAS)) }));
  if (receipt.status !== "success") throw new Error("the batch reverted");
  return receipt.gasUsed;
}

async function sendSingle(bench: GasBench, order: SignedGaslessOrder): Promise<bigint> {
  const { data, signatureOffset } = encodeSwapGasless(order.params, order.taker, order, order.nonce);
  const receipt = await bench.wait(await bench.deployer.sendTransaction({ to: bench.contracts.gaslessSwapRouter, data: patchSignature(data, signatureOffset, order.signature) }));
  if (receipt.status !== "success") throw new Error("the single gasless swap reverted");
  return receipt.gasUsed;
}

/**
 * Gas of single-hop gasless swaps settled one per transaction (`swapGasless`) and in batches of each
 * of `sizes` (`swapGaslessBatch`), every measurement from the same chain state (`isolate` restores a
 * snapshot around it). Each order is a different taker's, as a relayer's batch would be.
 */
export async function measureGaslessBatches(
  bench: GasBench,
  sizes: readonly number[],
  isolate: <T>(measure: () => Promise<T>) => Promise<T>,
): Promise<{ single: number; batches: BatchGasRow[] }> {
  const takers = await batchTakers(bench, Math.max(...sizes));
  const single = Number(await isolate(async () => sendSingle(bench, (await signOrders(bench, takers.slice(0, 1), 1n))[0]!)));
  const batches: BatchGasRow[] = [];
  for (const swaps of sizes) {
    const orders = await signOrders(bench, takers.slice(0, swaps), 1n);
    const gasUsed = Number(await isolate(() => sendBatch(bench, orders)));
    batches.push({ swaps, gasUsed, perSwap: Math.round(gasUsed / swaps) });
  }
  return { single, batches };
}
