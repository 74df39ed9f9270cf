import { expect } from "chai";
import fc from "fast-check";
import { quoteRateCeiling, scaleOutCeiling } from "../../scripts/bench/scaleOutCeiling";

/** CPU µs per quote between 1 µs and 100 ms, as doubles. */
const micros = fc.double({ min: 1, max: 100_000, noNaN: true });
const cores = fc.integer({ min: 1, max: 64 });

describe("bench:api's scale-out ceiling (CPU per quote → the rate the cores allow)", () => {
  it("bounds one API by one core over its event loop's CPU per quote, and all processes by the machine's cores", () => {
    // 400 µs of API event loop per quote, 600 µs of all processes together: one core allows 2,500/s, two cores 3,333/s.
    expect(quoteRateCeiling({ apiMainThreadMicros: [400], totalMicros: 600 }, 2)).to.be.closeTo(2_500, 1e-9);
    expect(quoteRateCeiling({ apiMainThreadMicros: [400], totalMicros: 600 }, 1)).to.be.closeTo(1e6 / 600, 1e-9);
    // Two such APIs could answer 5,000/s on their own cores, but the processes' 600 µs per quote fill two cores at 3,333/s.
    expect(quoteRateCeiling({ apiMainThreadMicros: [400, 400], totalMicros: 600 }, 2)).to.be.closeTo(1e6 / 300, 1e-9);
  });

  it("allows two APIs at most 2 × one on two cores only when the rest costs nothing, and 2a/(a+o) when it costs o beside the API's a", () => {
    expect(scaleOutCeiling({ apiMainThreadMicros: [400], totalMicros: 400 }, { apiMainThreadMicros: [400, 400], totalMicros: 400 }, 2).ratio).to.be.closeTo(2, 1e-9);
    // The 1.4 × goal on two cores needs the rest at most 3/7 of the API's CPU per quote: 0.6 a ≥ 1.4 o.
    const atTheGoal = scaleOutCeiling({ apiMainThreadMicros: [700], totalMicros: 1_000 }, { apiMainThreadMicros: [700, 700], totalMicros: 1_000 }, 2);
    expect(atTheGoal.ratio).to.be.closeTo(1.4, 1e-9);
    fc.assert(
      fc.property(micros, micros, (api, rest) => {
        const ratio = scaleOutCeiling({ apiMainThreadMicros: [api], totalMicros: api + rest }, { apiMainThreadMicros: [api, api], totalMicros: api + rest }, 2).ratio;
        expect(ratio).to.be.closeTo(Math.min(2, (2 * api) / Math.min(api + rest, 2 * api)), 1e-9);
      }),
    );
  });

  it("never exceeds either bound, never falls with more cores, and reaches the APIs' own bound with a core for every process", () => {
    fc.assert(
      fc.property(fc.array(micros, { minLength: 1, maxLength: 4 }), micros, cores, (apis, rest, machine) => {
        const total = Math.max(...apis) + rest;
        const cpu = { apiMainThreadMicros: apis, totalMicros: total };
        const ceiling = quoteRateCeiling(cpu, machine);
        const perApi = apis.reduce((sum, api) => sum + 1e6 / api, 0);
        expect(ceiling).to.be.at.most(perApi * (1 + 1e-12));
        expect(ceiling).to.be.at.most(((machine * 1e6) / total) * (1 + 1e-12));
        expect(ceiling === perApi || ceiling === (machine * 1e6) / total).to.equal(true);
        expect(quoteRateCeiling(cpu, machine + 1)).to.be.at.least(ceiling);
        expect(quoteRateCeiling(cpu, Number.POSITIVE_INFINITY)).to.equal(perApi);
      }),
    );
  });

  it("refuses a window without an API and a machine without cores", () => {
    expect(() => quoteRateCeiling({ apiMainThreadMicros: [], totalMicros: 100 }, 2)).to.throw(/at least one API/);
    expect(() => quoteRateCeiling({ apiMainThreadMicros: [100], totalMicros: 100 }, 0)).to.throw(/cores must be positive/);
  });
});
