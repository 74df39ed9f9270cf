import { expect } from "chai";
import fc from "fast-check";
import { loadApiConfig } from "../../api/config";
import { openSqliteStore } from "../../api/store/sqlite/sqliteStore";
import { runIntegratorsCommand } from "../../scripts/integrators";
import { runScript } from "../fixtures/runScript";
import { openSqliteIntegratorAdministration } from "../../api/store/sqlite/sqliteStore";
import {
  applied,
  apply,
  createApiKey,
  newWallet,
  signedApplication,
  startOnboardingApi,
  viewProfile,
  type OnboardingApi,
} from "../fixtures/onboardingApi";

const SLUG_RULE = "slug must be 3-64 characters of lowercase letters, digits and hyphens";

describe("integrator onboarding: applications", () => {
  let api: OnboardingApi;
  beforeEach(async () => {
    api = await startOnboardingApi();
  });
  afterEach(() => api.close());

  it("rejects a fee_recipient other than owner_wallet with 400 fee_recipient_not_owner", async () => {
    const owner = newWallet();
    const response = await apply(api, owner, { fee_recipient: newWallet().address });
    expect(response.status).to.equal(400);
    expect(response.body).to.deep.equal({ error: "fee_recipient must equal owner_wallet", code: "fee_recipient_not_owner" });
    // The same address in another letter case is the same wallet.
    expect((await apply(api, owner, { fee_recipient: owner.address.toLowerCase() as `0x${string}` })).status).to.equal(201);
  });

  for (const [why, slug] of [
    ["that is too short", "ab"],
    ["that is too long", "a".repeat(65)],
    ["with uppercase letters", "Acme-Swap"],
    ["with an underscore", "acme_swap"],
    ["with a space", "acme swap"],
    ["that is empty", ""],
  ] as const) {
    it(`rejects a slug ${why} with 400 naming slug`, async () => {
      const response = await apply(api, newWallet(), { slug });
      expect(response.status).to.equal(400);
      expect(response.body).to.deep.equal({ error: SLUG_RULE, code: "invalid_request" });
    });
  }

  it("accepts slugs of exactly 3 and 64 characters", async () => {
    expect((await apply(api, newWallet(), { slug: "a-1" })).status).to.equal(201);
    expect((await apply(api, newWallet(), { slug: `${"z9-".repeat(21)}x` })).status).to.equal(201);
  });

  it("accepts a slug exactly when it is 3-64 lowercase letters, digits and hyphens", async () => {
    const seen = new Set<string>();
    const owner = newWallet();
    const slugs = fc.oneof(fc.stringMatching(/^[a-z0-9-]{3,64}$/), fc.string({ maxLength: 70 }), fc.stringMatching(/^[a-zA-Z0-9_.-]{1,70}$/));
    await fc.assert(
      fc.asyncProperty(slugs, async (slug) => {
        fc.pre(!seen.has(slug));
        seen.add(slug);
        const response = await apply(api, owner, { slug });
        const valid = /^[a-z0-9-]{3,64}$/.test(slug);
        expect(response.status, JSON.stringify(slug)).to.equal(valid ? 201 : 400);
        if (!valid) expect(response.body.error).to.equal(SLUG_RULE);
      }),
      { numRuns: 30 },
    );
  });

  it("rejects a taken slug with 409 slug_taken, whoever applies", async () => {
    expect((await apply(api, newWallet(), { slug: "taken-swap" })).status).to.equal(201);
    const response = await apply(api, newWallet(), { slug: "taken-swap" });
    expect(response.status).to.equal(409);
    expect(response.body).to.deep.equal({ error: "slug taken-swap is already taken", code: "slug_taken" });
  });

  it("bounds requested_max_fee_bps by MAX_FEE_BPS and rejects negatives", async () => {
    const owner = newWallet();
    const over = await apply(api, owner, { requested_max_fee_bps: api.config.maxFeeBps + 1 });
    expect(over.status).to.equal(400);
    expect(over.body).to.deep.equal({ error: "requested_max_fee_bps must be at most 1000", code: "fee_bps_out_of_range" });
    const negative = await apply(api, owner, { requested_max_fee_bps: -1 });
    expect(negative.status).to.equal(400);
    expect(negative.body).to.deep.equal({ error: "requested_max_fee_bps must be at least 0", code: "invalid_request" });
    expect((await apply(api, owner, { requested_max_fee_bps: api.config.maxFeeBps })).status).to.equal(201);
  });

  it("accepts an application without the optional fields and shows them as null", async () => {
    const owner = newWallet();
    const body = await signedApplication(api, owner, { chain_id: undefined, contact_email: undefined, telegram_handle: undefined, app_url: undefined });
    expect((await api.post("/integrators/applications", body)).status).to.equal(201);
    const [profile] = (await viewProfile(api, owner)).body.integrators;
    expect(profile).to.include({ contact_email: null, telegram_handle: null, app_url: null, display_name: "Example Swap" });
  });

  it("rejects an application whose optional fields break their rules, naming the field", async () => {
    const owner = newWallet();
    const email = await apply(api, owner, { contact_email: "not-an-email" });
    expect(email.body).to.deep.equal({ error: "contact_email must be an email address", code: "invalid_request" });
    const url = await apply(api, owner, { app_url: "javascript:alert(1)" });
    expect(url.body).to.deep.equal({ error: "app_url must be an http(s) URL", code: "invalid_request" });
  });
});

describe("integrator onboarding: review by the operator", () => {
  let api: OnboardingApi;
  beforeEach(async () => {
    // AUTO_APPROVE as a deployment that does not set it has it.
    api = await startOnboardingApi({ autoApprove: loadApiConfig({}).autoApprove });
  });
  afterEach(() => api.close());

  it("keeps a new profile pending by default (AUTO_APPROVE unset), and refuses it a key with 403 integrator_not_active", async () => {
    const owner = newWallet();
    const application = await apply(api, owner, { slug: "pending-swap" });
    expect(application.status).to.equal(201);
    expect(application.body).to.include({ integrator_id: 1, slug: "pending-swap", status: "pending" });
    expect(application.body.message).to.match(/submitted for review/);

    const key = await createApiKey(api, owner, 1);
    expect(key.status).to.equal(403);
    expect(key.body).to.deep.equal({
      error: "integrator pending-swap is pending; keys are issued only for active profiles",
      code: "integrator_not_active",
    });
  });

  it("lets the operator CLI list and approve on the same database file, after which a key is issued", async () => {
    const owner = newWallet();
    await applied(api, owner, { slug: "review-me" });

    const operatorStore = openSqliteStore(api.dbPath);
    const admin = openSqliteIntegratorAdministration(api.dbPath);
    const lines: string[] = [];
    const context = { store: operatorStore, admin, print: (line: string) => lines.push(line), now: new Date(), defaultActor: "test" };
    try {
      expect(await runIntegratorsCommand(["list"], context)).to.equal(0);
      expect(lines[0]).to.match(/^ID\s+SLUG\s+STATUS/);
      expect(lines[1]).to.match(new RegExp(`^1\\s+review-me\\s+pending\\s+${owner.address}`));

      expect(await runIntegratorsCommand(["approve", "review-me"], context)).to.equal(0);
      expect(lines.at(-1)).to.match(/^approved review-me/);
      expect(await runIntegratorsCommand(["approve", "review-me"], context)).to.equal(0);
      expect(lines.at(-1)).to.equal("review-me is already active");
      expect(await runIntegratorsCommand(["approve", "nobody"], context)).to.equal(1);
      expect(await runIntegratorsCommand(["delete", "review-me"], context)).to.equal(2);
    } finally {
      await admin.close();
      await operatorStore.close();
    }

    const key = await createApiKey(api, owner, 1);
    expect(key.status).to.equal(201);
    const [profile] = (await viewProfile(api, owner)).body.integrators;
    expect(profile.status).to.equal("active");
    expect(profile.approved_at).to.be.a("string");
  });

  it("approves through `npm run integrators -- approve <slug>` as a separate process while the API runs", async function () {
    this.timeout(60_000);
    const owner = newWallet();
    await applied(api, owner, { slug: "cli-approved" });
    const result = await runScript("scripts/integrators.ts", ["approve", "cli-approved"], { API_DB_PATH: api.dbPath });
    expect(result.status, result.stderr).to.equal(0);
    expect(result.stdout).to.match(/^approved cli-approved/);
    expect((await createApiKey(api, owner, 1)).status).to.equal(201);
  });
});
