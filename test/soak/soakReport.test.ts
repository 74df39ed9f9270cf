import { expect } from "chai";
import fc from "fast-check";
import { OUTAGE_GRACE_MS, outageDuring, planFaults, type FaultRecord } from "../../scripts/soak/faultSchedule";
import { soakChart } from "../../scripts/soak/soakChart";
import { memoryTrends, percentile, soakFigures, tallyRelays, windowBounds, type MemorySample, type RequestSample, type SoakRecords } from "../../scripts/soak/soakReport";
import { loadSoakSettings } from "../../scripts/soak/soakSettings";

const quoteA = `0x${"aa".repeat(32)}`;
const quoteB = `0x${"bb".repeat(32)}`;
const quoteC = `0x${"cc".repeat(32)}`;

const pgRestart: FaultRecord = { kind: "postgres-restart", label: "PostgreSQL restart", startMs: 100_000, endMs: 106_000 };
const burst: FaultRecord = { kind: "burst", label: "5× load", startMs: 200_000, endMs: 260_000 };

function records(overrides: Partial<SoakRecords>): SoakRecords {
  return {
    durationMs: 600_000,
    windowMs: 50_000,
    warmupMs: 100_000,
    requests: [],
    memory: [],
    lives: [],
    faults: [pgRestart, burst],
    relays: [{ relayId: "r1", quoteId: quoteA, status: "confirmed" }],
    unaccepted: [],
    settled: new Map([[quoteA, 1]]),
    ...overrides,
  };
}

const sample = (atMs: number, status: number, ms = 10, code?: string): RequestSample => ({ atMs, ms, kind: "quote", instance: "api-1", status, ...(code === undefined ? {} : { code }) });

describe("soak report: what the soak counts and judges", () => {
  it("scales the hour's windows, warm-up and sampling to SOAK_MINUTES, and refuses a non-positive length", () => {
    const hour = loadSoakSettings({});
    expect([hour.minutes, hour.windowMs, hour.warmupMs]).to.deep.equal([60, 300_000, 600_000]);
    const ten = loadSoakSettings({ SOAK_MINUTES: "10" });
    expect([ten.windowMs, ten.warmupMs, ten.durationMs]).to.deep.equal([50_000, 100_000, 600_000]);
    expect(() => loadSoakSettings({ SOAK_MINUTES: "0" })).to.throw(/invalid SOAK_MINUTES/);
    expect(() => loadSoakSettings({ SOAK_RATE: "fast" })).to.throw(/invalid SOAK_RATE/);
  });

  it("plans every fault once, in order, one at a time, inside the run and clear of its first and last window", () => {
    fc.assert(
      fc.property(fc.double({ min: 2, max: 600, noNaN: true }), (minutes) => {
        const settings = loadSoakSettings({ SOAK_MINUTES: String(minutes) });
        const plan = planFaults(settings);
        expect(plan.map((fault) => fault.kind)).to.deep.equal(["relayer-kill", "api-kill", "postgres-restart", "rpc-outage", "burst"]);
        expect(plan.find((fault) => fault.kind === "rpc-outage")!.pauseMs).to.equal(10_000);
        for (const [index, fault] of plan.entries()) {
          expect(fault.atMs).to.be.at.least(settings.durationMs * 0.15 - 1);
          const next = plan[index + 1];
          // The pause plus a restart's own time (a few seconds) fit before the next fault.
          if (next !== undefined) expect(fault.atMs + fault.pauseMs).to.be.below(next.atMs);
        }
        const last = plan[plan.length - 1]!;
        expect(last.atMs + last.pauseMs).to.be.at.most(Math.max(settings.durationMs * 0.8, settings.durationMs * 0.7 + 10_000));
      }),
      { numRuns: 200 },
    );
  });

  it("takes percentiles by nearest rank", () => {
    expect(percentile([], 99)).to.equal(0);
    expect(percentile([5], 50)).to.equal(5);
    const hundred = Array.from({ length: 100 }, (_, index) => index + 1);
    expect([percentile(hundred, 50), percentile(hundred, 99), percentile(hundred, 100)]).to.deep.equal([50, 99, 100]);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 10_000 }), { minLength: 1 }), fc.integer({ min: 1, max: 100 }), (values, p) => {
        const sorted = [...values].sort((a, b) => a - b);
        const value = percentile(sorted, p);
        expect(sorted.filter((entry) => entry <= value).length / sorted.length).to.be.at.least(p / 100);
      }),
    );
  });

  it("counts a relay lost when it never became final, or is confirmed without a SwapSettled; doubled when its quote settled twice", () => {
    const tally = tallyRelays(
      [
        { relayId: "ok", quoteId: quoteA, status: "confirmed" },
        { relayId: "twice", quoteId: quoteB, status: "confirmed" },
        { relayId: "open", quoteId: `0x${"01".repeat(32)}`, status: "open (submitted)" },
        { relayId: "phantom", quoteId: `0x${"02".repeat(32)}`, status: "confirmed" },
        { relayId: "expired-but-filled", quoteId: `0x${"03".repeat(32)}`, status: "expired" },
        { relayId: "expired", quoteId: `0x${"04".repeat(32)}`, status: "expired" },
      ],
      [quoteC, `0x${"05".repeat(32)}`],
      new Map([
        [quoteA, 1],
        [quoteB, 2],
        [`0x${"03".repeat(32)}`, 1],
        [quoteC, 1],
      ]),
    );
    expect(tally.accepted).to.equal(6);
    expect(tally.lost).to.deep.equal(["open", "phantom"]);
    expect(tally.doubled).to.deep.equal([quoteB]);
    expect(tally.settledDespiteStatus).to.deep.equal(["expired-but-filled"]);
    expect(tally.settledUnaccepted).to.deep.equal([quoteC]);
    expect(tally.byStatus).to.deep.equal({ confirmed: 3, "open (submitted)": 1, expired: 2 });
    expect(tally.settlements).to.equal(5);
  });

  it("excuses a 503 or an unanswered request only while an outage lasts (plus its grace), never a 500, and never during a burst", () => {
    expect(outageDuring([pgRestart], 90_000, 99_999)).to.equal(undefined);
    expect(outageDuring([pgRestart], 95_000, 100_001)).to.equal(pgRestart);
    expect(outageDuring([pgRestart], 106_000 + OUTAGE_GRACE_MS, 106_000 + OUTAGE_GRACE_MS + 5)).to.equal(pgRestart);
    expect(outageDuring([pgRestart], 106_001 + OUTAGE_GRACE_MS, 107_000 + OUTAGE_GRACE_MS)).to.equal(undefined);
    expect(outageDuring([burst], 210_000, 210_010)).to.equal(undefined);
    // In a short run an outage starts within the previous one's grace: a request is the outage's it met.
    const apiKill: FaultRecord = { kind: "api-kill", label: "SIGKILL api-1", startMs: 90_000, endMs: 98_000 };
    expect(outageDuring([apiKill, pgRestart], 101_000, 101_010)).to.equal(pgRestart);
    expect(outageDuring([apiKill, pgRestart], 99_000, 99_010)).to.equal(apiKill);

    const figures = soakFigures(
      records({
        requests: [
          sample(1_000, 200),
          sample(101_000, 503, 5, "database_unavailable"),
          sample(102_000, 0, 5, "ECONNREFUSED"),
          sample(103_000, 500, 5, "internal_error"),
          sample(150_000, 503, 5, "quote_unavailable"),
          sample(210_000, 503, 5, "chain_unavailable"),
          sample(300_000, 0, 30_000, "TimeoutError"),
          sample(400_000, 304),
        ],
      }),
    );
    expect(figures.requests.byStatus).to.deep.equal({ "200": 1, "503": 3, "no answer": 2, "500": 1, "304": 1 });
    expect(figures.requests.codes).to.deep.equal({ quote: { "503 database_unavailable": 1, "no answer ECONNREFUSED": 1, "500 internal_error": 1, "503 quote_unavailable": 1, "503 chain_unavailable": 1, "no answer TimeoutError": 1 } });
    expect(figures.requests.declared).to.deep.equal({ "PostgreSQL restart": { "503 database_unavailable": 1, "no answer ECONNREFUSED": 1 } });
    expect(figures.requests.undeclared.map((error) => [error.atMs, error.status])).to.deep.equal([
      [103_000, 500],
      [150_000, 503],
      [210_000, 503],
      [300_000, 0],
    ]);
    const goal = figures.goals.find((entry) => entry.name === "0 undeclared 5xx")!;
    expect(goal.pass).to.equal(false);
    expect(soakFigures(records({ requests: [sample(1_000, 200), sample(101_000, 503)] })).goals.find((entry) => entry.name === "0 undeclared 5xx")!.pass).to.equal(true);
  });

  it("judges memory per process instance after its warm-up: a restarted process starts a warm-up of its own; a leak fails, infrastructure is shown but not judged", () => {
    const bounds = windowBounds(600_000, 50_000);
    expect(bounds).to.have.length(12);
    const memory: MemorySample[] = [];
    for (let atMs = 0; atMs < 600_000; atMs += 5_000) {
      memory.push({ atMs, process: "api-2", pid: 2, rssKiB: 200_000 + (atMs < 100_000 ? atMs : 0) });
      // The killed api-1 (pid 1) grows until it dies at 150 s; its successor (pid 11) is flat.
      if (atMs < 150_000) memory.push({ atMs, process: "api-1", pid: 1, rssKiB: 150_000 + atMs });
      if (atMs >= 160_000) memory.push({ atMs, process: "api-1", pid: 11, rssKiB: atMs < 260_000 ? 120_000 + atMs : 190_000 });
      memory.push({ atMs, process: "relayer-1", pid: 3, rssKiB: 100_000 + atMs / 2 });
      memory.push({ atMs, process: "chain", pid: 4, rssKiB: 500_000 + atMs * 2 });
    }
    const lives = [
      { process: "api-2", pid: 2, startedMs: -20_000, product: true },
      { process: "api-1", pid: 1, startedMs: -25_000, product: true },
      { process: "api-1", pid: 11, startedMs: 160_000, product: true },
      { process: "relayer-1", pid: 3, startedMs: -30_000, product: true },
      { process: "chain", pid: 4, startedMs: -60_000, product: false },
    ];
    const trends = memoryTrends(memory, lives, bounds, 100_000);
    const byPid = new Map(trends.map((trend) => [trend.pid, trend]));
    expect(byPid.get(2)!.growth).to.equal(0);
    expect(byPid.get(11)!.growth).to.equal(0);
    // pid 1 lived only one window after its warm-up: not judged.
    expect(byPid.has(1)).to.equal(false);
    expect(byPid.get(3)!.growth).to.be.greaterThan(0.1);
    // Restarted at 160 s, it is judged from the age the first instances were first judged at (100 s of
    // load after a head start of 30 s): its climb until 290 s is warm-up; a climb after it is not.
    const restarted = (grows: (atMs: number) => number) => {
      const samples: MemorySample[] = [];
      for (let atMs = 0; atMs < 600_000; atMs += 5_000) {
        samples.push({ atMs, process: "api-2", pid: 2, rssKiB: 200_000 });
        if (atMs >= 160_000) samples.push({ atMs, process: "api-1", pid: 11, rssKiB: 150_000 + grows(atMs) });
      }
      return memoryTrends(samples, lives, bounds, 100_000).find((trend) => trend.pid === 11)!;
    };
    expect(restarted((atMs) => Math.min(atMs, 285_000) - 160_000).growth).to.equal(0);
    expect(restarted((atMs) => Math.min(atMs, 295_000) - 160_000).growth).to.be.greaterThan(0);
    expect(restarted((atMs) => atMs - 160_000).growth).to.be.greaterThan(0.1);
    const figures = soakFigures(records({ memory, lives }));
    const goal = figures.goals.find((entry) => entry.name.startsWith("memory flat"))!;
    expect(goal.pass).to.equal(false);
    expect(goal.detail).to.contain("relayer-1").and.not.contain("chain");
    const withoutLeak = soakFigures(records({ memory: memory.filter((entry) => entry.process !== "relayer-1"), lives }));
    expect(withoutLeak.goals.find((entry) => entry.name.startsWith("memory flat"))!.pass).to.equal(true);
    expect(withoutLeak.windows[11]!.memoryMiB.chain).to.be.greaterThan(withoutLeak.windows[0]!.memoryMiB.chain!);
  });

  it("compares the last window's p99 with the first's, and fails a soak with no accepted relay", () => {
    const requests = (lastMs: number) => [
      ...Array.from({ length: 100 }, (_, index) => sample(index * 100, 200, 100)),
      ...Array.from({ length: 100 }, (_, index) => sample(590_000 + index * 10, 200, lastMs)),
    ];
    const within = soakFigures(records({ requests: requests(150) }));
    expect(within.goals.find((goal) => goal.name.startsWith("p99"))!).to.include({ pass: true });
    expect(within.windows[0]!.p99Ms).to.equal(100);
    expect(within.windows[11]!.p99Ms).to.equal(150);
    expect(within.requests.latencyByKind).to.deep.equal({ quote: { p50Ms: 100, p99Ms: 150 } });
    expect(soakFigures(records({ requests: requests(151) })).goals.find((goal) => goal.name.startsWith("p99"))!.pass).to.equal(false);
    expect(soakFigures(records({ relays: [], settled: new Map() })).goals[0]!.pass).to.equal(false);
  });

  it("draws latency, throughput and memory as an SVG with every fault shaded and named", () => {
    const svg = soakChart({
      title: "soak <test>",
      durationMs: 600_000,
      bucketMs: 10_000,
      requests: Array.from({ length: 600 }, (_, index) => sample(index * 1000, index === 150 ? 500 : 200, 5 + (index % 7))),
      memory: [
        { atMs: 0, process: "api-1", pid: 1, rssKiB: 150_000 },
        { atMs: 300_000, process: "api-1", pid: 1, rssKiB: 160_000 },
        // Restarted: a new line, not one drawn across the time it was down.
        { atMs: 400_000, process: "api-1", pid: 2, rssKiB: 120_000 },
        { atMs: 500_000, process: "api-1", pid: 2, rssKiB: 130_000 },
        { atMs: 0, process: "postgres", pid: 9, rssKiB: 90_000 },
      ],
      faults: [pgRestart, burst],
    });
    expect(svg.startsWith("<svg")).to.equal(true);
    expect(svg.trimEnd().endsWith("</svg>")).to.equal(true);
    expect(svg).to.contain("soak &lt;test&gt;").and.contain("PostgreSQL restart").and.contain("5× load");
    expect(svg.match(/<path /g)).to.have.length(2 + 2 + 2);
    const api1 = /<path d="([^"]+)" fill="none" stroke="#1f77b4" stroke-width="1.5"\/>\n<line[^>]*\/>\n<text[^>]*>api-1</.exec(svg)![1]!;
    expect(api1.match(/M/g)).to.have.length(2);
    // Two shaded bands in each of the three panels.
    expect(svg.match(/opacity="0.6"/g)).to.have.length(6);
    expect(svg).to.not.contain("NaN");
  });
});
