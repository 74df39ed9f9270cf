/**
 * `bench:gas`'s V3 and propAMM rows: the same exact-input swap through our router (SWAP_V3 /
 * SWAP_PROPAMM actions), UniversalRouter's V3_SWAP_EXACT_IN, SwapRouter02, and for the propAMM a direct
 * call of the DevPropAmm's `swapExactIn` as the baseline. Each measurement starts from the same state
 * (the caller's `isolate` restores a snapshot after it).
 */
import { concatHex, encodeAbiParameters, encodeFunctionData, numberToHex, parseAbiParameters, parseUnits, type Address, type Hex } from "viem";
import { uniswapV3Artifacts } from "../deploy/uniswapV3";
import { encodeUniversalExecute, measureOurs, quote, universalRouterPermitInput, type GasBench } from "./gasVenues";
import { measureOursExactOutput } from "./exactOutputGas";
import type { RouteAction } from "../../sdk";
import { errorSummary } from "../../sdk/errors/errorSummary";

const MSG_SENDER: Address = "0x0000000000000000000000000000000000000001";
/** UniversalRouter commands used here. */
const PERMIT2_PERMIT = 0x0a;
const V2_SWAP_EXACT_IN = 0x08;
const V3_SWAP_EXACT_IN = 0x00;
const V3_SWAP_EXACT_OUT = 0x01;
/** The devnet's "uniswap-v3" venue: index 0 of the routers' V3 venue table. */
const UNISWAP_V3_VENUE = 0;

/** One V3 / propAMM row; a column is undefined when that contract cannot do the swap. */
export type V3GasRow = { name: string; ours?: number; universalRouter?: number; swapRouter02?: number; direct?: number; note?: string };

/** One leg: V2 (`fee` undefined) or V3 hops of the uniswap-v3 venue along `tokens`. */
type Leg = { tokens: Address[]; fees?: number[]; amountIn: bigint };

/** Uniswap's packed V3 path: token, fee (3 bytes), token, ... */
function v3Path(tokens: Address[], fees: number[]): Hex {
  const parts: Hex[] = [tokens[0]!];
  fees.forEach((fee, hop) => parts.push(numberToHex(fee, { size: 3 }), tokens[hop + 1]!));
  return concatHex(parts);
}

/** What a leg pays now: QuoterV2 for V3 legs, the pair reserves for V2 legs. */
async function legOut(bench: GasBench, leg: Leg): Promise<bigint> {
  if (leg.fees === undefined) return quote(bench, leg.tokens, leg.amountIn);
  const { result } = await bench.clients.publicClient.simulateContract({
    address: bench.deployed.v3Venues[UNISWAP_V3_VENUE]!.quoterV2,
    abi: uniswapV3Artifacts.quoterV2().abi,
    functionName: "quoteExactInput",
    args: [v3Path(leg.tokens, leg.fees), leg.amountIn],
  });
  return (result as readonly [bigint, ...unknown[]])[0];
}

function hopsOf(bench: GasBench, leg: Leg) {
  return leg.tokens.slice(1).map((tokenOut, hop) =>
    leg.fees === undefined
      ? { type: "swapV2" as const, pair: bench.pairOf(leg.tokens[hop]!, tokenOut), tokenOut, feeBps: 30 }
      : { type: "swapV3" as const, tokenOut, fee: leg.fees[hop]!, venue: UNISWAP_V3_VENUE },
  );
}

/** Ours: one action list (a SPLIT when there are several legs), Permit2 signature, minimum = the legs' sum quoted at the current state. */
async function measureOursLegs(bench: GasBench, legs: Leg[], sharesBps: number[], settlement: "permit" | "allowance" = "permit"): Promise<number> {
  const minOut = (await Promise.all(legs.map((leg) => legOut(bench, leg)))).reduce((a, b) => a + b, 0n);
  const actions: RouteAction[] =
    legs.length === 1 ? hopsOf(bench, legs[0]!) : [{ type: "split", legs: legs.map((leg, index) => ({ shareBps: sharesBps[index]!, hops: hopsOf(bench, leg) })) }];
  const amountIn = legs.reduce((sum, leg) => sum + leg.amountIn, 0n);
  const first = legs[0]!.tokens;
  const measured = await measureOurs(bench, { path: [first[0]!, first[first.length - 1]!], amountIn, nativeIn: false, nativeOut: false, settlement, actions: { actions, minOut } });
  return Number(measured.gasUsed[0]!);
}

/** UniversalRouter: PERMIT2_PERMIT of the whole amount, then one V2/V3_SWAP_EXACT_IN per leg, each with its own minimum. */
async function measureUniversalRouterLegs(bench: GasBench, legs: Leg[]): Promise<number> {
  const amountIn = legs.reduce((sum, leg) => sum + leg.amountIn, 0n);
  const commands = [PERMIT2_PERMIT];
  const inputs = [await universalRouterPermitInput(bench, legs[0]!.tokens[0]!, amountIn)];
  for (const leg of legs) {
    const minOut = await legOut(bench, leg);
    if (leg.fees === undefined) {
      commands.push(V2_SWAP_EXACT_IN);
      inputs.push(encodeAbiParameters(parseAbiParameters("address, uint256, uint256, address[], bool"), [MSG_SENDER, leg.amountIn, minOut, leg.tokens, true]));
    } else {
      commands.push(V3_SWAP_EXACT_IN);
      inputs.push(encodeAbiParameters(parseAbiParameters("address, uint256, uint256, bytes, bool"), [MSG_SENDER, leg.amountIn, minOut, v3Path(leg.tokens, leg.fees), true]));
    }
  }
  const now = (await bench.clients.publicClient.getBlock()).timestamp;
  const hash = await bench.taker.sendTransaction({ to: bench.universalRouter, data: encodeUniversalExecute(commands, inputs, now + 600n) });
  return Number((await bench.wait(hash)).gasUsed);
}

/** SwapRouter02 with a plain approval: exactInputSingle / exactInput, a split as multicall of one call per leg. */
async function measureSwapRouter02Legs(bench: GasBench, legs: Leg[]): Promise<number> {
  const abi = uniswapV3Artifacts.swapRouter02().abi;
  const to = bench.taker.account.address;
  const calls: Hex[] = [];
  for (const leg of legs) {
    const minOut = await legOut(bench, leg);
    if (leg.fees === undefined) {
      calls.push(encodeFunctionData({ abi, functionName: "swapExactTokensForTokens", args: [leg.amountIn, minOut, leg.tokens, to] }));
    } else if (leg.fees.length === 1) {
      const params = { tokenIn: leg.tokens[0]!, tokenOut: leg.tokens[1]!, fee: leg.fees[0]!, recipient: to, amountIn: leg.amountIn, amountOutMinimum: minOut, sqrtPriceLimitX96: 0n };
      calls.push(encodeFunctionData({ abi, functionName: "exactInputSingle", args: [params] }));
    } else {
      const params = { path: v3Path(leg.tokens, leg.fees), recipient: to, amountIn: leg.amountIn, amountOutMinimum: minOut };
      calls.push(encodeFunctionData({ abi, functionName: "exactInput", args: [params] }));
    }
  }
  const data = calls.length === 1 ? calls[0]! : encodeFunctionData({ abi, functionName: "multicall", args: [calls] });
  const hash = await bench.taker.sendTransaction({ to: bench.swapRouter02, data });
  return Number((await bench.wait(hash)).gasUsed);
}

/**
 * The exact-output row: buy 1 WETH with USDC in one V3 hop (0.05 %), ours by Permit2 signature (the
 * route run backwards: the maximum into the router, the pool paid in its callback, the rest refunded)
 * against UniversalRouter's PERMIT2_PERMIT + V3_SWAP_EXACT_OUT and SwapRouter02's exactOutputSingle,
 * each allowing the input QuoterV2 says the pool needs plus 0.5 %.
 */
async function exactOutputRow(bench: GasBench, safely: (measure: () => Promise<number>) => Promise<number | undefined>, USDC: Address, WETH: Address): Promise<V3GasRow> {
  const amountOut = parseUnits("1", 18);
  const fee = 500;
  const maximum = async () => {
    const { result } = await bench.clients.publicClient.simulateContract({
      address: bench.deployed.v3Venues[UNISWAP_V3_VENUE]!.quoterV2,
      abi: uniswapV3Artifacts.quoterV2().abi,
      functionName: "quoteExactOutputSingle",
      args: [{ tokenIn: USDC, tokenOut: WETH, amount: amountOut, fee, sqrtPriceLimitX96: 0n }],
    });
    const amountIn = (result as readonly [bigint, ...unknown[]])[0];
    return amountIn + (amountIn * 50n) / 10_000n;
  };
  const ours = async () =>
    Number(await measureOursExactOutput(bench, { path: [USDC, WETH], amountOut, settlement: "permit", route: { actions: [{ type: "swapV3", tokenOut: WETH, fee, venue: UNISWAP_V3_VENUE }], maximum: await maximum() } }));
  const universalRouter = async () => {
    const max = await maximum();
    // An exact-output path runs from the output back to the input.
    const inputs = [await universalRouterPermitInput(bench, USDC, max), encodeAbiParameters(parseAbiParameters("address, uint256, uint256, bytes, bool"), [MSG_SENDER, amountOut, max, v3Path([WETH, USDC], [fee]), true])];
    const now = (await bench.clients.publicClient.getBlock()).timestamp;
    const hash = await bench.taker.sendTransaction({ to: bench.universalRouter, data: encodeUniversalExecute([PERMIT2_PERMIT, V3_SWAP_EXACT_OUT], inputs, now + 600n) });
    return Number((await bench.wait(hash)).gasUsed);
  };
  const swapRouter02 = async () => {
    const params = { tokenIn: USDC, tokenOut: WETH, fee, recipient: bench.taker.account.address, amountOut, amountInMaximum: await maximum(), sqrtPriceLimitX96: 0n };
    const hash = await bench.taker.sendTransaction({ to: bench.swapRouter02, data: encodeFunctionData({ abi: uniswapV3Artifacts.swapRouter02().abi, functionName: "exactOutputSingle", args: [params] }) });
    return Number((await bench.wait(hash)).gasUsed);
  };
  // Warm-up, as for the other rows: the pool has traded and both Permit2 paths have run once.
  await ours();
  await universalRouter();
  return { name: "V3 exact output, 1 hop (buy 1 WETH with USDC, 0.05 %), Permit2 signature", ours: await safely(ours), universalRouter: await safely(universalRouter), swapRouter02: await safely(swapRouter02) };
}

const devPropAmmAbi = [
  {
    type: "function",
    name: "swapExactIn",
    stateMutability: "payable",
    inputs: [{ type: "bool" }, { type: "uint256" }, { type: "uint256" }, { type: "address" }, { type: "uint256" }],
    outputs: [{ type: "uint256" }],
  },
  { type: "function", name: "getAmountOut", stateMutability: "view", inputs: [{ type: "bool" }, { type: "uint256" }], outputs: [{ type: "uint256" }] },
] as const;

/** Measures the V3 and propAMM rows, each column from the same state. */
export async function measureV3Rows(bench: GasBench, isolate: <T>(measure: () => Promise<T>) => Promise<T>): Promise<V3GasRow[]> {
  const { token } = bench;
  const [USDC, WETH, LINK] = [token("USDC"), token("WETH"), token("LINK")];
  const safely = async (measure: () => Promise<number>): Promise<number | undefined> => {
    try {
      return await isolate(measure);
    } catch (error) {
      process.stderr.write(`measurement failed: ${errorSummary(error)}\n`);
      return undefined;
    }
  };
  const row = async (name: string, legs: Leg[], sharesBps: number[]): Promise<V3GasRow> => {
    // Warm-up: the pools have traded and both routers' Permit2 paths have run once.
    await measureOursLegs(bench, legs, sharesBps);
    await measureUniversalRouterLegs(bench, legs);
    return {
      name,
      ours: await safely(() => measureOursLegs(bench, legs, sharesBps)),
      universalRouter: await safely(() => measureUniversalRouterLegs(bench, legs)),
      swapRouter02: await safely(() => measureSwapRouter02Legs(bench, legs)),
    };
  };
  const usdc = parseUnits("3000", 6);
  const rows: V3GasRow[] = [
    await row("V3 ERC20→ERC20, 1 hop (0.05 %), Permit2 signature", [{ tokens: [USDC, WETH], fees: [500], amountIn: usdc }], [10_000]),
    {
      name: "V3 ERC20→ERC20, 1 hop (0.05 %), allowance",
      ours: await safely(() => measureOursLegs(bench, [{ tokens: [USDC, WETH], fees: [500], amountIn: usdc }], [10_000], "allowance")),
      note: "ours through AllowanceHolder; compare with SwapRouter02's approve-based row above",
    },
    await row("V3 ERC20→ERC20, 2 hops (LINK→WETH 0.3 %→USDC 0.05 %), Permit2 signature", [{ tokens: [LINK, WETH, USDC], fees: [3000, 500], amountIn: parseUnits("200", 18) }], [10_000]),
    await row(
      "V2+V3 split 50/50 USDC→WETH (V2 + V3 0.05 %), Permit2 signature",
      [
        { tokens: [USDC, WETH], amountIn: usdc / 2n },
        { tokens: [USDC, WETH], fees: [500], amountIn: usdc / 2n },
      ],
      [5_000, 5_000],
    ),
    await exactOutputRow(bench, safely, USDC, WETH),
  ];

  // propAMM: ours (SWAP_PROPAMM, Permit2 signature and allowance) against calling the DevPropAmm directly.
  const propAmm = bench.deployed.propAmms[0]!;
  const zeroForOne = propAmm.token0 === USDC;
  const amountOut = await bench.clients.publicClient.readContract({ address: propAmm.address, abi: devPropAmmAbi, functionName: "getAmountOut", args: [zeroForOne, usdc] });
  const propAmmSwap = (settlement: "permit" | "allowance") => async () =>
    Number(
      (
        await measureOurs(bench, {
          path: [USDC, WETH],
          amountIn: usdc,
          nativeIn: false,
          nativeOut: false,
          settlement,
          actions: { actions: [{ type: "swapPropAmm", pair: propAmm.address, tokenOut: WETH }], minOut: amountOut },
        })
      ).gasUsed[0]!,
    );
  const direct = async () => {
    const deadline = (await bench.clients.publicClient.getBlock()).timestamp + 600n;
    const hash = await bench.taker.writeContract({ address: propAmm.address, abi: devPropAmmAbi, functionName: "swapExactIn", args: [zeroForOne, usdc, amountOut, bench.taker.account.address, deadline] });
    return Number((await bench.wait(hash)).gasUsed);
  };
  await propAmmSwap("permit")();
  await direct();
  const directGas = await safely(direct);
  rows.push({ name: `propAMM ${propAmm.name} USDC→WETH, 1 hop, Permit2 signature`, ours: await safely(propAmmSwap("permit")), direct: directGas });
  rows.push({ name: `propAMM ${propAmm.name} USDC→WETH, 1 hop, allowance`, ours: await safely(propAmmSwap("allowance")), direct: directGas });
  return rows;
}
