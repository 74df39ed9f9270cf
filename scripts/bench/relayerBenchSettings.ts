/** Settings of `npm run bench:relayer`, read once from the environment (see scripts/bench/relayer.ts). */
import { join } from "node:path";
import { parseUnits } from "viem";
import { devnetChain } from "../../sdk";

export const ROOT = join(__dirname, "..", "..");
export const env = process.env;
/**
 * `npm run bench:relayer -- --quick`: a check that the bench works, not a measurement: 5-s cases at 50
 * and 200 relays a second with 4 signers (the rates of the "where the time goes" table). Any BENCH_*
 * variable set still wins.
 */
export const QUICK = process.argv.includes("--quick");
const quick = (full: string, short: string) => (QUICK ? short : full);
export const DURATION_SECONDS = Number(env.BENCH_DURATION_SECONDS ?? quick("20", "5"));
export const RATES = (env.BENCH_RATES ?? quick("10,50,100,200", "50,200")).split(",").map((rate) => Number(rate.trim()));
export const SIGNER_COUNTS = (env.BENCH_SIGNERS ?? quick("1,4", "4")).split(",").map((count) => Number(count.trim()));
export const TAKER_COUNT = Number(env.BENCH_TAKERS ?? 200);
export const DRAIN_SECONDS = Number(env.BENCH_DRAIN_SECONDS ?? quick("30", "20"));
export const BLOCK_MS = Number(env.BENCH_BLOCK_MS ?? 1000);
export const QUOTE_CONCURRENCY = Number(env.BENCH_QUOTE_CONCURRENCY ?? 8);
/** Each relay sells this much USDC for WETH: small against the 3M-a-side pool, so 4,000 swaps in one direction stay inside the slippage. */
export const SELL_USDC = parseUnits(env.BENCH_SELL_USDC ?? "10", 6);
export const SLIPPAGE_BPS = 300;

export const CHAIN_KINDS = ["hardhat", "anvil"] as const;
export type ChainKind = (typeof CHAIN_KINDS)[number];
/** `BENCH_CHAINS`: the chains to run every case on, in order (default both). */
export const CHAINS = (env.BENCH_CHAINS ?? CHAIN_KINDS.join(",")).split(",").map((chain) => chain.trim()) as ChainKind[];

/** Batching on: the relayer's own `RELAYER_BATCH_MAX` (default 32); off: `RELAYER_BATCH_MAX=1`, one order a transaction. */
export type Batching = "on" | "off";
/** `BENCH_BATCHING`: which of on and off to run each case with (default both). */
export const BATCHING = (env.BENCH_BATCHING ?? "on,off").split(",").map((value) => value.trim()) as Batching[];

/** The goals of issue 19, on each chain: at 50/s and at 100/s with 4 signers. */
export const GOAL = { rates: [50, 100], signers: 4, withinTwoBlocks: 0.95, landedRatio: 0.95 };
/** The goal of issue 34: the same, at 200/s with 4 signers, on Anvil only (the in-process Hardhat node tops out near 70 relays a second). */
export const GOAL_200 = { rate: 200, chain: "anvil", signers: 4, withinTwoBlocks: 0.95, landedRatio: 0.95 } as const;
/** The rates of the "where the time goes" table (with the largest signer count). */
export const STAGE_RATES = (env.BENCH_STAGE_RATES ?? "50,200").split(",").map((rate) => Number(rate.trim()));
export const CHAIN_ID = devnetChain.id;
/** The relayer's entry point; another one (a patched copy) can be measured against the same load. */
export const RELAYER_ENTRY = env.BENCH_RELAYER_ENTRY ?? "relayer/main.ts";

export const log = (message: string) => process.stderr.write(`[bench:relayer ${new Date().toISOString().slice(11, 19)}] ${message}\n`);

for (const [name, values] of [["BENCH_RATES", RATES], ["BENCH_SIGNERS", SIGNER_COUNTS], ["BENCH_DURATION_SECONDS", [DURATION_SECONDS]], ["BENCH_TAKERS", [TAKER_COUNT]]] as const) {
  if (values.some((value) => !Number.isFinite(value) || value <= 0)) throw new Error(`invalid ${name}: positive numbers expected`);
}
if (CHAINS.length === 0 || CHAINS.some((chain) => !(CHAIN_KINDS as readonly string[]).includes(chain))) throw new Error(`invalid BENCH_CHAINS: a list of ${CHAIN_KINDS.join(", ")} expected`);
if (BATCHING.length === 0 || BATCHING.some((value) => value !== "on" && value !== "off")) throw new Error('invalid BENCH_BATCHING: a list of "on", "off" expected');
// Anvil's interval mining counts whole seconds.
if (CHAINS.includes("anvil") && (BLOCK_MS % 1000 !== 0 || BLOCK_MS === 0)) throw new Error("invalid BENCH_BLOCK_MS: Anvil mines at whole seconds, so a multiple of 1000 is expected");
