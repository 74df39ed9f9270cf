import { expect } from "chai";
import fc from "fast-check";
import { NonceTracker } from "../../relayer/broadcast/nonceTracker";

describe("relayer nonce tracking", () => {
  it("starts above both the chain's pending count and the highest nonce we ever signed", () => {
    expect(new NonceTracker(5, undefined).next).to.equal(5);
    expect(new NonceTracker(5, 9).next).to.equal(10);
    expect(new NonceTracker(12, 9).next).to.equal(12);
  });

  it("never hands out a nonce twice, and reports as gaps exactly the nonces released unmined", () => {
    fc.assert(
      fc.property(
        fc.nat({ max: 50 }),
        fc.array(fc.oneof(fc.constant<"allocate">("allocate"), fc.nat({ max: 80 }).map((n) => ({ release: n })), fc.nat({ max: 120 }).map((n) => ({ resync: n }))), {
          maxLength: 60,
        }),
        (start, operations) => {
          const tracker = new NonceTracker(start, undefined);
          const handedOut = new Set<number>();
          const released = new Set<number>();
          for (const operation of operations) {
            if (operation === "allocate") {
              const nonce = tracker.allocate();
              expect(handedOut.has(nonce), `nonce ${nonce} handed out twice`).to.equal(false);
              expect(nonce >= start).to.equal(true);
              handedOut.add(nonce);
            } else if ("release" in operation) {
              if (handedOut.has(operation.release)) {
                tracker.release(operation.release);
                released.add(operation.release);
              }
            } else {
              tracker.resync(operation.resync);
              expect(tracker.next >= operation.resync).to.equal(true);
            }
          }
          const held = [...handedOut].filter((nonce) => !released.has(nonce));
          expect(tracker.inFlight).to.equal(held.length);
          // Below the counter, anything not held is a hole someone must fill (skipped by resync, or released).
          for (const gap of tracker.gaps(start)) expect(held.includes(gap)).to.equal(false);
          for (const nonce of held) expect(tracker.gaps(start)).not.to.include(nonce);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("hands a nonce given back (never recorded nor sent) out again when it was the last one, and otherwise leaves a gap to fill", () => {
    const tracker = new NonceTracker(4, undefined);
    const first = tracker.allocate();
    const second = tracker.allocate();
    tracker.giveBack(second);
    expect(tracker.allocate()).to.equal(second);
    expect(tracker.gaps(4)).to.deep.equal([]);
    // Not the last one handed out: it cannot be reused safely, so it becomes a gap (filled by a self-transfer).
    tracker.giveBack(first);
    expect(tracker.next).to.equal(6);
    expect(tracker.gaps(4)).to.deep.equal([first]);
    expect(tracker.inFlight).to.equal(1);
  });

  it("settling at the chain's mined count lets go of held nonces below it only, freeing their places", () => {
    const tracker = new NonceTracker(0, undefined);
    for (let index = 0; index < 5; index++) tracker.allocate();
    tracker.release(1);
    expect(tracker.settle(3)).to.equal(2);
    expect(tracker.inFlight).to.equal(2);
    expect(tracker.gaps(3)).to.deep.equal([]);
    expect(tracker.settle(3)).to.equal(0);
  });

  it("holding a reloaded nonce moves the counter past it", () => {
    const tracker = new NonceTracker(3, undefined);
    tracker.hold(7);
    expect(tracker.next).to.equal(8);
    expect(tracker.gaps(3)).to.deep.equal([3, 4, 5, 6]);
    expect(tracker.gaps(8)).to.deep.equal([]);
  });

  it("remembers the latest transaction signed at a held nonce only, and forgets it when the nonce is let go", () => {
    const tracker = new NonceTracker(0, undefined);
    const [a, b, c] = [tracker.allocate(), tracker.allocate(), tracker.allocate()];
    tracker.signed(a, "0xaa");
    tracker.signed(a, "0xab");
    tracker.signed(b, "0xbb");
    tracker.signed(c, "0xcc");
    expect(tracker.signedAt(a)).to.equal("0xab");
    expect(tracker.holds(a)).to.equal(true);
    tracker.release(b);
    expect(tracker.signedAt(b)).to.equal(undefined);
    expect(tracker.holds(b)).to.equal(false);
    tracker.giveBack(c);
    expect(tracker.signedAt(c)).to.equal(undefined);
    tracker.settle(1);
    expect(tracker.signedAt(a)).to.equal(undefined);
    // Not held: nothing is remembered for it.
    tracker.signed(7, "0x77");
    expect(tracker.signedAt(7)).to.equal(undefined);
  });
});
