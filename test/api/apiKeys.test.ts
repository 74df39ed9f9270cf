import { expect } from "chai";
import Database from "better-sqlite3";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  applied,
  createApiKey,
  newWallet,
  principalProbe,
  revokeApiKey,
  scopeProbe,
  signedRevokeRequest,
  startOnboardingApi,
  viewProfile,
  type OnboardingApi,
} from "../fixtures/onboardingApi";

describe("integrator onboarding: API keys", () => {
  let api: OnboardingApi;
  beforeEach(async () => {
    api = await startOnboardingApi({}, [principalProbe, scopeProbe("/test/swap", "swap:create")]);
  });
  afterEach(() => api.close());

  const bearer = (key: string) => ({ headers: { authorization: `Bearer ${key}` } });

  it("stores the secret only as its sha256: no file of the database holds the secret", async () => {
    const owner = newWallet();
    await applied(api, owner);
    const { api_key: secret } = (await createApiKey(api, owner, 1)).body;

    const db = new Database(api.dbPath, { readonly: true });
    try {
      const row = db.prepare("SELECT * FROM api_keys").get() as Record<string, unknown>;
      expect(row.secret_hash).to.equal(createHash("sha256").update(secret).digest("hex"));
      expect(Object.values(row).some((value) => String(value).includes(secret.slice(16, -4)))).to.equal(false);
    } finally {
      db.close();
    }
    // The main file, the WAL and its index, as they are while the API runs.
    for (const file of readdirSync(api.directory)) {
      expect(readFileSync(join(api.directory, file)).includes(secret.slice(16, -4)), file).to.equal(false);
    }
  });

  it("lists only the signing wallet's own profiles and masked keys on /integrators/me", async () => {
    const owner = newWallet();
    const stranger = newWallet();
    await applied(api, owner, { slug: "mine-one" });
    await applied(api, stranger, { slug: "not-mine" });
    await applied(api, owner, { slug: "mine-two" });
    const first = (await createApiKey(api, owner, 1, "first")).body;
    const second = (await createApiKey(api, owner, 3, "second")).body;
    await createApiKey(api, stranger, 2, "theirs");

    const profile = await viewProfile(api, owner);
    expect(profile.status).to.equal(200);
    expect(profile.body.integrators.map((integrator: { slug: string }) => integrator.slug)).to.deep.equal(["mine-one", "mine-two"]);
    expect(profile.body.integrators[0].api_keys.map((key: { label: string }) => key.label)).to.deep.equal(["first"]);
    expect(profile.body.integrators[1].api_keys.map((key: { masked_key: string }) => key.masked_key)).to.deep.equal([second.masked_key]);
    for (const secret of [first.api_key, second.api_key]) {
      expect(profile.text).to.not.include(secret);
      expect(profile.text).to.not.include(createHash("sha256").update(secret).digest("hex"));
    }
    expect((await viewProfile(api, newWallet())).body.integrators).to.deep.equal([]);
  });

  it("refuses a key for another wallet's profile (403) and for an unknown profile (404)", async () => {
    const owner = newWallet();
    await applied(api, owner);
    const intruder = newWallet();
    const foreign = await createApiKey(api, intruder, 1);
    expect(foreign.status).to.equal(403);
    expect(foreign.body).to.deep.equal({ error: "owner_wallet does not own integrator_id 1", code: "not_integrator_owner" });
    const unknown = await createApiKey(api, owner, 99);
    expect(unknown.status).to.equal(404);
    expect(unknown.body).to.deep.equal({ error: "integrator_id 99 does not exist", code: "integrator_not_found" });
  });

  it("refuses a key past MAX_API_KEYS_PER_INTEGRATOR with 409 api_key_limit_reached naming the limit; a revoked key does not count", async () => {
    await api.close();
    api = await startOnboardingApi({ maxApiKeysPerIntegrator: 3 }, [principalProbe]);
    const owner = newWallet();
    await applied(api, owner);
    for (let index = 0; index < 3; index++) expect((await createApiKey(api, owner, 1, `key ${index}`)).status).to.equal(201);
    const refused = await createApiKey(api, owner, 1, "one too many");
    expect([refused.status, refused.body.code, refused.body.limit]).to.deep.equal([409, "api_key_limit_reached", 3]);
    expect(refused.body.error).to.match(/has 3 active API keys, the most MAX_API_KEYS_PER_INTEGRATOR \(3\) allows; revoke one first/);
    expect((await revokeApiKey(api, owner, 1, 1)).status).to.equal(200);
    expect((await createApiKey(api, owner, 1, "in its place")).status).to.equal(201);
  });

  it("answers a second revoke of one key with 409 api_key_already_revoked", async () => {
    const owner = newWallet();
    await applied(api, owner);
    await createApiKey(api, owner, 1);
    expect((await revokeApiKey(api, owner, 1, 1)).status).to.equal(200);
    const again = await revokeApiKey(api, owner, 1, 1);
    expect(again.status).to.equal(409);
    expect(again.body.code).to.equal("api_key_already_revoked");
    expect(again.body.error).to.match(/^key_id 1 was already revoked at /);
  });

  it("revokes only the owner's keys: 403 for another wallet, 404 for a key of another profile or no key", async () => {
    const owner = newWallet();
    const other = newWallet();
    await applied(api, owner);
    await applied(api, other);
    await createApiKey(api, owner, 1);
    await createApiKey(api, other, 2);

    const intruder = await revokeApiKey(api, other, 1, 1);
    expect(intruder.status).to.equal(403);
    expect(intruder.body.code).to.equal("not_integrator_owner");
    const crossProfile = await revokeApiKey(api, owner, 1, 2);
    expect(crossProfile.status).to.equal(404);
    expect(crossProfile.body).to.deep.equal({ error: "key_id 2 is not a key of integrator_id 1", code: "api_key_not_found" });
    const missing = await revokeApiKey(api, owner, 1, 42);
    expect(missing.status).to.equal(404);
    expect((await api.store.findApiKey(1))?.revokedAt).to.equal(undefined);
    expect((await api.store.findApiKey(2))?.revokedAt).to.equal(undefined);
  });

  it("validates the revoke path and an echoed key_id", async () => {
    const owner = newWallet();
    await applied(api, owner);
    await createApiKey(api, owner, 1);
    const body = await signedRevokeRequest(api, owner, 1, 1);
    const badPath = await api.post("/integrators/api-keys/abc/revoke", body);
    expect(badPath.status).to.equal(400);
    expect(badPath.body).to.deep.equal({ error: "key_id must be a positive integer", code: "invalid_request" });
    const disagreeing = await api.post("/integrators/api-keys/1/revoke", { ...body, key_id: 2 });
    expect(disagreeing.status).to.equal(400);
    expect(disagreeing.body.error).to.equal("key_id in the body (2) differs from the path (1)");
    expect((await api.post("/integrators/api-keys/1/revoke", { ...body, key_id: 1 })).status).to.equal(200);
  });

  describe("auth middleware", () => {
    it("rejects a missing Authorization header with 401 api_key_missing", async () => {
      const response = await api.request("GET", "/test/principal");
      expect(response.status).to.equal(401);
      expect(response.body.code).to.equal("api_key_missing");
    });

    it("rejects malformed, unknown and altered keys with 401 api_key_invalid", async () => {
      const owner = newWallet();
      await applied(api, owner);
      const { api_key: secret } = (await createApiKey(api, owner, 1)).body;
      const flipped = `${secret.slice(0, -1)}${secret.endsWith("0") ? "1" : "0"}`;
      for (const header of [`Basic ${secret}`, "Bearer", "Bearer not-a-key", `Bearer tsk_${"0".repeat(64)}`, `Bearer ${flipped}`, `Bearer ${secret.toUpperCase()}`]) {
        const response = await api.request("GET", "/test/principal", { headers: { authorization: header } });
        expect(response.status, header).to.equal(401);
        expect(response.body.code, header).to.equal("api_key_invalid");
      }
      expect((await api.request("GET", "/test/principal", bearer(secret))).status).to.equal(200);
    });

    it("rejects a revoked key on the very next request, while the owner's other keys keep working", async () => {
      const owner = newWallet();
      await applied(api, owner);
      const doomed = (await createApiKey(api, owner, 1, "doomed")).body.api_key;
      const kept = (await createApiKey(api, owner, 1, "kept")).body.api_key;
      expect((await api.request("GET", "/test/principal", bearer(doomed))).status).to.equal(200);
      await revokeApiKey(api, owner, 1, 1);
      expect((await api.request("GET", "/test/principal", bearer(doomed))).body.code).to.equal("api_key_revoked");
      expect((await api.request("GET", "/test/principal", bearer(kept))).status).to.equal(200);
    });

    it("rejects a key without the route's scope with 403 missing_scope", async () => {
      const owner = newWallet();
      await applied(api, owner);
      const { api_key: secret } = (await createApiKey(api, owner, 1)).body;
      expect((await api.request("GET", "/test/swap", bearer(secret))).status).to.equal(200);

      // Narrow the stored key to quote:read, as a future per-key scope setting would.
      const db = new Database(api.dbPath);
      db.prepare("UPDATE api_keys SET scopes = ? WHERE id = 1").run(JSON.stringify(["quote:read"]));
      db.close();

      const response = await api.request("GET", "/test/swap", bearer(secret));
      expect(response.status).to.equal(403);
      expect(response.body).to.deep.equal({ error: "API key lacks scope swap:create", code: "missing_scope" });
      expect((await api.request("GET", "/test/principal", bearer(secret))).status).to.equal(200);
    });
  });
});
