import { expect } from "chai";
import fc from "fast-check";
import { RateLimiterRes } from "rate-limiter-flexible";
import { openPostgresPool, type PostgresPool } from "../../sdk/storage/postgresPool";
import { createQuotaLeaseTable, postgresQuotaLeases } from "../../api/rateLimits/postgresQuotaLeases";
import { leasedRateLimiters, leaseSize } from "../../api/rateLimits/quotaLeases";
import type { RateLimiter } from "../../api/rateLimits/rateLimiterFactory";
import { createTestDatabase } from "../fixtures/postgresServer";

/**
 * Quota leasing on a real PostgreSQL: N instances (each its own pool and limiter, as N API processes
 * would have) share one key's per-minute budget L through the lease table.
 */
describe("per-key limits by quota leasing on PostgreSQL", function () {
  this.timeout(180_000);
  const pools: PostgresPool[] = [];
  let run = 0;

  before(async () => {
    const url = await createTestDatabase("quota_leases");
    for (let index = 0; index < 3; index++) pools.push(openPostgresPool(url, { max: 3 }));
    await createQuotaLeaseTable(pools[0]!);
  });

  after(async () => {
    for (const pool of pools) await pool.end();
  });

  /** N limiters of one bucket (a fresh key prefix per run), at the clock `now()`. */
  function instances(count: number, limit: number, now: () => number): RateLimiter[] {
    const keyPrefix = `run${run++}`;
    return pools.slice(0, count).map((pool) => leasedRateLimiters(postgresQuotaLeases(pool), now)({ keyPrefix, points: limit, duration: 60 }));
  }

  async function admitted(limiter: RateLimiter, key: string): Promise<boolean> {
    try {
      await limiter.consume(key, 1);
      return true;
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) return false;
      throw rejection;
    }
  }

  it("the lease is min(ceil(L/10), 20) and at least 1", () => {
    expect([1, 4, 10, 11, 100, 200, 1_000_000].map(leaseSize)).to.deep.equal([1, 1, 1, 2, 10, 20, 20]);
  });

  it("N instances admit at most L requests of a key per window, and refuse none before L − (N−1)×(lease−1) are admitted, whatever the order of requests", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 80 }),
        fc.array(fc.nat(2), { minLength: 1, maxLength: 200 }),
        async (count, limit, order) => {
          const limiters = instances(count, limit, () => 1_800_000_000_000 + 5_000);
          let total = 0;
          let beforeFirstRefusal: number | undefined;
          for (const pick of order) {
            if (await admitted(limiters[pick % count]!, "key")) total++;
            else beforeFirstRefusal ??= total;
          }
          expect(total).to.be.at.most(limit);
          expect(total).to.be.at.most(order.length);
          if (beforeFirstRefusal !== undefined) expect(beforeFirstRefusal).to.be.at.least(limit - (count - 1) * (leaseSize(limit) - 1));
          // One instance alone is exact.
          if (count === 1) expect(total).to.equal(Math.min(limit, order.length));
        },
      ),
      { numRuns: 25 },
    );
  });

  it("concurrent requests on N instances at once admit at most L, and at least L − (N−1)×(lease−1)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 300 }), async (count, limit) => {
        const limiters = instances(count, limit, () => 1_800_000_000_000 + 5_000);
        const requests = limit + count * leaseSize(limit) + 5;
        const answers = await Promise.all(Array.from({ length: requests }, (_, index) => admitted(limiters[index % count]!, "key")));
        const total = answers.filter(Boolean).length;
        expect(total).to.be.at.most(limit);
        expect(total).to.be.at.least(limit - (count - 1) * (leaseSize(limit) - 1));
      }),
      { numRuns: 12 },
    );
  });

  it("a key's budget is whole again in the next window, and its refusal says when that starts", async () => {
    let now = 1_800_000_000_000 + 50_000;
    const [limiter] = instances(1, 3, () => now);
    for (let index = 0; index < 3; index++) expect(await admitted(limiter!, "key")).to.equal(true);
    const refusal = await limiter!.consume("key", 1).then(
      () => undefined,
      (rejection: unknown) => rejection,
    );
    expect(refusal).to.be.instanceOf(RateLimiterRes);
    expect((refusal as RateLimiterRes).msBeforeNext).to.equal(10_000);
    now += 10_000;
    expect(await admitted(limiter!, "key")).to.equal(true);
  });

  it("takes one round trip per lease, not per request", async () => {
    let leases = 0;
    const counted = postgresQuotaLeases(pools[0]!);
    const limiter = leasedRateLimiters({ lease: (...args) => (leases++, counted.lease(...args)) }, () => 1_800_000_000_000)({ keyPrefix: `run${run++}`, points: 1000, duration: 60 });
    for (let index = 0; index < 100; index++) expect(await admitted(limiter, "key")).to.equal(true);
    expect(leases).to.equal(100 / leaseSize(1000));
  });
});
