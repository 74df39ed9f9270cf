import { expect } from "chai";
import fc from "fast-check";
import { Registry } from "prom-client";
import { RelayStageTimings, STAGE_BUCKETS } from "../../relayer/queue/relayStageTimings";
import { gaslessSubmitStageHistogram, submitStopwatch } from "../../api/metrics/gaslessSubmitStages";
import type { CaseResult } from "../../scripts/bench/relayerBenchCase";
import { benchJson, gasPerRelay, goalVerdict, relaysPerTransaction, resultsTable, stagesTable } from "../../scripts/bench/relayerBenchReport";
import { histogramQuantile, parseStageHistograms, subtractHistograms, summariseStages } from "../../scripts/bench/stageHistogram";

const empty = { count: 0 };

/** A case result as runCase returns it, with the fields a test varies. */
function caseResult(overrides: Partial<CaseResult>): CaseResult {
  return {
    chain: "hardhat",
    batching: "on",
    rate: 50,
    signers: 4,
    offered: 1000,
    offeredPerSecond: 50,
    accepted: 1000,
    non2xx: 0,
    submitErrors: {},
    submitErrorSamples: {},
    landed: 1000,
    landedRatio: 1,
    landedPerSecond: 50,
    withinTwoBlocks: 0.97,
    confirmMs: { count: 1000, p50: 1500, p99: 2900 },
    minedMs: empty,
    broadcastMs: empty,
    minedToConfirmedMs: empty,
    blocks: { count: 1000, p50: 1, p99: 2 },
    submitResponseMs: empty,
    sendLagMs: empty,
    transactions: 100,
    relaysPerTransaction: 10,
    gasPerSwap: 80_000,
    gasPerSwapP50: 80_000,
    ceilingPerSecond: 375,
    bumped: 0,
    statuses: { confirmed: 1000 },
    reasons: {},
    blockIntervalMs: 1000,
    maxSwapsPerBlock: 60,
    blocksSeen: 30,
    quoteSeconds: 10,
    relayerLog: {},
    stages: { api: {}, relayer: {} },
    ...overrides,
  };
}

describe("bench:relayer's report", () => {
  it("counts relays per transaction by distinct hash, case-insensitively, and none when nothing landed", () => {
    expect(relaysPerTransaction(["0xAB", "0xab", "0xcd", "0xef"])).to.equal(4 / 3);
    expect(relaysPerTransaction(["0x01", "0x02"])).to.equal(1);
    expect(relaysPerTransaction([])).to.equal(undefined);
  });

  it("shares a batch's gas evenly among the relays it carried", () => {
    const shares = gasPerRelay([
      { hash: "0xaa", gasUsed: 300_000n },
      { hash: "0xAA", gasUsed: 300_000n },
      { hash: "0xaa", gasUsed: 300_000n },
      { hash: "0xbb", gasUsed: 137_000n },
    ]);
    expect(shares).to.deep.equal([100_000, 100_000, 100_000, 137_000]);
  });

  it("judges the goals only at 50/s and 100/s with 4 signers: ≥ 95 % within 2 blocks and landed/offered ≥ 0.95", () => {
    expect(goalVerdict({ rate: 50, signers: 4, withinTwoBlocks: 0.95, landedRatio: 0.95 })).to.equal("met");
    expect(goalVerdict({ rate: 100, signers: 4, withinTwoBlocks: 0.949, landedRatio: 1 })).to.equal("MISSED");
    expect(goalVerdict({ rate: 100, signers: 4, withinTwoBlocks: 1, landedRatio: 0.94 })).to.equal("MISSED");
    expect(goalVerdict({ rate: 200, signers: 4, withinTwoBlocks: 1, landedRatio: 1 })).to.equal(undefined);
    // Issue 34's 200/s goal speaks of Anvil only.
    expect(goalVerdict({ rate: 200, signers: 4, withinTwoBlocks: 1, landedRatio: 1, chain: "hardhat" })).to.equal(undefined);
    expect(goalVerdict({ rate: 200, signers: 4, withinTwoBlocks: 0.95, landedRatio: 0.95, chain: "anvil" })).to.equal("met");
    expect(goalVerdict({ rate: 200, signers: 4, withinTwoBlocks: 0.138, landedRatio: 0.823, chain: "anvil" })).to.equal("MISSED");
    expect(goalVerdict({ rate: 50, signers: 1, withinTwoBlocks: 1, landedRatio: 1 })).to.equal(undefined);
  });

  it("prints one table with a chain and a batching column, relays per transaction, mined within 2 blocks and landed/offered", () => {
    const table = resultsTable([
      caseResult({ chain: "hardhat", batching: "on", relaysPerTransaction: 12.5 }),
      caseResult({ chain: "anvil", batching: "off", relaysPerTransaction: 1, rate: 200, withinTwoBlocks: 0.5, landedRatio: 0.9 }),
    ]);
    const [header, , first, second] = table.split("\n");
    expect(header).to.match(/^chain\s+batching\s+rate × signers/);
    expect(header).to.include("relays/tx").and.include("mined ≤2 blocks").and.include("landed/offered");
    expect(first).to.match(/^hardhat\s+on\s+50\/s × 4/);
    expect(first).to.include("12.5").and.include("97.0 %").and.include("met");
    expect(second).to.match(/^anvil\s+off\s+200\/s × 4/);
    // 200/s on Anvil has its goal now (issue 34): missed at 50 % within 2 blocks.
    expect(second).to.include("0.900").and.include("50.0 %").and.include("MISSED");
  });

  it("prints where the time goes at the chosen rates only, stages in the order a relay passes them, a stage it does not know last", () => {
    const stages = {
      api: { verify: { count: 10, p50Ms: 12, p99Ms: 40 }, lookup: { count: 10, p50Ms: 0.8, p99Ms: 2 } },
      relayer: { broadcast: { count: 10, p50Ms: 3, p99Ms: 9 }, queue_wait: { count: 10, p50Ms: 250, p99Ms: 4000 }, batch_fill: { count: 2, p50Ms: 5, p99Ms: 5 } },
    };
    const table = stagesTable(
      [caseResult({ rate: 50, stages }), caseResult({ rate: 100, stages }), caseResult({ rate: 200, batching: "off", stages: { api: {}, relayer: {} } }), caseResult({ rate: 50, signers: 1, stages })],
      [50, 200],
    )!;
    const lines = table.split("\n");
    expect(lines[0]).to.include("hardhat batched 50/s×4").and.include("hardhat single 200/s×4").and.not.include("100/s").and.not.include("×1");
    expect(lines.slice(2).map((line) => line.split(/\s{2,}/)[0])).to.deep.equal(["api lookup", "api verify", "relayer queue_wait", "relayer broadcast", "relayer batch_fill"]);
    expect(lines[4]).to.match(/relayer queue_wait\s+250 \/ 4,000\s+n\/a$/);
    expect(stagesTable([caseResult({ rate: 10 })], [50, 200])).to.equal(undefined);
  });

  it("writes JSON with each case's chain, batching, relays per transaction, stages and goal verdict", () => {
    const json = JSON.parse(benchJson(new Date("2026-11-24T10:00:00Z"), { chains: ["hardhat", "anvil"] }, [caseResult({ chain: "anvil", batching: "off", relaysPerTransaction: 1 })])) as {
      measuredAt: string;
      results: (CaseResult & { goal: string | null })[];
    };
    expect(json.measuredAt).to.equal("2026-11-24T10:00:00.000Z");
    expect(json.results[0]).to.include({ chain: "anvil", batching: "off", relaysPerTransaction: 1, goal: "met" });
    expect(json.results[0]!.stages).to.deep.equal({ api: {}, relayer: {} });
  });
});

describe("stage timings", () => {
  it("the relayer records each stage once per lap, from the previous mark, and forgets a relay after its broadcast", async () => {
    const registry = new Registry();
    const timings = new RelayStageTimings(registry);
    timings.start("relay-1");
    await new Promise((resolve) => setTimeout(resolve, 30));
    timings.lap("relay-1", "queue_wait");
    timings.lap("relay-1", "simulation");
    timings.lap("relay-1", "broadcast");
    timings.lap("relay-1", "broadcast");
    timings.lap("never-started", "load");
    const stages = parseStageHistograms(await registry.metrics(), "relayer_relay_stage_seconds");
    expect(Object.keys(stages).sort()).to.deep.equal(["broadcast", "queue_wait", "simulation"]);
    expect(stages.queue_wait!.count).to.equal(1);
    expect(stages.queue_wait!.sum).to.be.at.least(0.025);
    expect(stages.simulation!.sum).to.be.below(0.025);
    expect(stages.broadcast!.count).to.equal(1);
  });

  it("the API's stopwatch records each submit stage since the previous one", async () => {
    const registry = new Registry();
    const stopwatch = submitStopwatch(gaslessSubmitStageHistogram(registry));
    stopwatch.lap("lookup");
    await new Promise((resolve) => setTimeout(resolve, 20));
    stopwatch.lap("verify");
    const stages = parseStageHistograms(await registry.metrics(), "api_gasless_submit_stage_seconds");
    expect(stages.lookup!.count).to.equal(1);
    expect(stages.verify!.sum).to.be.at.least(0.015);
    expect(stages.lookup!.sum).to.be.below(stages.verify!.sum);
  });

  it("reads quantiles from a scraped histogram as histogram_quantile does, and subtracts an earlier scrape", async () => {
    const registry = new Registry();
    const timings = new RelayStageTimings(registry);
    timings.histogram.observe({ stage: "simulation" }, 0.5);
    const before = parseStageHistograms(await registry.metrics(), "relayer_relay_stage_seconds");
    for (let index = 0; index < 99; index++) timings.histogram.observe({ stage: "simulation" }, 0.003);
    timings.histogram.observe({ stage: "simulation" }, 120);
    const after = parseStageHistograms(await registry.metrics(), "relayer_relay_stage_seconds");
    const window = subtractHistograms(after, before);
    expect(window.simulation!.count).to.equal(100);
    // 99 of 100 in (0.002, 0.005]: the median is interpolated inside it, the p99 is its upper bound.
    expect(histogramQuantile(window.simulation!, 0.5)).to.be.closeTo(0.002 + 0.003 * (50 / 99), 1e-9);
    expect(histogramQuantile(window.simulation!, 0.99)).to.be.closeTo(0.005, 1e-9);
    // Past the last bound (60 s) it says the last bound.
    expect(histogramQuantile(window.simulation!, 1)).to.equal(60);
    const summary = summariseStages(window).simulation!;
    expect(summary.count).to.equal(100);
    expect(summary.meanMs).to.be.closeTo(((99 * 0.003 + 120) / 100) * 1000, 1e-6);
  });

  it("a quantile lies within the bucket that holds the sample's nearest-rank quantile", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.double({ min: 0.0001, max: 50, noNaN: true }), { minLength: 1, maxLength: 200 }), fc.constantFrom(0.5, 0.9, 0.99), async (values, q) => {
        const registry = new Registry();
        const timings = new RelayStageTimings(registry);
        for (const value of values) timings.histogram.observe({ stage: "load" }, value);
        const estimate = histogramQuantile(parseStageHistograms(await registry.metrics(), "relayer_relay_stage_seconds").load!, q)!;
        const sorted = [...values].sort((a, b) => a - b);
        const exact = sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]!;
        const upper = STAGE_BUCKETS.find((bound) => exact <= bound)!;
        const lower = [0, ...STAGE_BUCKETS][STAGE_BUCKETS.indexOf(upper)]!;
        expect(estimate).to.be.at.least(lower - 1e-12).and.at.most(upper + 1e-12);
      }),
      { numRuns: 50 },
    );
  });
});
