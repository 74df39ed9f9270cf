import { expect } from "chai";
import { createServer, type AddressInfo } from "node:net";
import { loadApiConfig } from "../../api/config";
import type { Store } from "../../api/store/store";
import { newWallet, startOnboardingApi, type OnboardingApi } from "../fixtures/onboardingApi";

/** GET /ready and /metrics, and the onboarding limits, on an in-process API (SQLite, limits in memory). */
describe("operator endpoints and onboarding limits", () => {
  let api: OnboardingApi;
  let databaseDown = false;
  const pingable = (store: Store): Store => ({
    ...store,
    ping: async () => {
      if (databaseDown) throw new Error("database is gone");
      await store.ping();
    },
  });
  beforeEach(async () => {
    databaseDown = false;
    api = await startOnboardingApi({ onboardingRateLimitPerMinute: 6, onboardingWalletRateLimitPerMinute: 3 }, [], pingable);
  });
  afterEach(() => api.close());

  it("GET /ready answers 200 while the database and the chain answer, and 503 not_ready naming the failing check", async () => {
    const ready = await api.request("GET", "/ready");
    expect([ready.status, ready.body]).to.deep.equal([200, { status: "ready", checks: { database: "ok", chain: "ok" } }]);
    databaseDown = true;
    const down = await api.request("GET", "/ready");
    expect(down.status).to.equal(503);
    expect(down.body).to.deep.include({ code: "not_ready", checks: { database: "database is gone", chain: "ok" } });
  });

  it("GET /ready with gasless configured reports the relayer: quotes stay ready (200), gasless unavailable naming the relayer's URL", async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const closed = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const base = loadApiConfig({ RELAYER_URL: closed, RELAYER_INTERNAL_TOKEN: "a-long-shared-secret-0123", RELAYER_FEE_RECIPIENT: "0x90F79bf6EB2c4f870365E785982E1f101E93b906" });
    const gaslessApi = await startOnboardingApi({ gasless: base.gasless });
    try {
      const ready = await gaslessApi.request("GET", "/ready");
      expect(ready.status).to.equal(200);
      expect(ready.body).to.deep.include({ status: "ready", gasless: "unavailable" });
      expect(ready.body.checks).to.include({ database: "ok", chain: "ok" });
      expect(ready.body.checks.relayer).to.include(closed).and.include("ECONNREFUSED");
    } finally {
      await gaslessApi.close();
    }
  });

  it("GET /metrics, on the metrics port only, exports request durations by route pattern, rejections by code and rate-limit rejections by bucket", async () => {
    const wallet = newWallet().address;
    for (let index = 0; index < 4; index++) await api.post("/integrators/nonce", { wallet, action: "view_integrator_profile" });
    await api.request("GET", "/no-such-route");
    const publicPort = await api.request("GET", "/metrics");
    expect([publicPort.status, publicPort.body.code]).to.deep.equal([404, "not_found"]);
    const text = await (await fetch(`${api.metricsUrl}/metrics`)).text();
    expect(text).to.match(/api_http_request_duration_seconds_count\{method="POST",route="\/integrators\/nonce",status="200"\} 3/);
    expect(text).to.match(/api_http_request_duration_seconds_count\{method="POST",route="\/integrators\/nonce",status="429"\} 1/);
    expect(text).to.match(/api_rejections_total\{code="not_found"\} 2/);
    expect(text).to.match(/api_rate_limit_rejections_total\{bucket="onboarding_wallet"\} 1/);
    expect(text).to.not.contain(wallet.toLowerCase());
  });

  it("limits nonce requests per wallet, and every onboarding endpoint per client IP, with 429 rate_limited naming the bucket", async () => {
    const [first, second] = [newWallet().address, newWallet().address];
    const statuses = [];
    for (let index = 0; index < 4; index++) statuses.push((await api.post("/integrators/nonce", { wallet: first, action: "view_integrator_profile" })).status);
    expect(statuses).to.deep.equal([200, 200, 200, 429]);
    const perWallet = await api.post("/integrators/nonce", { wallet: first, action: "view_integrator_profile" });
    expect(perWallet.body).to.deep.include({ code: "rate_limited", bucket: "onboarding_wallet" });
    expect(perWallet.headers.get("retry-after")).to.match(/^[0-9]+$/);
    // Another wallet from the same IP: one request left of the IP's 6 (wallet-refused requests count too).
    const other = [];
    for (let index = 0; index < 2; index++) other.push((await api.post("/integrators/nonce", { wallet: second, action: "view_integrator_profile" })).status);
    expect(other).to.deep.equal([200, 429]);
    const perIp = await api.post("/integrators/nonce", { wallet: second, action: "view_integrator_profile" });
    expect(perIp.body).to.deep.include({ code: "rate_limited", bucket: "onboarding_ip_integrators_nonce" });
  });
});
