import { expect } from "chai";
import fc from "fast-check";
import { relayOwnership } from "../../relayer/queue/relayOwnership";

const config = { relayerId: "relayer-a", leaseSeconds: 30 };
const now = new Date("2026-11-21T12:00:00Z");
const inMs = (ms: number) => new Date(now.getTime() + ms);

describe("whether a relayer may sign for a relay", () => {
  it("a relay claimed by another relayer is theirs, whatever its lease says", () => {
    fc.assert(
      fc.property(fc.integer({ min: -60_000, max: 60_000 }), (offset) => {
        expect(relayOwnership({ claimedBy: "relayer-b", leaseUntil: inMs(offset) }, config, now)).to.equal("theirs");
      }),
    );
  });

  it("our claim is ours while more than a third of the lease is left, and lapsed after (renewals run every third)", () => {
    expect(relayOwnership({ claimedBy: "relayer-a", leaseUntil: inMs(30_000) }, config, now)).to.equal("ours");
    expect(relayOwnership({ claimedBy: "relayer-a", leaseUntil: inMs(10_001) }, config, now)).to.equal("ours");
    expect(relayOwnership({ claimedBy: "relayer-a", leaseUntil: inMs(10_000) }, config, now)).to.equal("lapsed");
    expect(relayOwnership({ claimedBy: "relayer-a", leaseUntil: inMs(-1) }, config, now)).to.equal("lapsed");
    expect(relayOwnership({ claimedBy: undefined, leaseUntil: undefined }, config, now)).to.equal("lapsed");
  });
});
