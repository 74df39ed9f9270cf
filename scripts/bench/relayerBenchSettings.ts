/** Settings of `npm run bench:relayer`, read once from the environment (see scripts/bench/relayer.ts). */
import { join } from "node:path";
import { parseUnits } from "viem";
import { devnetChain } from "../../sdk";

export const ROOT = join(__dirname, "..", "..");
export const env = process.env;
export const DURATION_SECONDS = Number(env.BENCH_DURATION_SECONDS ?? 20);
export const RATES = (env.BENCH_RATES ?? "10,50,100").split(",").map((rate) => Number(rate.trim()));
export const SIGNER_COUNTS = (env.BENCH_SIGNERS ?? "1,4").split(",").map((count) => Number(count.trim()));
export const TAKER_COUNT = Number(env.BENCH_TAKERS ?? 200);
export const DRAIN_SECONDS = Number(env.BENCH_DRAIN_SECONDS ?? 30);
export const BLOCK_MS = Number(env.BENCH_BLOCK_MS ?? 1000);
export const QUOTE_CONCURRENCY = Number(env.BENCH_QUOTE_CONCURRENCY ?? 8);
/** Each relay sells this much USDC for WETH: small against the 3M-a-side pool, so 2,000 swaps in one direction stay inside the slippage. */
export const SELL_USDC = parseUnits(env.BENCH_SELL_USDC ?? "10", 6);
export const SLIPPAGE_BPS = 300;
/** The goal of the issue: at 50/s with 4 signers. */
export const GOAL = { rate: 50, signers: 4, withinTwoBlocks: 0.95, landedRatio: 0.95 };
export const CHAIN_ID = devnetChain.id;
/** The relayer's entry point; another one (a patched copy) can be measured against the same load. */
export const RELAYER_ENTRY = env.BENCH_RELAYER_ENTRY ?? "relayer/main.ts";

export const log = (message: string) => process.stderr.write(`[bench:relayer ${new Date().toISOString().slice(11, 19)}] ${message}\n`);

for (const [name, values] of [["BENCH_RATES", RATES], ["BENCH_SIGNERS", SIGNER_COUNTS], ["BENCH_DURATION_SECONDS", [DURATION_SECONDS]], ["BENCH_TAKERS", [TAKER_COUNT]]] as const) {
  if (values.some((value) => !Number.isFinite(value) || value <= 0)) throw new Error(`invalid ${name}: positive numbers expected`);
}
