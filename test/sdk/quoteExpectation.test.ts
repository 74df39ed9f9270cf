import { expect } from "chai";
import fc from "fast-check";
import { API_DEFAULT_SLIPPAGE_BPS, expectationOfRequest } from "../../sdk/client/quoteExpectation";

const TAKER = "0x00000000000000000000000000000000000000aa";
const base = { sellToken: "USDC", buyToken: "WETH", taker: TAKER } as const;

describe("the quote check's expectation of a request (sdk/client/quoteExpectation.ts)", () => {
  it("bounds an exact-output quote's signed maximum with the API's default slippage (100 bps) when the request gives none", () => {
    expect(API_DEFAULT_SLIPPAGE_BPS).to.equal(100);
    expect(expectationOfRequest({ ...base, buyAmount: 10n ** 16n }, { chainId: 4663 }).slippageBps).to.equal(100);
  });

  it("keeps the request's own slippage, and adds none to an exact-input request", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000 }), fc.boolean(), (slippageBps, exactOutput) => {
        const amount = exactOutput ? { buyAmount: 1n } : { sellAmount: 1n };
        expect(expectationOfRequest({ ...base, ...amount, slippageBps }, { chainId: 4663 }).slippageBps).to.equal(slippageBps);
      }),
    );
    expect(expectationOfRequest({ ...base, sellAmount: 1n }, { chainId: 4663 }).slippageBps).to.equal(undefined);
  });
});
