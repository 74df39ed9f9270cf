import { expect } from "chai";
import { chaosGoals, MAX_STALL_BLOCKS, type ChaosRecords } from "../../scripts/soak/chaosReport";

const deadline = 2_000_000_000;
const records = (overrides: Partial<ChaosRecords> = {}): ChaosRecords => ({
  offered: 2,
  relays: [
    { relayId: "r1", quoteId: "0xa1", status: "confirmed", deadline, finalAtMs: deadline * 1000 - 5_000 },
    { relayId: "r2", quoteId: "0xa2", status: "confirmed", deadline, finalAtMs: deadline * 1000 - 1_000 },
  ],
  unaccepted: [],
  settled: new Map([
    ["0xa1", 1],
    ["0xa2", 1],
  ]),
  calls: 100,
  faults: { "send:drop": 3, "read:429": 4, "node:restart": 1, "node:mempool-lost": 2 },
  worstStallBlocks: 1,
  ...overrides,
});
const goal = (figures: ReturnType<typeof chaosGoals>, prefix: string) => figures.find((entry) => entry.name.startsWith(prefix))!;

describe("chaos soak report: what the chaos run judges", () => {
  it("passes a run with faults on 5-10 % of requests, a restart that lost transactions, every relay settled once and final by its deadline, and short stalls", () => {
    const goals = chaosGoals(records());
    expect(goals.filter((entry) => !entry.pass).map((entry) => entry.name)).to.deep.equal([]);
    // The node's restart is not a faulted request: 7 of 100.
    expect(goal(goals, "faults").detail).to.contain("7 of 100 requests (7.0 %)");
  });

  it("fails too few or too many faults, or a restart that lost nothing", () => {
    expect(goal(chaosGoals(records({ calls: 200 })), "faults").pass).to.equal(false);
    expect(goal(chaosGoals(records({ calls: 50 })), "faults").pass).to.equal(false);
    expect(goal(chaosGoals(records({ faults: { "send:drop": 7, "node:restart": 1, "node:mempool-lost": 0 } })), "faults").pass).to.equal(false);
  });

  it("fails a relay left open, a quote settled twice, a relay final after its deadline, and a signer stalled past the limit", () => {
    const open = records({ relays: [...records().relays.slice(0, 1), { relayId: "r2", quoteId: "0xa2", status: "open", deadline }] });
    expect(goal(chaosGoals(open), "0 lost").pass).to.equal(false);
    expect(goal(chaosGoals(open), "every relay final").pass).to.equal(false);
    expect(goal(chaosGoals(records({ settled: new Map([["0xa1", 1], ["0xa2", 2]]) })), "0 doubled").pass).to.equal(false);
    const late = records({ relays: [...records().relays.slice(0, 1), { relayId: "r2", quoteId: "0xa2", status: "confirmed", deadline, finalAtMs: deadline * 1000 + 1 }] });
    expect(goal(chaosGoals(late), "every relay final").pass).to.equal(false);
    expect(goal(chaosGoals(records({ worstStallBlocks: MAX_STALL_BLOCKS })), "no signer").pass).to.equal(true);
    expect(goal(chaosGoals(records({ worstStallBlocks: MAX_STALL_BLOCKS + 1 })), "no signer").pass).to.equal(false);
  });
});
