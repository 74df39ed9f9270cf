import { availableParallelism } from "node:os";
import { measureCpu, type MainThreads, type ProcessGroups } from "./processCpu";
import { ratePerSecond, runCase, type Case, type RunOptions } from "./apiTargets";
import { roundOrder, roundRatios, median, type RatioRange } from "./roundRatios";
import { quoteRateCeiling, scaleOutCeiling, type QuoteCpu, type ScaleOutCeiling } from "./scaleOutCeiling";

/** The full quote on one API, or on two at once, over the rounds: rates, and CPU per quote from /proc. */
export type ScaleOutWindow = {
  /** Median over the rounds of the quotes a second all loaded APIs answered together. */
  rps: number;
  quotes: number;
  /** Each group's CPU µs per quote (all loaded APIs' quotes); each API's and its main thread's per quote that API answered. */
  cpuMicrosPerQuote: Record<string, number>;
  /** What the ceiling is computed from. */
  quoteCpu: QuoteCpu;
  /** The quote rate this machine's cores allow at these costs. */
  ceilingPerSecond: number;
  machinePercent: number;
};

export type ScaleOut = {
  one: ScaleOutWindow;
  two: ScaleOutWindow;
  /** Round by round, two APIs' rate over one's (adjacent windows). */
  ratio: RatioRange;
  cores: number;
  /** The best two/one ratio the measured CPU per quote allows on this machine's cores… */
  ceiling: ScaleOutCeiling;
  /** …and with a core for every process (only each API's event loop bounds it). */
  ceilingWithCorePerProcess: ScaleOutCeiling;
};

export type ScaleOutSetup = {
  urls: readonly [string, string];
  /** The APIs' pids, in the order of `urls`. */
  apiPids: readonly [number, number];
  /** The other processes of the run (PostgreSQL, the chain): named groups. */
  others: ProcessGroups;
  quote: Case;
};

type Accumulated = { cpuSeconds: Record<string, number>; quotesPerApi: number[]; rps: number[]; machinePercent: number[] };

const apiName = (index: number) => `API #${index + 1}`;
const mainThreadName = (index: number) => `API #${index + 1} main thread`;

/**
 * The full quote on the first API alone, then on both at once (each with the same connections), in
 * `rounds` adjacent pairs (one then two, two then one, …), CPU measured from /proc in every window.
 */
export async function measureScaleOut(setup: ScaleOutSetup, rounds: number, options: RunOptions, log: (line: string) => void): Promise<ScaleOut> {
  const groups: ProcessGroups = { ...Object.fromEntries(setup.apiPids.map((pid, index) => [apiName(index), () => [pid]])), ...setup.others };
  const mainThreads: MainThreads = Object.fromEntries(setup.apiPids.map((pid, index) => [mainThreadName(index), pid]));
  const accumulated: [Accumulated, Accumulated] = [
    { cpuSeconds: {}, quotesPerApi: [0, 0], rps: [], machinePercent: [] },
    { cpuSeconds: {}, quotesPerApi: [0, 0], rps: [], machinePercent: [] },
  ];
  for (let round = 0; round < rounds; round++) {
    for (const mode of roundOrder(2, round)) {
      const urls = setup.urls.slice(0, mode + 1);
      const measured = await measureCpu(groups, () => Promise.all(urls.map((url) => runCase(url, setup.quote, options))), mainThreads);
      const into = accumulated[mode]!;
      for (const [name, seconds] of Object.entries(measured.cpuSeconds)) into.cpuSeconds[name] = (into.cpuSeconds[name] ?? 0) + seconds;
      measured.result.forEach((result, index) => (into.quotesPerApi[index]! += result.requests.total));
      into.rps.push(measured.result.reduce((sum, result) => sum + ratePerSecond(result), 0));
      into.machinePercent.push(measured.machinePercent);
    }
    log(`  scale-out round ${round + 1}/${rounds}: one API ${accumulated[0].rps[round]!.toFixed(0)}, two ${accumulated[1].rps[round]!.toFixed(0)} req/s\n`);
  }
  const cores = availableParallelism();
  const summarise = (mode: 0 | 1): ScaleOutWindow => {
    const { cpuSeconds, quotesPerApi, rps, machinePercent } = accumulated[mode];
    const apis = mode + 1;
    const quotes = quotesPerApi.reduce((sum, count) => sum + count, 0);
    const cpuMicrosPerQuote: Record<string, number> = {};
    for (const [name, seconds] of Object.entries(cpuSeconds)) {
      const own = /^API #(\d)/.exec(name);
      const index = own === null ? undefined : Number(own[1]) - 1;
      // An API's CPU per quote it answered; an idle API (the second, in the one-API window) and the rest per quote of all.
      const divisor = index !== undefined && index < apis ? quotesPerApi[index]! : quotes;
      cpuMicrosPerQuote[name] = (seconds * 1e6) / divisor;
    }
    const total = Object.entries(cpuSeconds)
      .filter(([name]) => !name.endsWith("main thread"))
      .reduce((sum, [, seconds]) => sum + seconds, 0);
    const quoteCpu: QuoteCpu = {
      apiMainThreadMicros: Array.from({ length: apis }, (_, index) => cpuMicrosPerQuote[mainThreadName(index)]!),
      totalMicros: (total * 1e6) / quotes,
    };
    return { rps: median(rps), quotes, cpuMicrosPerQuote, quoteCpu, ceilingPerSecond: quoteRateCeiling(quoteCpu, cores), machinePercent: median(machinePercent) };
  };
  const one = summarise(0);
  const two = summarise(1);
  return {
    one,
    two,
    ratio: roundRatios(accumulated[1].rps, accumulated[0].rps),
    cores,
    ceiling: scaleOutCeiling(one.quoteCpu, two.quoteCpu, cores),
    ceilingWithCorePerProcess: scaleOutCeiling(one.quoteCpu, two.quoteCpu, Number.POSITIVE_INFINITY),
  };
}
