import { expect } from "chai";
import { classifySendRefusal, isRetryableSend } from "../../relayer/broadcast/broadcaster";

/** Refusals of eth_sendRawTransaction as nodes word them (lowercased, as rpcErrorText gives them). */
const cases: [string, ReturnType<typeof classifySendRefusal>][] = [
  ["already known", "sent"],
  ["known transaction: 0x5e3c…", "sent"],
  ["nonce too low: address 0x2546…, tx: 1 state: 5", "nonce_too_low"],
  ["nonce too low. expected nonce to be 5 but got 1.", "nonce_too_low"],
  ["replacement transaction underpriced", "underpriced"],
  ["transaction underpriced: tip needed 1, tip permitted 0", "underpriced"],
  ["insufficient funds for gas * price + value: balance 0, tx cost 21000, overshot 21000", "insufficient_funds"],
  ["sender doesn't have enough funds to send tx. the max upfront cost is: 4200 and the sender's balance is: 0.", "insufficient_funds"],
  ["txpool is full", "busy"],
  ["transaction pool is full", "busy"],
  ["max fee per gas less than block base fee: address 0x2546…, maxfeepergas: 1000000000, basefee: 20000000000", "busy"],
  ["transaction maxfeepergas (1000000000) is too low for the next block, which has a basefeepergas of 20000000000", "busy"],
  ["nonce too high. expected nonce to be 34 but got 41. note that transactions can't be queued when automining.", "nonce_gap"],
  ["nonce too high", "nonce_gap"],
  ["intrinsic gas too low", "refused"],
  ["exceeds block gas limit", "refused"],
  ["invalid sender", "refused"],
];

describe("how the relayer reads a node's refusal of a transaction", () => {
  for (const [message, outcome] of cases) {
    it(`"${message.slice(0, 60)}" → ${outcome}`, () => {
      expect(classifySendRefusal(message)).to.equal(outcome);
    });
  }

  it("sends again later only what the node could not take now, never what it refused for good", () => {
    expect(isRetryableSend("transient")).to.equal(true);
    expect(isRetryableSend("busy")).to.equal(true);
    expect(isRetryableSend("nonce_gap")).to.equal(true);
    for (const final of ["sent", "nonce_too_low", "underpriced", "insufficient_funds", "refused"] as const) expect(isRetryableSend(final)).to.equal(false);
  });
});
