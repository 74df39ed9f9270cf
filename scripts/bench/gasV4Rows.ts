/**
 * `bench:gas`'s Uniswap V4 rows: the same exact-input swap through our router (SWAP_V4 actions, Permit2
 * signature; the native row by `swapNative`) and through UniversalRouter 2.1.0's V4_SWAP (PERMIT2_PERMIT,
 * then V4Router's SWAP_EXACT_IN(_SINGLE), SETTLE_ALL, TAKE_ALL), on the devnet's V4 market. Each
 * measurement starts from the same state (the caller's `isolate` restores a snapshot after it).
 */
import { concatHex, encodeAbiParameters, numberToHex, parseAbiParameters, parseEther, parseUnits, zeroAddress, type Address, type Hex } from "viem";
import { encodeRouteActions, NATIVE_TOKEN, swapV4Hop, uniswapV4QuoterAbi, type RouteHopAction } from "../../sdk";
import type { ManifestV4Pool } from "../../sdk/chain/manifest";
import { uniswapV3Artifacts } from "../deploy/uniswapV3";
import { encodeUniversalExecute, measureOurs, universalRouterPermitInput, type GasBench } from "./gasVenues";

const PERMIT2_PERMIT = 0x0a;
const V3_SWAP_EXACT_IN = 0x00;
const V4_SWAP = 0x10;
/** V4Router actions (v4-periphery's Actions.sol). */
const SWAP_EXACT_IN_SINGLE = 0x06;
const SWAP_EXACT_IN = 0x07;
const SETTLE_ALL = 0x0c;
const TAKE_ALL = 0x0f;
const MSG_SENDER: Address = "0x0000000000000000000000000000000000000001";

/** One V4 row; a column is undefined when that contract could not do the swap. */
export type V4GasRow = { name: string; ours?: number; universalRouter?: number };

/** A leg: V4 pools along `tokens` (NATIVE_TOKEN for native ETH), or one V3 hop of the uniswap-v3 venue at `v3Fee`. */
type Leg = { tokens: Address[]; pools: ManifestV4Pool[]; amountIn: bigint; v3Fee?: number };

const currency = (token: Address): Address => (token === NATIVE_TOKEN ? zeroAddress : token);
const keyOf = (pool: ManifestV4Pool) => ({ currency0: pool.currency0, currency1: pool.currency1, fee: pool.fee, tickSpacing: pool.tickSpacing, hooks: pool.hooks });

/** What a leg pays now: V4Quoter hop by hop (different pools), QuoterV2 for a V3 leg. */
async function legOut(bench: GasBench, leg: Leg): Promise<bigint> {
  const client = bench.clients.publicClient;
  if (leg.v3Fee !== undefined) {
    const { result } = await client.simulateContract({
      address: bench.deployed.v3Venues[0]!.quoterV2,
      abi: uniswapV3Artifacts.quoterV2().abi,
      functionName: "quoteExactInputSingle",
      args: [{ tokenIn: leg.tokens[0]!, tokenOut: leg.tokens[1]!, amountIn: leg.amountIn, fee: leg.v3Fee, sqrtPriceLimitX96: 0n }],
    });
    return (result as readonly [bigint, ...unknown[]])[0];
  }
  let amount = leg.amountIn;
  for (const [hop, pool] of leg.pools.entries()) {
    const { result } = await client.simulateContract({
      address: bench.deployed.uniswapV4.v4Quoter,
      abi: uniswapV4QuoterAbi,
      functionName: "quoteExactInputSingle",
      args: [{ poolKey: keyOf(pool), zeroForOne: pool.currency0 === currency(leg.tokens[hop]!), exactAmount: amount, hookData: "0x" }],
    });
    amount = result[0];
  }
  return amount;
}

const v4Hops = (leg: Leg): RouteHopAction[] => leg.pools.map((pool, hop) => swapV4Hop(pool, leg.tokens[hop + 1]!));

/** Ours: the legs' SWAP_V4 hops (a SPLIT when there are several legs), minimum = the legs' sum quoted now. */
async function measureOursLegs(bench: GasBench, legs: Leg[], sharesBps: number[]): Promise<number> {
  const minOut = (await Promise.all(legs.map((leg) => legOut(bench, leg)))).reduce((a, b) => a + b, 0n);
  const encoded =
    legs.length === 1
      ? encodeRouteActions(v4Hops(legs[0]!))
      : encodeRouteActions([{ type: "split", legs: legs.map((leg, index) => ({ shareBps: sharesBps[index]!, hops: leg.v3Fee === undefined ? v4Hops(leg) : [{ type: "swapV3" as const, tokenOut: leg.tokens[1]!, fee: leg.v3Fee, venue: 0 }] })) }]);
  const first = legs[0]!.tokens;
  const nativeIn = first[0] === NATIVE_TOKEN;
  const amountIn = legs.reduce((sum, leg) => sum + leg.amountIn, 0n);
  const measured = await measureOurs(bench, { path: [first[0]!, first[first.length - 1]!], amountIn, nativeIn, nativeOut: false, settlement: "permit", actions: { actions: [], minOut, encoded } });
  return Number(measured.gasUsed[0]!);
}

/** UniversalRouter's V4_SWAP input for a V4 leg: one swap action, SETTLE_ALL of the input, TAKE_ALL of the output. */
function universalV4Input(leg: Leg, minOut: bigint): Hex {
  const [currencyIn, currencyOut] = [currency(leg.tokens[0]!), currency(leg.tokens[leg.tokens.length - 1]!)];
  const pool = leg.pools[0]!;
  const swap =
    leg.pools.length === 1
      ? encodeAbiParameters(parseAbiParameters("((address,address,uint24,int24,address),bool,uint128,uint128,bytes)"), [
          [[pool.currency0, pool.currency1, pool.fee, pool.tickSpacing, pool.hooks], pool.currency0 === currencyIn, leg.amountIn, minOut, "0x"],
        ])
      : // UniversalRouter 2.1.0's V4Router takes a per-hop slippage list (empty: none) after the path.
        encodeAbiParameters(parseAbiParameters("(address,(address,uint24,int24,address,bytes)[],uint256[],uint128,uint128)"), [
          [currencyIn, leg.pools.map((hopPool, hop) => [currency(leg.tokens[hop + 1]!), hopPool.fee, hopPool.tickSpacing, hopPool.hooks, "0x"] as const), [], leg.amountIn, minOut],
        ]);
  const actions = concatHex([numberToHex(leg.pools.length === 1 ? SWAP_EXACT_IN_SINGLE : SWAP_EXACT_IN, { size: 1 }), numberToHex(SETTLE_ALL, { size: 1 }), numberToHex(TAKE_ALL, { size: 1 })]);
  const params = [swap, encodeAbiParameters(parseAbiParameters("address, uint256"), [currencyIn, leg.amountIn]), encodeAbiParameters(parseAbiParameters("address, uint256"), [currencyOut, minOut])];
  return encodeAbiParameters(parseAbiParameters("bytes, bytes[]"), [actions, params]);
}

/** UniversalRouter: PERMIT2_PERMIT of the whole amount (none for native ETH: sent as value), then V4_SWAP or V3_SWAP_EXACT_IN per leg. */
async function measureUniversalRouterLegs(bench: GasBench, legs: Leg[]): Promise<number> {
  const amountIn = legs.reduce((sum, leg) => sum + leg.amountIn, 0n);
  const nativeIn = legs[0]!.tokens[0] === NATIVE_TOKEN;
  const commands: number[] = [];
  const inputs: Hex[] = [];
  if (!nativeIn) {
    commands.push(PERMIT2_PERMIT);
    inputs.push(await universalRouterPermitInput(bench, legs[0]!.tokens[0]!, amountIn));
  }
  for (const leg of legs) {
    const minOut = await legOut(bench, leg);
    if (leg.v3Fee === undefined) {
      commands.push(V4_SWAP);
      inputs.push(universalV4Input(leg, minOut));
    } else {
      commands.push(V3_SWAP_EXACT_IN);
      const path = concatHex([leg.tokens[0]!, numberToHex(leg.v3Fee, { size: 3 }), leg.tokens[1]!]);
      inputs.push(encodeAbiParameters(parseAbiParameters("address, uint256, uint256, bytes, bool"), [MSG_SENDER, leg.amountIn, minOut, path, true]));
    }
  }
  const now = (await bench.clients.publicClient.getBlock()).timestamp;
  const hash = await bench.taker.sendTransaction({ to: bench.universalRouter, data: encodeUniversalExecute(commands, inputs, now + 600n), value: nativeIn ? amountIn : 0n });
  return Number((await bench.wait(hash)).gasUsed);
}

export async function measureV4Rows(bench: GasBench, isolate: <T>(measure: () => Promise<T>) => Promise<T>): Promise<V4GasRow[]> {
  const { token } = bench;
  const [USDC, WETH, WBTC] = [token("USDC"), token("WETH"), token("WBTC")];
  const pools = bench.deployed.uniswapV4.pools;
  const pool = (a: Address, b: Address): ManifestV4Pool => {
    const [x, y] = [currency(a), currency(b)];
    return pools.find((candidate) => candidate.hooks === zeroAddress && ((candidate.currency0 === x && candidate.currency1 === y) || (candidate.currency0 === y && candidate.currency1 === x)))!;
  };
  const safely = async (measure: () => Promise<number>): Promise<number | undefined> => {
    try {
      return await isolate(measure);
    } catch (error) {
      process.stderr.write(`V4 measurement failed: ${error instanceof Error ? error.message.split("\n").slice(0, 12).join(" ") : String(error)}\n`);
      return undefined;
    }
  };
  const row = async (name: string, legs: Leg[], sharesBps: number[]): Promise<V4GasRow> => {
    // Warm-up: the pools have traded and both routers' Permit2 paths have run once.
    await safely(() => measureOursLegs(bench, legs, sharesBps));
    await safely(() => measureUniversalRouterLegs(bench, legs));
    return { name, ours: await safely(() => measureOursLegs(bench, legs, sharesBps)), universalRouter: await safely(() => measureUniversalRouterLegs(bench, legs)) };
  };
  const usdc = parseUnits("3000", 6);
  return [
    await row("V4 ERC20→ERC20, 1 hop (USDC→WETH 0.05 %), Permit2 signature", [{ tokens: [USDC, WETH], pools: [pool(USDC, WETH)], amountIn: usdc }], [10_000]),
    await row("V4 ERC20→ERC20, 2 hops in one unlock (USDC→WETH→WBTC), Permit2 signature", [{ tokens: [USDC, WETH, WBTC], pools: [pool(USDC, WETH), pool(WETH, WBTC)], amountIn: usdc }], [10_000]),
    await row("V4 native ETH→USDC, 1 hop (ETH pool 0.30 %), ETH as value", [{ tokens: [NATIVE_TOKEN, USDC], pools: [pool(NATIVE_TOKEN, USDC)], amountIn: parseEther("1.5") }], [10_000]),
    await row(
      "V4+V3 split 50/50 USDC→WETH (V4 0.05 % + V3 0.05 %), Permit2 signature",
      [
        { tokens: [USDC, WETH], pools: [pool(USDC, WETH)], amountIn: usdc / 2n },
        { tokens: [USDC, WETH], pools: [], amountIn: usdc / 2n, v3Fee: 500 },
      ],
      [5_000, 5_000],
    ),
  ];
}
