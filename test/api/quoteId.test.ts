import { expect } from "chai";
import { randomQuoteId } from "../../api/quote/response/quoteId";

describe("quote ids (api/quote/response/quoteId.ts)", () => {
  it("draws distinct bytes32 ids across many pool refills: 16 zero bytes, then 16 random bytes none of which is zero", () => {
    const ids = Array.from({ length: 2_000 }, () => randomQuoteId());
    expect(new Set(ids).size).to.equal(ids.length);
    for (const id of ids) {
      expect(id).to.match(/^0x0{32}[0-9a-f]{32}$/);
      const tail = id.slice(34).match(/../g)!;
      expect(tail.includes("00"), id).to.equal(false);
    }
  });
});
