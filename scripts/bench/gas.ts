/**
 * `npm run bench:gas`: gasUsed of the same swap through our feature-2 router, Uniswap's
 * UniversalRouter, UniswapV2Router02 and the bare floor (transfer + pair.swap), each measured from the
 * same chain state (an EVM snapshot is restored before every measurement) in one run; then gasless
 * single-hop swaps one per transaction against batches of 1, 10 and 50 through the feature-3 router;
 * then single-hop exact-output swaps (ours in each settlement against UniversalRouter's V2_SWAP_EXACT_OUT);
 * then V3 and propAMM swaps (gasV3Rows.ts: against V3_SWAP_EXACT_IN / V3_SWAP_EXACT_OUT, SwapRouter02, a direct propAMM call),
 * then Uniswap V4 swaps (gasV4Rows.ts: against UniversalRouter's V4_SWAP).
 */
import hre from "hardhat";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseUnits, type Address } from "viem";
import { formatTable } from "./printTable";
import { measureGaslessBatches } from "./gaslessBatchGas";
import { measureExactOutputRows, type ExactOutputGasRow } from "./exactOutputGas";
import { measureV3Rows, type V3GasRow } from "./gasV3Rows";
import { measureV4Rows, type V4GasRow } from "./gasV4Rows";
import {
  gasBenchSetup,
  grantPermit2Allowance,
  measureFloor,
  measureOurs,
  measureRouter02,
  measureUniversalRouter,
  type BenchSwap,
  type GasBench,
  type Measurement,
  type Venue,
} from "./gasVenues";

const INTRINSIC_GAS = 21_000n;
/** Batch sizes measured, and the goal at 10 orders: per-swap gas at most this share of a single swapGasless. */
const BATCH_SIZES = [1, 10, 50] as const;
const BATCH_GOAL = { swaps: 10, ratio: 0.85 } as const;

type Row = { name: string; swap: BenchSwap; venues: Venue[] };

/** A split's legs: `path` is the first leg's, as `BenchSwap` wants. */
function splitSwap(paths: Address[][], sharesBps: number[]): Pick<BenchSwap, "path" | "split"> {
  return { path: paths[0]!, split: paths.map((path, index) => ({ path, shareBps: sharesBps[index]! })) };
}

async function snapshot(): Promise<string> {
  return (await hre.network.provider.request({ method: "evm_snapshot", params: [] })) as string;
}
async function revert(id: string): Promise<void> {
  const reverted = await hre.network.provider.request({ method: "evm_revert", params: [id] });
  if (reverted !== true) throw new Error(`could not restore snapshot ${id}`);
}

/** The floor takes several transactions; count the 21,000 intrinsic gas once, as one transaction would. */
function total(measurement: Measurement): bigint {
  const sum = measurement.gasUsed.reduce((a, b) => a + b, 0n);
  return sum - INTRINSIC_GAS * BigInt(measurement.gasUsed.length - 1);
}

async function main(): Promise<void> {
  await hre.run("compile", { quiet: true });
  const bench = await gasBenchSetup();
  const { token } = bench;
  const [USDC, WETH, LINK, USDT, DAI] = [token("USDC"), token("WETH"), token("LINK"), token("USDT"), token("DAI")];
  const measure: Record<Venue, (bench: GasBench, swap: BenchSwap) => Promise<Measurement>> = {
    ours: measureOurs,
    universalRouter: measureUniversalRouter,
    router02: measureRouter02,
    floor: measureFloor,
  };
  const all: Venue[] = ["ours", "universalRouter", "router02", "floor"];
  const rows: Row[] = [
    { name: "ERC20→ERC20, 1 hop, Permit2 signature", swap: { path: [USDC, WETH], amountIn: parseUnits("3000", 6), nativeIn: false, nativeOut: false, settlement: "permit" }, venues: ["ours", "universalRouter", "floor"] },
    { name: "ERC20→ERC20, 1 hop, allowance", swap: { path: [USDC, WETH], amountIn: parseUnits("3000", 6), nativeIn: false, nativeOut: false, settlement: "allowance" }, venues: all },
    { name: "ETH→ERC20, 1 hop", swap: { path: [WETH, USDC], amountIn: parseUnits("1", 18), nativeIn: true, nativeOut: false, settlement: "allowance" }, venues: all },
    { name: "ERC20→ETH, 1 hop, Permit2 signature", swap: { path: [USDC, WETH], amountIn: parseUnits("3000", 6), nativeIn: false, nativeOut: true, settlement: "permit" }, venues: all },
    { name: "ERC20→ERC20, 2 hops, Permit2 signature", swap: { path: [LINK, WETH, USDC], amountIn: parseUnits("200", 18), nativeIn: false, nativeOut: false, settlement: "permit" }, venues: all },
    {
      name: "ERC20→ERC20, split 1+2 hops, Permit2 signature",
      swap: { ...splitSwap([[USDC, WETH], [USDC, USDT, WETH]], [7000, 3000]), amountIn: parseUnits("60000", 6), nativeIn: false, nativeOut: false, settlement: "permit" },
      venues: ["ours", "universalRouter", "floor"],
    },
    {
      name: "ERC20→ERC20, split 1+2+2 hops, Permit2 signature",
      swap: { ...splitSwap([[USDC, WETH], [USDC, USDT, WETH], [USDC, DAI, WETH]], [6000, 2000, 2000]), amountIn: parseUnits("90000", 6), nativeIn: false, nativeOut: false, settlement: "permit" },
      venues: ["ours", "universalRouter", "floor"],
    },
  ];

  // Warm-up: every pair has traded, and the taker has used Permit2 through both routers once, so
  // no venue pays first-use storage costs that the others would not.
  for (const row of rows) {
    await measureRouter02(bench, row.swap);
    if (!row.swap.nativeIn) {
      await measureOurs(bench, { ...row.swap, settlement: "permit" });
      await measureUniversalRouter(bench, { ...row.swap, settlement: "permit" });
    }
  }
  // The allowance row's UniversalRouter path spends a standing Permit2 allowance (a signed permit
  // would overwrite it, so it is granted after the warm-up).
  await grantPermit2Allowance(bench, USDC);
  await grantPermit2Allowance(bench, LINK);

  const results: { row: string; gas: Partial<Record<Venue, number>> }[] = [];
  for (const row of rows) {
    // Reverting consumes a snapshot, so a fresh one of the same state is taken each time.
    let start = await snapshot();
    const gas: Partial<Record<Venue, number>> = {};
    for (const venue of row.venues) {
      gas[venue] = Number(total(await measure[venue](bench, row.swap)));
      await revert(start);
      start = await snapshot();
    }
    results.push({ row: row.name, gas });
  }

  const cell = (value: number | undefined) => (value === undefined ? "n/a" : value.toLocaleString("en-US"));
  const ratio = (value: number | undefined, base: number | undefined) => (value === undefined || base === undefined ? "n/a" : `${(value / base).toFixed(3)}x`);
  const table = formatTable(
    ["swap", "ours", "UniversalRouter", "Router02", "floor", "ours/UR", "ours/floor", "UR/floor"],
    results.map(({ row, gas }) => [
      row,
      cell(gas.ours),
      cell(gas.universalRouter),
      cell(gas.router02),
      cell(gas.floor),
      ratio(gas.ours, gas.universalRouter),
      ratio(gas.ours, gas.floor),
      ratio(gas.universalRouter, gas.floor),
    ]),
  );
  process.stdout.write(`\ngasUsed per swap (chain 4663, same starting state for every column)\n\n${table}\n\n`);
  process.stdout.write("floor: transfer into the pair + pair.swap per hop (+ WETH deposit/withdraw for ETH legs), summed, with 21,000 intrinsic gas counted once.\n");
  process.stdout.write("Router02 cannot use Permit2: in the signed rows it runs its ordinary approve-based swap; it cannot split one order.\n");
  process.stdout.write("Split rows: ours is one SPLIT action with one minimum over the total; UniversalRouter runs one V2_SWAP_EXACT_IN per leg, each pulling its part from the taker, with a minimum per leg.\n");
  const beaten = results.every(({ gas }) => gas.ours === undefined || gas.universalRouter === undefined || gas.ours < gas.universalRouter);
  process.stdout.write(`ours below UniversalRouter in every row both can do: ${beaten ? "yes" : "NO"}\n`);

  const isolate = async <T>(measure: () => Promise<T>): Promise<T> => {
    const id = await snapshot();
    try {
      return await measure();
    } finally {
      await revert(id);
    }
  };
  const exactOutput = await measureExactOutputRows(
    bench,
    [
      { name: "ERC20→ERC20, 1 hop, exact output, Permit2 signature", swap: { path: [USDC, WETH], amountOut: parseUnits("1", 18), settlement: "permit" } },
      { name: "ERC20→ERC20, 1 hop, exact output, allowance", swap: { path: [USDC, WETH], amountOut: parseUnits("1", 18), settlement: "allowance" } },
      { name: "ETH→ERC20, 1 hop, exact output (unspent ETH refunded)", swap: { path: [WETH, USDC], amountOut: parseUnits("3000", 6), settlement: "native" } },
      { name: "ERC20→ERC20, 1 hop, exact output, gasless (relayer sends, fee on top)", swap: { path: [USDC, WETH], amountOut: parseUnits("1", 18), settlement: "gasless" } },
    ],
    isolate,
  );
  const exactOutputTable = formatTable(
    ["exact output", "ours", "UR V2_SWAP_EXACT_OUT", "ours/UR"],
    exactOutput.map((row: ExactOutputGasRow) => [row.name, cell(row.ours), cell(row.universalRouter), ratio(row.ours, row.universalRouter)]),
  );
  process.stdout.write(`\nexact-output swaps (each side takes only the input the pool needs; maximum = need + 0.5 %)\n\n${exactOutputTable}\n\n`);
  process.stdout.write("UniversalRouter: PERMIT2_PERMIT of the maximum (signed rows) or its standing Permit2 allowance, then V2_SWAP_EXACT_OUT; ETH: WRAP_ETH of the maximum, the swap, UNWRAP_WETH of the rest to the taker.\n");
  process.stdout.write("The gasless row is sent by a relayer and pays a relayer fee on top; UniversalRouter has no gasless mode, so it is compared with the taker's own signed swap.\n");

  const venueRows = await measureV3Rows(bench, isolate);
  const venueTable = formatTable(
    ["V3 / propAMM swap", "ours", "UR V3_SWAP_EXACT_IN/OUT", "SwapRouter02", "propAMM direct", "ours/UR", "ours/SwapRouter02", "ours/direct"],
    venueRows.map((row: V3GasRow) =>
      row.ours === undefined && row.note !== undefined
        ? [row.name, row.note, "", "", "", "", "", ""]
        : [row.name, cell(row.ours), cell(row.universalRouter), cell(row.swapRouter02), cell(row.direct), ratio(row.ours, row.universalRouter), ratio(row.ours, row.swapRouter02), ratio(row.ours, row.direct)],
    ),
  );
  process.stdout.write(`\nV3 and propAMM swaps (devnet "uniswap-v3" venue; each column from the same state)\n\n${venueTable}\n\n`);
  process.stdout.write("UniversalRouter: PERMIT2_PERMIT, then V3_SWAP_EXACT_IN (V2_SWAP_EXACT_IN for the V2 leg) per leg with a minimum per leg; SwapRouter02: approve-based exactInputSingle / exactInput, the split as multicall of swapExactTokensForTokens + exactInputSingle.\n");
  process.stdout.write("propAMM baseline: the taker calls DevPropAmm.swapExactIn itself (approve-based, no router).\n");
  process.stdout.write("V3 exact output: ours runs the route backwards (the maximum into the router, the pool paid exactly what it asks in its callback, the rest refunded to the taker); UniversalRouter: PERMIT2_PERMIT of the maximum, V3_SWAP_EXACT_OUT paid from the taker in the callback; SwapRouter02: approve-based exactOutputSingle.\n");
  process.stdout.write("V3 allowance row: ours spends an AllowanceHolder allowance; SwapRouter02's approve-based 1-hop figure is in the row above.\n");

  const v4Rows = await measureV4Rows(bench, isolate);
  const v4Table = formatTable(
    ["Uniswap V4 swap", "ours", "UR V4_SWAP", "ours/UR"],
    v4Rows.map((row: V4GasRow) => [row.name, cell(row.ours), cell(row.universalRouter), ratio(row.ours, row.universalRouter)]),
  );
  process.stdout.write(`\nUniswap V4 swaps (the devnet's V4 market; each column from the same state)\n\n${v4Table}\n\n`);
  process.stdout.write("UniversalRouter: PERMIT2_PERMIT (none for ETH, sent as value), then V4_SWAP of SWAP_EXACT_IN(_SINGLE), SETTLE_ALL, TAKE_ALL per V4 leg and V3_SWAP_EXACT_IN for the V3 leg; ours: SWAP_V4 actions (consecutive ones in one unlock), the split's V4 leg its own unlock.\n");

  const gasless = await measureGaslessBatches(bench, BATCH_SIZES, isolate);
  const batchTable = formatTable(
    ["gasless USDC→WETH, 1 hop", "gasUsed", "per swap", "per swap / single"],
    [
      ["swapGasless (one per transaction)", cell(gasless.single), cell(gasless.single), "1.000x"],
      ...gasless.batches.map((row) => [`swapGaslessBatch of ${row.swaps}`, cell(row.gasUsed), cell(row.perSwap), ratio(row.perSwap, gasless.single)]),
    ],
  );
  process.stdout.write(`\ngasless swaps one per transaction and in batches (each order a different taker's, same relayer fee payee)\n\n${batchTable}\n\n`);
  const atGoal = gasless.batches.find((row) => row.swaps === BATCH_GOAL.swaps);
  const met = atGoal !== undefined && atGoal.perSwap <= gasless.single * BATCH_GOAL.ratio;
  process.stdout.write(`batch of ${BATCH_GOAL.swaps} at most ${BATCH_GOAL.ratio}x a single swap's gas per swap: ${met ? "yes" : "NO"}\n`);

  const directory = join(hre.config.paths.root, "bench-results");
  mkdirSync(directory, { recursive: true });
  writeFileSync(join(directory, "gas.json"), `${JSON.stringify({ measuredAt: new Date().toISOString(), results, exactOutput, venues: venueRows, v4: v4Rows, gasless }, null, 2)}\n`);
  process.stdout.write(`written to bench-results/gas.json\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
