import { expect } from "chai";
import fc from "fast-check";
import { endpointScore, rankEndpoints, SWITCH_MARGIN, type EndpointHealth } from "../../sdk/rpc/endpointRanking";

const health = fc.record({
  head: fc.option(fc.bigInt({ min: 0n, max: 1_000n }), { nil: undefined }),
  answering: fc.boolean(),
  latencyMs: fc.integer({ min: 0, max: 5_000 }),
  errorRate: fc.double({ min: 0, max: 1, noNaN: true }),
  wrongChain: fc.boolean(),
}) as fc.Arbitrary<EndpointHealth>;

const healthy = (head: bigint, latencyMs = 10, errorRate = 0): EndpointHealth => ({ head, answering: true, latencyMs, errorRate, wrongChain: false });

/** The read endpoints' ranking (RPC_URLS): which nodes are set aside, and which one reads go to. */
describe("read endpoint ranking", () => {
  it("sets aside every endpoint more than maxLag blocks behind the highest answering head, or silent, or on another chain, and keeps the others", () => {
    fc.assert(
      fc.property(fc.array(health, { minLength: 1, maxLength: 6 }), fc.integer({ min: 0, max: 10 }), (endpoints, maxLag) => {
        const ranking = rankEndpoints(endpoints, maxLag, undefined);
        const heads = endpoints.filter((entry) => entry.answering && !entry.wrongChain && entry.head !== undefined).map((entry) => entry.head!);
        const tip = heads.reduce<bigint | undefined>((max, head) => (max === undefined || head > max ? head : max), undefined);
        endpoints.forEach((entry, index) => {
          const expected = entry.answering && !entry.wrongChain && entry.head !== undefined && tip! - entry.head <= BigInt(maxLag);
          expect(ranking.usable[index], `endpoint ${index}`).to.equal(expected);
        });
      }),
    );
  });

  it("sends reads to a usable endpoint whenever there is one, never to one on another chain, and tries each usable endpoint once", () => {
    fc.assert(
      fc.property(fc.array(health, { minLength: 1, maxLength: 6 }), fc.integer({ min: 0, max: 10 }), fc.option(fc.nat(5), { nil: undefined }), (endpoints, maxLag, current) => {
        const ranking = rankEndpoints(endpoints, maxLag, current !== undefined && current < endpoints.length ? current : undefined);
        const usable = endpoints.map((_, index) => index).filter((index) => ranking.usable[index]);
        if (usable.length > 0) {
          expect(ranking.usable[ranking.selected!]).to.equal(true);
          expect([...ranking.order].sort()).to.deep.equal([...usable].sort());
        }
        for (const index of ranking.order) expect(endpoints[index]!.wrongChain).to.equal(false);
        expect(new Set(ranking.order).size).to.equal(ranking.order.length);
        expect(ranking.selected).to.equal(ranking.order[0]);
      }),
    );
  });

  it("keeps the current endpoint unless another scores below SWITCH_MARGIN of it, so jitter does not make reads hop between nodes", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000 }), fc.integer({ min: 1, max: 1_000 }), (currentMs, otherMs) => {
        const ranking = rankEndpoints([healthy(100n, currentMs), healthy(100n, otherMs)], 3, 0);
        const switches = otherMs < SWITCH_MARGIN * currentMs;
        expect(ranking.selected).to.equal(switches ? 1 : 0);
      }),
    );
  });

  it("ranks by latency and by unanswered requests: a fast node that fails often loses to a slower one that answers", () => {
    const flaky = healthy(100n, 5, 0.5);
    const steady = healthy(100n, 40, 0);
    expect(endpointScore(flaky)).to.be.greaterThan(endpointScore(steady));
    expect(rankEndpoints([flaky, steady], 3, undefined).selected).to.equal(1);
  });

  it("with maxLag 3, a node 3 blocks behind stays in rotation and one 4 behind is set aside; with none answering it still tries them all", () => {
    const ranking = rankEndpoints([healthy(100n), healthy(97n), healthy(96n)], 3, undefined);
    expect(ranking.usable).to.deep.equal([true, true, false]);
    expect(ranking.lag).to.deep.equal([0n, 3n, 4n]);
    const silent = rankEndpoints([{ ...healthy(100n), answering: false }, { ...healthy(100n), answering: false }], 3, undefined);
    expect(silent.usable).to.deep.equal([false, false]);
    expect(silent.order).to.deep.equal([0, 1]);
  });
});
