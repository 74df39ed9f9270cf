import { expect } from "chai";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { randomUUID } from "node:crypto";
import { gaslessReadyFixture, otherIntegratorKey, startGaslessStack, type GaslessStack } from "../fixtures/gaslessStack";
import { createApiKey, viewProfile } from "../fixtures/onboardingApi";

/**
 * Audit finding L-2: every GET /gasless/status read costs the relayer a database read, so reads take
 * a per-key bucket, `status_rate_limit_per_minute` (STATUS_RATE_LIMIT_MULTIPLIER × the key's swap
 * limit, 10 × by default), before anything reaches the relayer.
 */
describe("GET /gasless/status: the per-key status bucket (L-2)", function () {
  this.timeout(60_000);
  let stack: GaslessStack;
  beforeEach(async () => {
    stack = await startGaslessStack(await loadFixture(gaslessReadyFixture), { api: { statusRateLimitMultiplier: 10 } });
  });
  afterEach(() => stack.close());

  it("shows status_rate_limit_per_minute (10 × the swap limit) in the key response and in /integrators/me", async () => {
    const { api } = stack;
    const profile = await viewProfile(api, api.owner);
    const [key] = profile.body.integrators[0].api_keys;
    expect(key.swap_rate_limit_per_minute).to.equal(api.config.defaultSwapRateLimitPerMinute);
    expect(key.status_rate_limit_per_minute).to.equal(10 * api.config.defaultSwapRateLimitPerMinute);
    const created = await createApiKey(api, api.owner, api.integratorId, "second key");
    expect(created.status).to.equal(201);
    expect(created.body.status_rate_limit_per_minute).to.equal(10 * created.body.swap_rate_limit_per_minute);
  });

  it("answers reads past status_rate_limit_per_minute with 429 and Retry-After, without asking the relayer; other keys keep their own bucket", async () => {
    const allowance = 10 * stack.api.config.defaultSwapRateLimitPerMinute;
    const unknownRelay = randomUUID();
    const answers: number[] = [];
    for (let index = 0; index < allowance; index++) {
      const response = await stack.status(unknownRelay);
      answers.push(response.status);
      if (index === 0) expect(response.headers.get("x-ratelimit-status-remaining")).to.equal(String(allowance - 1));
    }
    // Each of these reached the relayer, which knows no such relay.
    expect(new Set(answers)).to.deep.equal(new Set([404]));
    const limited = await stack.status(unknownRelay);
    expect(limited.status).to.equal(429);
    expect(limited.body).to.deep.include({ code: "rate_limited", bucket: "gasless:status" });
    expect(Number(limited.headers.get("retry-after"))).to.be.within(1, 60);

    const other = await stack.status(unknownRelay, await otherIntegratorKey(stack.api.url));
    expect(other.status).to.equal(404);
  });

  it("POST /gasless/cancel is rate-limited like status reads: the same allowance in a bucket of its own, 429 past it before anything reaches the relayer", async () => {
    const allowance = 10 * stack.api.config.defaultSwapRateLimitPerMinute;
    const unknownRelay = randomUUID();
    const cancel = () => stack.api.request("POST", `/gasless/cancel/${unknownRelay}`, { headers: { authorization: `Bearer ${stack.api.apiKey.secret}` } });
    const answers: number[] = [];
    for (let index = 0; index < allowance; index++) {
      const response = await cancel();
      answers.push(response.status);
      if (index === 0) expect(response.headers.get("x-ratelimit-cancel-remaining")).to.equal(String(allowance - 1));
    }
    expect(new Set(answers)).to.deep.equal(new Set([404]));
    const limited = await cancel();
    expect(limited.status).to.equal(429);
    expect(limited.body).to.deep.include({ code: "rate_limited", bucket: "gasless:cancel" });
    expect(Number(limited.headers.get("retry-after"))).to.be.within(1, 60);
    // Status reads keep their own count.
    expect((await stack.status(unknownRelay)).status).to.equal(404);
  });
});
