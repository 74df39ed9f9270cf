import hre from "hardhat";
import { randomBytes } from "node:crypto";
import { encodeAbiParameters, erc20Abi, maxUint256, parseAbiParameters, type Address, type Hex } from "viem";
import {
  buildSwapPermitTypedData,
  encodeRouteActions,
  encodeSwapNative,
  encodeSwapWithAllowance,
  encodeSwapWithPermit,
  getAmountOut,
  NATIVE_TOKEN,
  patchSignature,
  splitAmounts,
  type RouteAction,
  type SwapOrder,
  uniswapV2PairAbi,
  v2PoolsOf,
} from "../../sdk";
import { deployContracts } from "../deploy/deployDevnet";
import { hardhatClients, type DevWalletClient } from "../deploy/hardhatClients";
import { devAccounts } from "../devnet/devAccounts";
import { UNISWAP_V2_PAIR_INIT_CODE_HASH, uniswapArtifacts } from "../deploy/uniswapArtifacts";
import { deployBytecode } from "../deploy/writeAndWait";
import { deploySwapRouter02 } from "../deploy/uniswapV3";
import { privateKeyToAccount } from "viem/accounts";

const MSG_SENDER: Address = "0x0000000000000000000000000000000000000001";
const ADDRESS_THIS: Address = "0x0000000000000000000000000000000000000002";
const ZERO: Address = "0x0000000000000000000000000000000000000000";

const wethAbi = [
  { type: "function", name: "deposit", stateMutability: "payable", inputs: [], outputs: [] },
  { type: "function", name: "withdraw", stateMutability: "nonpayable", inputs: [{ type: "uint256" }], outputs: [] },
] as const;
const permit2AllowanceAbi = [
  { type: "function", name: "approve", stateMutability: "nonpayable", inputs: [{ type: "address" }, { type: "address" }, { type: "uint160" }, { type: "uint48" }], outputs: [] },
  { type: "function", name: "allowance", stateMutability: "view", inputs: [{ type: "address" }, { type: "address" }, { type: "address" }], outputs: [{ type: "uint160" }, { type: "uint48" }, { type: "uint48" }] },
] as const;

export type Venue = "ours" | "universalRouter" | "router02" | "floor";
/** One measured swap: gas of each transaction it took (the floor takes several). */
export type Measurement = { gasUsed: bigint[]; received: bigint };

/** A devnet with every venue deployed and a taker that has approved each of them. */
export async function gasBenchSetup() {
  const clients = await hardhatClients(hre);
  const [deployer, taker] = clients.walletClients as [DevWalletClient, DevWalletClient];
  const deployed = await deployContracts(hre, clients, deployer);
  const { contracts } = deployed;
  const universalRouter = await deployBytecode(clients, deployer, uniswapArtifacts.universalRouter(), [
    {
      permit2: contracts.permit2,
      weth9: contracts.weth,
      v2Factory: contracts.uniswapV2Factory,
      // The devnet's "uniswap-v3" venue, so V3_SWAP_EXACT_IN computes its pools as our router does.
      v3Factory: deployed.v3Venues[0]!.factory,
      pairInitCodeHash: UNISWAP_V2_PAIR_INIT_CODE_HASH,
      poolInitCodeHash: deployed.v3Venues[0]!.poolInitCodeHash,
      v4PoolManager: deployed.uniswapV4.poolManager,
      v3NFTPositionManager: ZERO,
      v4PositionManager: ZERO,
      spokePool: ZERO,
    },
  ]);
  const router02 = await deployBytecode(clients, deployer, uniswapArtifacts.router02(), [contracts.uniswapV2Factory, contracts.weth]);
  const swapRouter02 = await deploySwapRouter02(clients, deployer, contracts.uniswapV2Factory, deployed.v3Venues[0]!, contracts.weth);
  const key = devAccounts(hre).find((account) => account.address === taker.account.address)!;
  const signer = privateKeyToAccount(key.privateKey);
  const token = (symbol: string) => deployed.tokens.find((candidate) => candidate.symbol === symbol)!.address;
  const pairOf = (a: Address, b: Address) =>
    v2PoolsOf(deployed).find((pool) => (pool.token0 === a && pool.token1 === b) || (pool.token0 === b && pool.token1 === a))!.address;
  const wait = async (hash: Hex) => clients.publicClient.waitForTransactionReceipt({ hash });

  for (const symbol of ["USDC", "LINK"]) {
    // The propAMM too: calling it directly is the propAMM row's baseline.
    for (const spender of [contracts.permit2, contracts.allowanceHolder, router02, swapRouter02, ...deployed.propAmms.map((propAmm) => propAmm.address)]) {
      await wait(await taker.writeContract({ address: token(symbol), abi: erc20Abi, functionName: "approve", args: [spender, maxUint256] }));
    }
  }
  return { clients, deployer, taker, signer, deployed, contracts, universalRouter, router02, swapRouter02, token, pairOf, wait };
}

export type GasBench = Awaited<ReturnType<typeof gasBenchSetup>>;

/**
 * A swap to measure: a token path (WETH stands for ETH at the native ends) and the amount sold. With
 * `split`, the amount is sold along these pool-disjoint paths instead (ERC20s only), each taking its
 * share as the SPLIT action gives it; `path` is then the first of them.
 */
export type BenchSwap = {
  path: Address[];
  amountIn: bigint;
  nativeIn: boolean;
  nativeOut: boolean;
  settlement: "permit" | "allowance";
  split?: { path: Address[]; shareBps: number }[];
  /** Our router's actions when they are not V2 hops along `path` (V3, propAMM), with the minimum they must pay;
   * `encoded`: the whole route's bytes as they are (SWAP_V4 hops the bench encodes from the manifest's pool keys). */
  actions?: { actions: RouteAction[]; minOut: bigint; encoded?: Hex };
};

/** The swap's paths and the amount each sells: one, or a split's legs. */
function legsOf(swap: BenchSwap): { path: Address[]; amountIn: bigint }[] {
  if (swap.split === undefined) return [{ path: swap.path, amountIn: swap.amountIn }];
  const amounts = splitAmounts(swap.amountIn, swap.split.map((leg) => leg.shareBps));
  return swap.split.map((leg, index) => ({ path: leg.path, amountIn: amounts[index]! }));
}

/** What the swap pays, leg by leg at the current reserves. */
async function expectedOut(bench: GasBench, swap: BenchSwap): Promise<bigint> {
  let total = 0n;
  for (const leg of legsOf(swap)) total += await quote(bench, leg.path, leg.amountIn);
  return total;
}

export async function quote(bench: GasBench, path: Address[], amountIn: bigint): Promise<bigint> {
  let amount = amountIn;
  for (let hop = 0; hop + 1 < path.length; hop++) {
    const [tokenIn, tokenOut] = [path[hop]!, path[hop + 1]!];
    const [reserve0, reserve1] = await bench.clients.publicClient.readContract({ address: bench.pairOf(tokenIn, tokenOut), abi: uniswapV2PairAbi, functionName: "getReserves" });
    const zeroForOne = tokenIn.toLowerCase() < tokenOut.toLowerCase();
    amount = getAmountOut(amount, zeroForOne ? reserve0 : reserve1, zeroForOne ? reserve1 : reserve0, 30);
  }
  return amount;
}

let nonce = 1n;

/** Our feature-2 router, with the settlement the row names. */
export async function measureOurs(bench: GasBench, swap: BenchSwap): Promise<Measurement> {
  const { taker, contracts, wait } = bench;
  const hopsOf = (path: Address[]) => path.slice(1).map((tokenOut, hop) => ({ type: "swapV2" as const, pair: bench.pairOf(path[hop]!, tokenOut), tokenOut, feeBps: 30 }));
  const actions: RouteAction[] = [];
  if (swap.nativeIn) actions.push({ type: "wrap" });
  if (swap.actions !== undefined) actions.push(...swap.actions.actions);
  else if (swap.split !== undefined) actions.push({ type: "split", legs: swap.split.map((leg) => ({ shareBps: leg.shareBps, hops: hopsOf(leg.path) })) });
  else for (const hop of hopsOf(swap.path)) actions.push(hop);
  if (swap.nativeOut) actions.push({ type: "unwrap" });
  const expected = swap.actions?.minOut ?? (await expectedOut(bench, swap));
  const now = (await bench.clients.publicClient.getBlock()).timestamp;
  const order: SwapOrder = {
    sellToken: swap.nativeIn ? NATIVE_TOKEN : swap.path[0]!,
    sellAmount: swap.amountIn,
    buyToken: swap.nativeOut ? NATIVE_TOKEN : swap.path[swap.path.length - 1]!,
    minBuyAmount: expected,
    recipient: taker.account.address,
    deadline: now + 600n,
    // Like the API's: 128 random bits, right-aligned in the bytes32.
    quoteId: `0x${"00".repeat(16)}${randomBytes(16).toString("hex")}`,
    actions: swap.actions?.encoded ?? encodeRouteActions(actions),
  };
  let hash: Hex;
  if (swap.nativeIn) {
    hash = await taker.sendTransaction({ to: contracts.takerSwapRouter, data: encodeSwapNative(order), value: swap.amountIn });
  } else if (swap.settlement === "allowance") {
    hash = await taker.sendTransaction({ to: contracts.allowanceHolder, data: encodeSwapWithAllowance(order, contracts.takerSwapRouter) });
  } else {
    const permitNonce = nonce++;
    const signature = await bench.signer.signTypedData(
      buildSwapPermitTypedData({ chainId: 4663, permit2: contracts.permit2, router: contracts.takerSwapRouter, order, nonce: permitNonce }),
    );
    const { data, signatureOffset } = encodeSwapWithPermit(order, permitNonce);
    hash = await taker.sendTransaction({ to: contracts.takerSwapRouter, data: patchSignature(data, signatureOffset, signature) });
  }
  return { gasUsed: [(await wait(hash)).gasUsed], received: expected };
}

/** Uniswap's UniversalRouter: PERMIT2_PERMIT (signed rows) or a standing Permit2 allowance, then V2_SWAP_EXACT_IN. */
export async function measureUniversalRouter(bench: GasBench, swap: BenchSwap): Promise<Measurement> {
  const { taker, wait, universalRouter } = bench;
  const expected = await expectedOut(bench, swap);
  const now = (await bench.clients.publicClient.getBlock()).timestamp;
  const commands: number[] = [];
  const inputs: Hex[] = [];
  if (swap.nativeIn) {
    commands.push(0x0b);
    inputs.push(encodeAbiParameters(parseAbiParameters("address, uint256"), [ADDRESS_THIS, swap.amountIn]));
  } else if (swap.settlement === "permit") {
    commands.push(0x0a);
    inputs.push(await universalRouterPermitInput(bench, swap.path[0]!, swap.amountIn));
  }
  // A split is one V2_SWAP_EXACT_IN per leg, each pulling its part from the taker into its first pair
  // with its own minimum (UniversalRouter has no minimum over several commands).
  for (const leg of legsOf(swap)) {
    commands.push(0x08);
    inputs.push(
      encodeAbiParameters(parseAbiParameters("address, uint256, uint256, address[], bool"), [
        swap.nativeOut ? ADDRESS_THIS : MSG_SENDER,
        leg.amountIn,
        await quote(bench, leg.path, leg.amountIn),
        leg.path,
        !swap.nativeIn,
      ]),
    );
  }
  if (swap.nativeOut) {
    commands.push(0x0c);
    inputs.push(encodeAbiParameters(parseAbiParameters("address, uint256"), [MSG_SENDER, expected]));
  }
  const data = encodeUniversalExecute(commands, inputs, now + 600n);
  const hash = await taker.sendTransaction({ to: universalRouter, data, value: swap.nativeIn ? swap.amountIn : 0n });
  return { gasUsed: [(await wait(hash)).gasUsed], received: expected };
}

/**
 * The input of UniversalRouter's PERMIT2_PERMIT: the taker's signed PermitSingle letting the router
 * spend `amount` of `token` through Permit2 for an hour, at the allowance's current nonce.
 */
export async function universalRouterPermitInput(bench: GasBench, token: Address, amount: bigint): Promise<Hex> {
  const { taker, contracts, universalRouter } = bench;
  const now = (await bench.clients.publicClient.getBlock()).timestamp;
  const [, , permitNonce] = await bench.clients.publicClient.readContract({
    address: contracts.permit2,
    abi: permit2AllowanceAbi,
    functionName: "allowance",
    args: [taker.account.address, token, universalRouter],
  });
  const details = { token, amount, expiration: Number(now + 3600n), nonce: permitNonce };
  const signature = await bench.signer.signTypedData({
    domain: { name: "Permit2", chainId: 4663, verifyingContract: contracts.permit2 },
    types: {
      PermitSingle: [
        { name: "details", type: "PermitDetails" },
        { name: "spender", type: "address" },
        { name: "sigDeadline", type: "uint256" },
      ],
      PermitDetails: [
        { name: "token", type: "address" },
        { name: "amount", type: "uint160" },
        { name: "expiration", type: "uint48" },
        { name: "nonce", type: "uint48" },
      ],
    },
    primaryType: "PermitSingle",
    message: { details, spender: universalRouter, sigDeadline: now + 600n },
  });
  return encodeAbiParameters(parseAbiParameters("((address token,uint160 amount,uint48 expiration,uint48 nonce) details,address spender,uint256 sigDeadline), bytes"), [
    { details, spender: universalRouter, sigDeadline: now + 600n },
    signature,
  ]);
}

/** `UniversalRouter.execute(commands, inputs, deadline)` calldata. */
export function encodeUniversalExecute(commands: number[], inputs: Hex[], deadline: bigint): Hex {
  const args = encodeAbiParameters(parseAbiParameters("bytes, bytes[], uint256"), [
    `0x${commands.map((command) => command.toString(16).padStart(2, "0")).join("")}`,
    inputs,
    deadline,
  ]);
  return `0x3593564c${args.slice(2)}`;
}

/** Gives the UniversalRouter a standing Permit2 allowance, as its allowance path expects. */
export async function grantPermit2Allowance(bench: GasBench, token: Address): Promise<void> {
  await bench.wait(
    await bench.taker.writeContract({
      address: bench.contracts.permit2,
      abi: permit2AllowanceAbi,
      functionName: "approve",
      args: [token, bench.universalRouter, 2n ** 160n - 1n, 2 ** 48 - 1],
    }),
  );
}

/** UniswapV2Router02 with a plain ERC20 approval (it cannot use Permit2). */
export async function measureRouter02(bench: GasBench, swap: BenchSwap): Promise<Measurement> {
  const { taker, router02, wait } = bench;
  const abi = uniswapArtifacts.router02().abi;
  const expected = await quote(bench, swap.path, swap.amountIn);
  const deadline = (await bench.clients.publicClient.getBlock()).timestamp + 600n;
  const to = taker.account.address;
  let hash: Hex;
  if (swap.nativeIn) {
    hash = await taker.writeContract({ address: router02, abi, functionName: "swapExactETHForTokens", args: [expected, swap.path, to, deadline], value: swap.amountIn });
  } else if (swap.nativeOut) {
    hash = await taker.writeContract({ address: router02, abi, functionName: "swapExactTokensForETH", args: [swap.amountIn, expected, swap.path, to, deadline] });
  } else {
    hash = await taker.writeContract({ address: router02, abi, functionName: "swapExactTokensForTokens", args: [swap.amountIn, expected, swap.path, to, deadline] });
  }
  return { gasUsed: [(await wait(hash)).gasUsed], received: expected };
}

/** The bare floor: wrap if needed, per leg a transfer into its first pair and pair.swap per hop, unwrap if needed. */
export async function measureFloor(bench: GasBench, swap: BenchSwap): Promise<Measurement> {
  const { taker, contracts, wait } = bench;
  const gasUsed: bigint[] = [];
  const send = async (hash: Hex) => gasUsed.push((await wait(hash)).gasUsed);
  const expected = await expectedOut(bench, swap);
  if (swap.nativeIn) await send(await taker.writeContract({ address: contracts.weth, abi: wethAbi, functionName: "deposit", value: swap.amountIn }));
  let amount = 0n;
  for (const { path, amountIn } of legsOf(swap)) {
    await send(await taker.writeContract({ address: path[0]!, abi: erc20Abi, functionName: "transfer", args: [bench.pairOf(path[0]!, path[1]!), amountIn] }));
    let legAmount = amountIn;
    for (let hop = 0; hop + 1 < path.length; hop++) {
      const [tokenIn, tokenOut] = [path[hop]!, path[hop + 1]!];
      const out = await quote(bench, [tokenIn, tokenOut], legAmount);
      const zeroForOne = tokenIn.toLowerCase() < tokenOut.toLowerCase();
      const to = hop + 2 < path.length ? bench.pairOf(tokenOut, path[hop + 2]!) : taker.account.address;
      await send(await taker.writeContract({ address: bench.pairOf(tokenIn, tokenOut), abi: uniswapV2PairAbi, functionName: "swap", args: [zeroForOne ? 0n : out, zeroForOne ? out : 0n, to, "0x"] }));
      legAmount = out;
    }
    amount += legAmount;
  }
  if (swap.nativeOut) await send(await taker.writeContract({ address: contracts.weth, abi: wethAbi, functionName: "withdraw", args: [amount] }));
  return { gasUsed, received: expected };
}
