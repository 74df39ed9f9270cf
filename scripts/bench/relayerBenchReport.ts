/** The tables and JSON of `npm run bench:relayer`, from its cases' results (pure: tested in test/bench). */
import type { CaseResult } from "./relayerBenchCase";
import type { StageSummary } from "./stageHistogram";
import { formatTable } from "./printTable";
import { GOAL, GOAL_200 } from "./relayerBenchSettings";

/** Landed relays per distinct transaction hash (case-insensitive); undefined when none landed. */
export function relaysPerTransaction(hashes: readonly string[]): number | undefined {
  if (hashes.length === 0) return undefined;
  return hashes.length / new Set(hashes.map((hash) => hash.toLowerCase())).size;
}

/** Each relay's share of its transaction's gas: a batch's gas divided evenly among the relays it carried. */
export function gasPerRelay(relays: readonly { hash: string; gasUsed: bigint }[]): number[] {
  const carried = new Map<string, number>();
  for (const relay of relays) carried.set(relay.hash.toLowerCase(), (carried.get(relay.hash.toLowerCase()) ?? 0) + 1);
  return relays.map((relay) => Number(relay.gasUsed) / carried.get(relay.hash.toLowerCase())!);
}

/** Whether a case is one the goals speak of, and if so whether it met them. */
export function goalVerdict(result: Pick<CaseResult, "rate" | "signers" | "withinTwoBlocks" | "landedRatio"> & { chain?: string }): "met" | "MISSED" | undefined {
  const at200 = result.rate === GOAL_200.rate && result.chain === GOAL_200.chain && result.signers === GOAL_200.signers;
  if (at200) return result.withinTwoBlocks >= GOAL_200.withinTwoBlocks && result.landedRatio >= GOAL_200.landedRatio ? "met" : "MISSED";
  if (!GOAL.rates.includes(result.rate) || result.signers !== GOAL.signers) return undefined;
  return result.withinTwoBlocks >= GOAL.withinTwoBlocks && result.landedRatio >= GOAL.landedRatio ? "met" : "MISSED";
}

const fmt = (value: number | undefined, digits = 0) =>
  value === undefined || !Number.isFinite(value) ? "n/a" : value.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
const pct = (value: number) => `${(value * 100).toFixed(1)} %`;
const rateLabel = (result: Pick<CaseResult, "rate" | "signers">) => `${result.rate}/s × ${result.signers}`;

/** The main table: one row per chain, batching and case. */
export function resultsTable(results: readonly CaseResult[]): string {
  return formatTable(
    ["chain", "batching", "rate × signers", "offered/s", "landed/s", "landed/offered", "relays/tx", "confirm p50 ms", "p99 ms", "p50 blocks", "p99 blocks", "mined ≤2 blocks", "gas/swap", "ceiling/s", "goal"],
    results.map((result) => [
      result.chain,
      result.batching,
      rateLabel(result),
      fmt(result.offeredPerSecond, 1),
      fmt(result.landedPerSecond, 1),
      result.landedRatio.toFixed(3),
      fmt(result.relaysPerTransaction, 1),
      fmt(result.confirmMs.p50),
      fmt(result.confirmMs.p99),
      fmt(result.blocks.p50),
      fmt(result.blocks.p99),
      pct(result.withinTwoBlocks),
      fmt(result.gasPerSwap),
      fmt(result.ceilingPerSecond),
      goalVerdict(result) ?? "",
    ]),
  );
}

/** What the load generator saw of each relay: submission → accepted, → first broadcast, → mined, → confirmed. */
export function breakdownTable(results: readonly CaseResult[]): string {
  return formatTable(
    ["chain", "batching", "rate × signers", "submit HTTP p50/p99 ms", "non-2xx", "→broadcast p50/p99 ms", "→mined p50/p99 ms", "mined→confirmed p50 ms", "bumped", "final statuses", "block interval ms", "max swaps/block", "send lag max ms"],
    results.map((result) => [
      result.chain,
      result.batching,
      rateLabel(result),
      `${fmt(result.submitResponseMs.p50)} / ${fmt(result.submitResponseMs.p99)}`,
      String(result.non2xx),
      `${fmt(result.broadcastMs.p50)} / ${fmt(result.broadcastMs.p99)}`,
      `${fmt(result.minedMs.p50)} / ${fmt(result.minedMs.p99)}`,
      fmt(result.minedToConfirmedMs.p50),
      String(result.bumped),
      Object.entries(result.statuses).map(([status, count]) => `${status} ${count}`).join(", "),
      fmt(result.blockIntervalMs),
      String(result.maxSwapsPerBlock),
      fmt(result.sendLagMs.max),
    ]),
  );
}

/** The stages in the order a relay passes them; a stage the code gained since (batching) follows its part's known ones. */
const API_ORDER = ["lookup", "match", "verify", "handoff"];
const RELAYER_ORDER = ["queue_wait", "load", "nonce_check", "signer_wait", "simulation", "signer_lock", "sign_persist", "broadcast"];

function orderedStages(seen: Iterable<string>, known: readonly string[]): string[] {
  const all = new Set(seen);
  return [...known.filter((stage) => all.has(stage)), ...[...all].filter((stage) => !known.includes(stage)).sort()];
}

/**
 * Where the time goes: one row per stage (the API's, then the relayer's), one column per case at the
 * given rates with the largest signer count, each cell `p50 / p99` in ms (from the histograms' buckets).
 */
export function stagesTable(results: readonly CaseResult[], rates: readonly number[]): string | undefined {
  const maxSigners = Math.max(...results.map((result) => result.signers));
  const cases = results.filter((result) => rates.includes(result.rate) && result.signers === maxSigners);
  if (cases.length === 0) return undefined;
  const cell = (summary: StageSummary | undefined) => (summary === undefined ? "n/a" : `${fmt(summary.p50Ms, summary.p50Ms !== undefined && summary.p50Ms < 10 ? 1 : 0)} / ${fmt(summary.p99Ms, summary.p99Ms !== undefined && summary.p99Ms < 10 ? 1 : 0)}`);
  const rows = (part: "api" | "relayer", known: readonly string[]) =>
    orderedStages(cases.flatMap((result) => Object.keys(result.stages[part])), known).map((stage) => [`${part} ${stage}`, ...cases.map((result) => cell(result.stages[part][stage]))]);
  return formatTable(
    ["stage (p50 / p99 ms)", ...cases.map((result) => `${result.chain} ${result.batching === "on" ? "batched" : "single"} ${result.rate}/s×${result.signers}`)],
    [...rows("api", API_ORDER), ...rows("relayer", RELAYER_ORDER)],
  );
}

/** The JSON written to bench-results/relayer.json. */
export function benchJson(measuredAt: Date, settings: Record<string, unknown>, results: readonly CaseResult[]): string {
  return `${JSON.stringify({ measuredAt: measuredAt.toISOString(), settings, goal: GOAL, goal200: GOAL_200, results: results.map((result) => ({ ...result, goal: goalVerdict(result) ?? null })) }, (_key, value: unknown) => (typeof value === "bigint" ? value.toString() : value), 2)}\n`;
}
