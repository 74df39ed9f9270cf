import { expect } from "chai";
import { parseOnboardingMessage } from "../../sdk";
import {
  apply,
  createApiKey,
  newWallet,
  principalProbe,
  revokeApiKey,
  signedApplication,
  startOnboardingApi,
  viewProfile,
  type OnboardingApi,
} from "../fixtures/onboardingApi";

describe("integrator onboarding: the full flow", () => {
  let api: OnboardingApi;
  beforeEach(async () => {
    api = await startOnboardingApi({}, [principalProbe]);
  });
  afterEach(() => api.close());

  it("apply → key → me → revoke, after which the auth middleware rejects the key", async () => {
    const owner = newWallet();

    const application = await apply(api, owner, { slug: "acme-swap" });
    expect(application.status).to.equal(201);
    expect(application.body).to.deep.equal({
      integrator_id: 1,
      slug: "acme-swap",
      status: "active",
      message: application.body.message,
    });
    expect(application.body.message).to.be.a("string").and.match(/active/);

    const created = await createApiKey(api, owner, 1, "prod key");
    expect(created.status).to.equal(201);
    const key = created.body;
    expect(Object.keys(key).sort()).to.deep.equal(
      [
        "key_id",
        "api_key",
        "masked_key",
        "prefix",
        "scopes",
        "quote_rate_limit_per_minute",
        "swap_rate_limit_per_minute",
        "status_rate_limit_per_minute",
        "price_rate_limit_per_minute",
        "integrator_id",
        "integrator_fee_recipient",
        "integrator_max_fee_bps",
        "gas_budget",
        "shown_once",
      ].sort(),
    );
    // Without gasless trading there is no relayer and no unpaid-gas budget to show.
    expect(key.gas_budget).to.equal(null);
    expect(key.key_id).to.equal(1);
    expect(key.api_key).to.match(/^tsk_[0-9a-f]{64}$/);
    expect(key.api_key.startsWith(key.prefix)).to.equal(true);
    expect(key.masked_key).to.equal(`${key.prefix}********${key.api_key.slice(-4)}`);
    expect(key.scopes).to.deep.equal(["quote:read", "swap:create", "swap:integrator"]);
    expect(key.quote_rate_limit_per_minute).to.equal(api.config.defaultQuoteRateLimitPerMinute);
    expect(key.swap_rate_limit_per_minute).to.equal(api.config.defaultSwapRateLimitPerMinute);
    expect(key.integrator_id).to.equal("acme-swap");
    expect(key.integrator_fee_recipient).to.equal(owner.address);
    expect(key.integrator_max_fee_bps).to.equal(25);
    expect(key.shown_once).to.equal(true);

    const authorized = await api.request("GET", "/test/principal", { headers: { authorization: `Bearer ${key.api_key}` } });
    expect(authorized.status).to.equal(200);
    expect(authorized.body).to.deep.equal({
      keyId: 1,
      integratorId: 1,
      integratorSlug: "acme-swap",
      scopes: ["quote:read", "swap:create", "swap:integrator"],
      quoteRateLimitPerMinute: api.config.defaultQuoteRateLimitPerMinute,
      swapRateLimitPerMinute: api.config.defaultSwapRateLimitPerMinute,
      integratorFeeRecipient: owner.address,
      integratorMaxFeeBps: 25,
    });

    const profile = await viewProfile(api, owner);
    expect(profile.status).to.equal(200);
    expect(profile.body.owner_wallet).to.equal(owner.address);
    expect(profile.body.integrators).to.have.length(1);
    const [integrator] = profile.body.integrators;
    expect(integrator).to.include({ integrator_id: 1, slug: "acme-swap", status: "active", max_fee_bps: 25, fee_recipient: owner.address, gas_budget: null });
    expect(integrator.api_keys).to.deep.equal([
      {
        key_id: 1,
        label: "prod key",
        prefix: key.prefix,
        masked_key: key.masked_key,
        scopes: key.scopes,
        quote_rate_limit_per_minute: key.quote_rate_limit_per_minute,
        swap_rate_limit_per_minute: key.swap_rate_limit_per_minute,
        status_rate_limit_per_minute: key.status_rate_limit_per_minute,
        price_rate_limit_per_minute: key.price_rate_limit_per_minute,
        created_at: api.clock.now().toISOString(),
        revoked_at: null,
      },
    ]);
    expect(profile.text).to.not.include(key.api_key.slice(key.prefix.length, -4));

    const revoked = await revokeApiKey(api, owner, 1, 1);
    expect(revoked.status).to.equal(200);
    expect(revoked.body).to.deep.equal({ key_id: 1, integrator_id: 1, revoked: true, revoked_at: api.clock.now().toISOString() });

    const rejected = await api.request("GET", "/test/principal", { headers: { authorization: `Bearer ${key.api_key}` } });
    expect(rejected.status).to.equal(401);
    expect(rejected.body).to.deep.equal({ error: "API key was revoked", code: "api_key_revoked" });

    const after = await viewProfile(api, owner);
    expect(after.body.integrators[0].api_keys[0].revoked_at).to.equal(api.clock.now().toISOString());
  });

  it("issues a nonce whose EIP-4361 message names the action and payload hash it authorizes", async () => {
    const owner = newWallet();
    const response = await api.post("/integrators/nonce", {
      wallet: owner.address,
      action: "create_integrator_api_key",
      payload_hash: `0x${"ab".repeat(32)}`,
      chain_id: 4663,
    });
    expect(response.status).to.equal(200);
    expect(Object.keys(response.body).sort()).to.deep.equal(["expiration_time", "issued_at", "message", "nonce"]);
    expect(response.body.nonce).to.match(/^[a-zA-Z0-9]{8,}$/);
    expect(Date.parse(response.body.expiration_time) - Date.parse(response.body.issued_at)).to.equal(600_000);
    const message = parseOnboardingMessage(response.body.message);
    expect(message).to.deep.include({
      wallet: owner.address,
      chainId: 4663,
      action: "create_integrator_api_key",
      payloadHash: `0x${"ab".repeat(32)}`,
      nonce: response.body.nonce,
      domain: api.config.siweDomain,
    });
    expect(response.body.message).to.include(`Token Swap Trading API: authorize create_integrator_api_key with payload hash 0x${"ab".repeat(32)}`);
  });

  it("keeps profiles, keys and spent nonces across a restart on the same database file", async () => {
    const owner = newWallet();
    const application = await signedApplication(api, owner, { slug: "durable-swap" });
    expect((await api.post("/integrators/applications", application)).status).to.equal(201);
    const key = (await createApiKey(api, owner, 1)).body;

    await api.restart();

    const replay = await api.post("/integrators/applications", application);
    expect(replay.status).to.equal(409);
    expect(replay.body.code).to.equal("nonce_used");
    const authorized = await api.request("GET", "/test/principal", { headers: { authorization: `Bearer ${key.api_key}` } });
    expect(authorized.status).to.equal(200);
    expect(authorized.body.integratorSlug).to.equal("durable-swap");
    const profile = await viewProfile(api, owner);
    expect(profile.body.integrators.map((integrator: { slug: string }) => integrator.slug)).to.deep.equal(["durable-swap"]);
    expect(profile.body.integrators[0].api_keys).to.have.length(1);
    const duplicate = await apply(api, newWallet(), { slug: "durable-swap" });
    expect(duplicate.status).to.equal(409);
  });
});
