import autocannon from "autocannon";
import { measureCpu, LOAD_GENERATOR, type MainThreads, type ProcessGroups } from "./processCpu";
import { median, roundOrder, roundRatios, type RatioRange } from "./roundRatios";

export type Case = { name: string; goal?: number; path: string; headers?: Record<string, string>; expectStatus: number };

/** An API under load: its cases (its own integrator's key) and the processes whose CPU its windows count. */
export type Target = {
  label: string;
  url: string;
  cases: Case[];
  groups: ProcessGroups;
  mainThreads: MainThreads;
};

/** One case in one round on one target: rates from autocannon, CPU seconds from /proc. */
export type Window = { rps: number; p50: number; p99: number; requests: number; seconds: number; cpuSeconds: Record<string, number>; machinePercent: number };

/** One case on one target over the rounds. */
export type Summary = {
  /** Medians over the rounds. */
  rps: number;
  p50: number;
  p99: number;
  /** Each round's req/s over the same target's baseline (a) in that round. */
  ofBaseline: RatioRange;
  /** CPU µs per request of each group (its CPU over all rounds / all requests), the load generator's included. */
  cpuMicrosPerRequest: Record<string, number>;
  /** The whole machine's median busy share (100 % per core): how contended the windows were. */
  machinePercent: number;
  rounds: Window[];
};

export type RunOptions = { connections: number; durationSeconds: number };

/** Loads `url` + the case's path with autocannon; throws when the case answers with another status. */
export async function runCase(url: string, benchCase: Case, options: RunOptions): Promise<autocannon.Result> {
  const result = await autocannon({ url: `${url}${benchCase.path}`, headers: benchCase.headers, connections: options.connections, duration: options.durationSeconds });
  const statusKey = `${Math.floor(benchCase.expectStatus / 100)}xx` as "2xx" | "3xx" | "4xx";
  if (result.non2xx > 0 && statusKey === "2xx") throw new Error(`${benchCase.name}: ${result.non2xx} responses were not 2xx`);
  if (result[statusKey] === 0) throw new Error(`${benchCase.name}: no ${benchCase.expectStatus} responses`);
  return result;
}

/** Requests a second over the whole window (autocannon's duration is measured to 10 ms). */
export function ratePerSecond(result: autocannon.Result): number {
  return result.requests.total / result.duration;
}

async function window(target: Target, benchCase: Case, options: RunOptions): Promise<Window> {
  const measured = await measureCpu(target.groups, () => runCase(target.url, benchCase, options), target.mainThreads);
  const result = measured.result;
  return {
    rps: ratePerSecond(result),
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    seconds: measured.seconds,
    cpuSeconds: measured.cpuSeconds,
    machinePercent: measured.machinePercent,
  };
}

/** One request of each case, then a second of load of each: JIT-compiled handlers, warm caches. */
export async function warmUp(target: Target, options: RunOptions): Promise<void> {
  // A fresh instance's first quote reads the pools from the chain, which on loaded cores can outlast a second.
  for (const benchCase of target.cases) await fetch(`${target.url}${benchCase.path}`, { headers: benchCase.headers }).then((response) => response.text());
  for (const benchCase of target.cases) await runCase(target.url, benchCase, { ...options, durationSeconds: 1 });
}

/** CPU µs per request of each group over `windows`: all their CPU over all their requests. */
export function cpuMicrosPerRequest(windows: readonly Pick<Window, "requests" | "cpuSeconds">[]): Record<string, number> {
  const requests = windows.reduce((sum, measured) => sum + measured.requests, 0);
  const totals: Record<string, number> = {};
  for (const measured of windows) for (const [name, seconds] of Object.entries(measured.cpuSeconds)) totals[name] = (totals[name] ?? 0) + seconds;
  return Object.fromEntries(Object.entries(totals).map(([name, seconds]) => [name, (seconds * 1e6) / requests]));
}

/**
 * `rounds` interleaved rounds over every target and case: in each round each case runs on every
 * target right after each other (the targets' order reversed from one case to the next and one round
 * to the next: A B, B A, …), so that the targets of one case are compared a few seconds apart on the
 * same machine, never a minute apart. Returns, per target, each case's summary.
 */
export async function measureInterleaved(targets: readonly Target[], rounds: number, options: RunOptions, log: (line: string) => void): Promise<Summary[][]> {
  const cases = targets[0]!.cases.length;
  // windows[target][case][round]
  const windows: Window[][][] = targets.map(() => Array.from({ length: cases }, () => []));
  for (let round = 0; round < rounds; round++) {
    for (let caseIndex = 0; caseIndex < cases; caseIndex++) {
      for (const targetIndex of roundOrder(targets.length, round + caseIndex)) {
        const target = targets[targetIndex]!;
        windows[targetIndex]![caseIndex]!.push(await window(target, target.cases[caseIndex]!, options));
      }
    }
    log(
      `  round ${round + 1}/${rounds}: ` +
        targets.map((target, index) => `${target.label} ${windows[index]!.map((perCase) => perCase[round]!.rps.toFixed(0)).join("/")}`).join("; ") +
        " req/s\n",
    );
  }
  return windows.map((perCase) =>
    perCase.map((perRound): Summary => {
      const baseline = perCase[0]!;
      return {
        rps: median(perRound.map((measured) => measured.rps)),
        p50: median(perRound.map((measured) => measured.p50)),
        p99: median(perRound.map((measured) => measured.p99)),
        ofBaseline: roundRatios(
          perRound.map((measured) => measured.rps),
          baseline.map((measured) => measured.rps),
        ),
        cpuMicrosPerRequest: cpuMicrosPerRequest(perRound),
        machinePercent: median(perRound.map((measured) => measured.machinePercent)),
        rounds: perRound,
      };
    }),
  );
}

/** Case by case, round by round, `a`'s req/s over `b`'s (measured next to each other): median and range. */
export function pairedRatios(a: readonly Summary[], b: readonly Summary[]): RatioRange[] {
  return a.map((summary, index) =>
    roundRatios(
      summary.rounds.map((measured) => measured.rps),
      b[index]!.rounds.map((measured) => measured.rps),
    ),
  );
}

/** Every group's CPU per request but the main thread's (part of its process's) added up. */
export function totalMicros(perRequest: Record<string, number>): number {
  return Object.entries(perRequest)
    .filter(([name]) => !name.endsWith("main thread"))
    .reduce((sum, [, micros]) => sum + micros, 0);
}

export { LOAD_GENERATOR };
