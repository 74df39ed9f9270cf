import { expect } from "chai";
import fc from "fast-check";
import { median, roundOrder, roundRatios } from "../../scripts/bench/roundRatios";

describe("bench rounds: ratios of neighbours in time", () => {
  it("summarises round-by-round ratios by their median and range, not by a ratio of medians", () => {
    // PostgreSQL 2,000 then 1,000 req/s, SQLite 1,000 then 2,000 in the same rounds: each round 2 × or 0.5 ×.
    const ratios = roundRatios([2_000, 1_000, 1_500], [1_000, 2_000, 1_500]);
    expect(ratios.rounds).to.deep.equal([2, 0.5, 1]);
    expect(ratios).to.include({ median: 1, lowest: 0.5, highest: 2 });
    expect(median([4, 1, 3, 2])).to.equal(2.5);
    expect(() => roundRatios([1], [1, 2])).to.throw(/1 numerators against 2 denominators/);
    expect(() => median([])).to.throw(/no values/);
  });

  it("keeps the median within the rounds' range, and a ratio unchanged when both sides scale together", () => {
    const rate = fc.double({ min: 1, max: 1e5, noNaN: true });
    fc.assert(
      fc.property(fc.array(fc.tuple(rate, rate, fc.double({ min: 0.1, max: 10, noNaN: true })), { minLength: 1, maxLength: 9 }), (rounds) => {
        const plain = roundRatios(
          rounds.map(([a]) => a),
          rounds.map(([, b]) => b),
        );
        // A machine that slows both sides of a round alike leaves that round's ratio as it was.
        const drifted = roundRatios(
          rounds.map(([a, , drift]) => a * drift),
          rounds.map(([, b, drift]) => b * drift),
        );
        expect(plain.median).to.be.within(plain.lowest, plain.highest);
        drifted.rounds.forEach((ratio, index) => expect(ratio).to.be.closeTo(plain.rounds[index]!, 1e-9 * plain.rounds[index]!));
      }),
    );
  });

  it("alternates the order of the sides from one round to the next", () => {
    expect([0, 1, 2, 3].map((round) => roundOrder(2, round))).to.deep.equal([
      [0, 1],
      [1, 0],
      [0, 1],
      [1, 0],
    ]);
    expect(roundOrder(3, 1)).to.deep.equal([2, 1, 0]);
  });
});
