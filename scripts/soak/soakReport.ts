/**
 * The soak's figures from what it recorded: requests by status (every 5xx not excused by an outage
 * listed), the relays' fates against the chain's SwapSettled logs, latency and memory per window, and
 * the goals of issue 22 as pass or fail. Pure: the run records, this file judges.
 */
import { outageDuring, type FaultRecord } from "./faultSchedule";

export const requestKinds = ["quote", "price", "gasless-quote", "gasless-submit", "gasless-status", "snapshot", "onboarding", "hostile"] as const;
export type RequestKind = (typeof requestKinds)[number];

/** One request as the load generator saw it; `status` 0: no HTTP answer (`code` says why: refused, reset, timeout). */
export type RequestSample = { atMs: number; ms: number; kind: RequestKind; instance: string; status: number; code?: string };
/** One reading of a process's resident memory. `process` names the role (api-1, relayer-2, chain, postgres). */
export type MemorySample = { atMs: number; process: string; pid: number; rssKiB: number };
/** A process instance: `startedMs` since the load started (negative: before it); `product`: an API or a relayer. */
export type ProcessLife = { process: string; pid: number; startedMs: number; product: boolean };
/** An accepted relay with the status read after the drain (`open` if it never became final, `unknown` if unreadable). */
export type RelayRecord = { relayId: string; quoteId: string; status: string };

export type RelayTally = {
  accepted: number;
  byStatus: Record<string, number>;
  /** Accepted but not final after the drain, or confirmed without a SwapSettled on chain. */
  lost: string[];
  /** Quotes settled more than once. */
  doubled: string[];
  /** Final as failed, expired, rejected or cancelled, yet settled on chain. */
  settledDespiteStatus: string[];
  /** Submissions never accepted (refused or given up) whose quote was settled all the same. */
  settledUnaccepted: string[];
  settlements: number;
};

export type WindowFigures = { index: number; fromMs: number; toMs: number; requests: number; perSecond: number; p50Ms: number; p99Ms: number; serverErrors: number; memoryMiB: Record<string, number> };
export type MemoryTrend = { process: string; pid: number; product: boolean; firstMiB: number; lastMiB: number; growth: number; windows: number };
export type Goal = { name: string; pass: boolean; detail: string };
export type ServerError = { atMs: number; kind: RequestKind; instance: string; status: number; code?: string };

export type SoakFigures = {
  requests: {
    total: number;
    byStatus: Record<string, number>;
    byKind: Record<string, Record<string, number>>;
    /** Refusals and failures by kind, with the error code the API gave (or why there was no answer). */
    codes: Record<string, Record<string, number>>;
    /** p50 and p99 of each kind over the whole run (answered requests). */
    latencyByKind: Record<string, { p50Ms: number; p99Ms: number }>;
    /** Every 5xx (and every request left unanswered) that no outage excuses. */
    undeclared: ServerError[];
    /** 503s and unanswered requests during an outage, by the fault that excuses them. */
    declared: Record<string, Record<string, number>>;
  };
  relays: RelayTally;
  windows: WindowFigures[];
  memory: MemoryTrend[];
  goals: Goal[];
};

/** Nearest-rank percentile of sorted values; 0 for none. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

function median(values: readonly number[]): number {
  return percentile([...values].sort((a, b) => a - b), 50);
}

const statusName = (status: number) => (status === 0 ? "no answer" : String(status));
const increment = (record: Record<string, number>, key: string) => (record[key] = (record[key] ?? 0) + 1);
const final = new Set(["confirmed", "failed", "expired", "rejected", "cancelled"]);

export function tallyRelays(relays: readonly RelayRecord[], unaccepted: readonly string[], settled: ReadonlyMap<string, number>): RelayTally {
  const key = (quoteId: string) => quoteId.toLowerCase();
  const byStatus: Record<string, number> = {};
  const lost: string[] = [];
  const settledDespiteStatus: string[] = [];
  for (const relay of relays) {
    increment(byStatus, relay.status);
    const count = settled.get(key(relay.quoteId)) ?? 0;
    if (!final.has(relay.status) || (relay.status === "confirmed" && count === 0)) lost.push(relay.relayId);
    else if (relay.status !== "confirmed" && count > 0) settledDespiteStatus.push(relay.relayId);
  }
  return {
    accepted: relays.length,
    byStatus,
    lost,
    doubled: [...settled.entries()].filter(([, count]) => count > 1).map(([quoteId]) => quoteId),
    settledDespiteStatus,
    settledUnaccepted: unaccepted.filter((quoteId) => (settled.get(key(quoteId)) ?? 0) > 0),
    settlements: [...settled.values()].reduce((sum, count) => sum + count, 0),
  };
}

/** Splits [0, durationMs) into windows of `windowMs` (the last may be shorter). */
export function windowBounds(durationMs: number, windowMs: number): { fromMs: number; toMs: number }[] {
  const bounds: { fromMs: number; toMs: number }[] = [];
  for (let fromMs = 0; fromMs < durationMs; fromMs += windowMs) bounds.push({ fromMs, toMs: Math.min(durationMs, fromMs + windowMs) });
  return bounds;
}

/**
 * Memory per process instance after its warm-up: the median RSS of its last window against that of its
 * first warm window. Those started before the load warm up during its first `warmupMs`; by then they
 * are `warmupMs` plus their head start old. A process restarted mid-run is a new instance, judged as
 * the others are: from the same age, the oldest age at which a first instance was first judged (a
 * restarted API's first two minutes are its warm-up, as the others' were). One that does not live
 * through two windows after that is not judged.
 */
export function memoryTrends(samples: readonly MemorySample[], lives: readonly ProcessLife[], bounds: readonly { fromMs: number; toMs: number }[], warmupMs: number): MemoryTrend[] {
  const trends: MemoryTrend[] = [];
  const headStart = Math.max(0, ...lives.filter((life) => life.product && life.startedMs <= 0).map((life) => -life.startedMs));
  for (const life of lives) {
    const warmFrom = life.startedMs <= 0 ? warmupMs : life.startedMs + warmupMs + headStart;
    const mine = samples.filter((sample) => sample.pid === life.pid && sample.process === life.process && sample.atMs >= warmFrom);
    const perWindow = bounds.map((bound) => mine.filter((sample) => sample.atMs >= bound.fromMs && sample.atMs < bound.toMs).map((sample) => sample.rssKiB)).filter((values) => values.length > 0);
    if (perWindow.length < 2) continue;
    const first = median(perWindow[0]!) / 1024;
    const last = median(perWindow[perWindow.length - 1]!) / 1024;
    trends.push({ process: life.process, pid: life.pid, product: life.product, firstMiB: first, lastMiB: last, growth: last / first - 1, windows: perWindow.length });
  }
  return trends;
}

function latencyByKind(requests: readonly RequestSample[]): Record<string, { p50Ms: number; p99Ms: number }> {
  const byKind: Record<string, { p50Ms: number; p99Ms: number }> = {};
  for (const kind of requestKinds) {
    const latencies = requests.filter((sample) => sample.kind === kind && sample.status !== 0).map((sample) => sample.ms).sort((a, b) => a - b);
    if (latencies.length > 0) byKind[kind] = { p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99) };
  }
  return byKind;
}

export type SoakRecords = {
  durationMs: number;
  windowMs: number;
  warmupMs: number;
  requests: readonly RequestSample[];
  memory: readonly MemorySample[];
  lives: readonly ProcessLife[];
  faults: readonly FaultRecord[];
  relays: readonly RelayRecord[];
  unaccepted: readonly string[];
  settled: ReadonlyMap<string, number>;
};

export const MEMORY_GROWTH_LIMIT = 0.1;
export const P99_RATIO_LIMIT = 1.5;

export function soakFigures(records: SoakRecords): SoakFigures {
  const byStatus: Record<string, number> = {};
  const byKind: Record<string, Record<string, number>> = {};
  const codes: Record<string, Record<string, number>> = {};
  const undeclared: ServerError[] = [];
  const declared: Record<string, Record<string, number>> = {};
  for (const sample of records.requests) {
    const status = statusName(sample.status);
    increment(byStatus, status);
    increment((byKind[sample.kind] ??= {}), status);
    if (sample.status === 0 || sample.status >= 400) increment((codes[sample.kind] ??= {}), `${status} ${sample.code ?? ""}`.trim());
    if (sample.status !== 0 && sample.status < 500) continue;
    const outage = sample.status === 0 || sample.status === 503 ? outageDuring(records.faults, sample.atMs, sample.atMs + sample.ms) : undefined;
    const error: ServerError = { atMs: sample.atMs, kind: sample.kind, instance: sample.instance, status: sample.status, ...(sample.code === undefined ? {} : { code: sample.code }) };
    if (outage === undefined) undeclared.push(error);
    else increment((declared[outage.label] ??= {}), `${status}${sample.code === undefined ? "" : ` ${sample.code}`}`);
  }

  const bounds = windowBounds(records.durationMs, records.windowMs);
  const processes = [...new Set(records.memory.map((sample) => sample.process))];
  const windows = bounds.map((bound, index): WindowFigures => {
    const inside = records.requests.filter((sample) => sample.atMs >= bound.fromMs && sample.atMs < bound.toMs);
    const latencies = inside.filter((sample) => sample.status !== 0).map((sample) => sample.ms).sort((a, b) => a - b);
    const memoryMiB: Record<string, number> = {};
    for (const process of processes) {
      const values = records.memory.filter((sample) => sample.process === process && sample.atMs >= bound.fromMs && sample.atMs < bound.toMs).map((sample) => sample.rssKiB);
      if (values.length > 0) memoryMiB[process] = median(values) / 1024;
    }
    return {
      index,
      ...bound,
      requests: inside.length,
      perSecond: inside.length / ((bound.toMs - bound.fromMs) / 1000),
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
      serverErrors: inside.filter((sample) => sample.status >= 500).length,
      memoryMiB,
    };
  });

  const relays = tallyRelays(records.relays, records.unaccepted, records.settled);
  const memory = memoryTrends(records.memory, records.lives, bounds, records.warmupMs);
  const product = memory.filter((trend) => trend.product);
  const grown = product.filter((trend) => trend.growth > MEMORY_GROWTH_LIMIT);
  const first = windows[0];
  const last = windows[windows.length - 1];
  const relayFaults = relays.lost.length + relays.doubled.length + relays.settledDespiteStatus.length + relays.settledUnaccepted.length;
  const goals: Goal[] = [
    {
      name: "0 relays lost or settled twice",
      pass: relays.accepted > 0 && relayFaults === 0,
      detail: `${relays.accepted} accepted, ${relays.lost.length} lost, ${relays.doubled.length} settled twice, ${relays.settledDespiteStatus.length} settled despite a final failure, ${relays.settledUnaccepted.length} settled without acceptance; ${relays.settlements} SwapSettled`,
    },
    {
      name: "0 undeclared 5xx",
      pass: undeclared.length === 0,
      detail: `${undeclared.filter((error) => error.status >= 500).length} 5xx and ${undeclared.filter((error) => error.status === 0).length} unanswered outside an outage; ${Object.values(declared).reduce((sum, codes) => sum + Object.values(codes).reduce((a, b) => a + b, 0), 0)} excused by an outage`,
    },
    {
      name: `memory flat within ${MEMORY_GROWTH_LIMIT * 100} % after warm-up (APIs and relayers)`,
      pass: product.length > 0 && grown.length === 0,
      detail:
        product.length === 0
          ? "no process lived through two windows after its warm-up"
          : product.map((trend) => `${trend.process} ${trend.firstMiB.toFixed(0)}→${trend.lastMiB.toFixed(0)} MiB (${(trend.growth * 100).toFixed(1)} %)`).join(", "),
    },
    {
      name: `p99 of the last window within ${P99_RATIO_LIMIT}× the first`,
      pass: first !== undefined && last !== undefined && first.p99Ms > 0 && last.p99Ms <= P99_RATIO_LIMIT * first.p99Ms,
      detail: first === undefined || last === undefined ? "no windows" : `${first.p99Ms.toFixed(0)} ms → ${last.p99Ms.toFixed(0)} ms (${(last.p99Ms / Math.max(1, first.p99Ms)).toFixed(2)}×)`,
    },
  ];
  return { requests: { total: records.requests.length, byStatus, byKind, codes, latencyByKind: latencyByKind(records.requests), undeclared, declared }, relays, windows, memory, goals };
}
