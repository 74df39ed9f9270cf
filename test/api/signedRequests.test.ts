import { expect } from "chai";
import fc from "fast-check";
import hre from "hardhat";
import { getAddress } from "viem";
import type { Store } from "../../api/store/store";
import { hardhatClients } from "../../scripts/deploy/hardhatClients";
import { applicationPayloadHash, OnboardingAction } from "../../sdk";
import {
  applicationFields,
  newWallet,
  requestNonce,
  signChallenge,
  signedApiKeyRequest,
  signedApplication,
  signedRevokeRequest,
  startOnboardingApi,
  type OnboardingApi,
} from "../fixtures/onboardingApi";

describe("integrator onboarding: signed requests and nonces", () => {
  let api: OnboardingApi;
  beforeEach(async () => {
    api = await startOnboardingApi();
  });
  afterEach(() => api.close());

  it("rejects a signature by another wallet with 401 invalid_signature, and leaves the nonce usable by the owner", async () => {
    const owner = newWallet();
    const fields = applicationFields(owner);
    const payload_hash = applicationPayloadHash(fields);
    const challenge = await requestNonce(api, { wallet: owner.address, action: OnboardingAction.CreateApplication, payload_hash, chain_id: 4663 });

    const forged = await api.post("/integrators/applications", { ...fields, payload_hash, ...(await signChallenge(newWallet(), challenge)) });
    expect(forged.status).to.equal(401);
    expect(forged.body).to.deep.equal({ error: "signature is not owner_wallet's signature over the nonce's message", code: "invalid_signature" });

    const genuine = await api.post("/integrators/applications", { ...fields, payload_hash, ...(await signChallenge(owner, challenge)) });
    expect(genuine.status).to.equal(201);
  });

  it("verifies contract wallets through ERC-1271 on chain: accepted when the wallet says yes, 401 when it says no", async () => {
    const { testClient } = await hardhatClients(hre);
    // Runtime code that answers every call with the ERC-1271 magic value 0x1626ba7e, or with zero.
    const approving = "0x0000000000000000000000000000000000c0de01";
    const refusing = "0x0000000000000000000000000000000000c0de02";
    await testClient.setCode({ address: approving, bytecode: "0x631626ba7e60e01b60005260206000f3" });
    await testClient.setCode({ address: refusing, bytecode: "0x60206000f3" });
    const signature = `0x${"11".repeat(65)}`;
    for (const [wallet, expected] of [[approving, 201], [refusing, 401]] as const) {
      const fields = { ...applicationFields(newWallet()), owner_wallet: getAddress(wallet), fee_recipient: getAddress(wallet), slug: `contract-${wallet.slice(-2)}` };
      const payload_hash = applicationPayloadHash(fields);
      const challenge = await requestNonce(api, { wallet, action: OnboardingAction.CreateApplication, payload_hash, chain_id: 4663 });
      const { message: _message, ...echoed } = challenge;
      const response = await api.post("/integrators/applications", { ...fields, payload_hash, ...echoed, signature });
      expect(response.status, wallet).to.equal(expected);
    }
  });

  it("rejects a signature that is not a signature at all with 401, not 500", async () => {
    const owner = newWallet();
    const body = await signedApplication(api, owner);
    for (const signature of ["0x1234", `0x${"00".repeat(65)}`, `0x${"ff".repeat(200)}`]) {
      const response = await api.post("/integrators/applications", { ...body, signature });
      expect(response.status, signature).to.equal(401);
      expect(response.body.code).to.equal("invalid_signature");
    }
  });

  it("rejects a reused nonce with 409 nonce_used", async () => {
    const owner = newWallet();
    const body = await signedApplication(api, owner);
    expect((await api.post("/integrators/applications", body)).status).to.equal(201);
    const replay = await api.post("/integrators/applications", body);
    expect(replay.status).to.equal(409);
    expect(replay.body).to.deep.equal({ error: "nonce was already used; request a new one", code: "nonce_used" });

    const view = await requestNonce(api, { wallet: owner.address, action: OnboardingAction.ViewProfile });
    const viewBody = { owner_wallet: owner.address, ...(await signChallenge(owner, view)) };
    expect((await api.post("/integrators/me", viewBody)).status).to.equal(200);
    expect((await api.post("/integrators/me", viewBody)).body.code).to.equal("nonce_used");
  });

  it("accepts a nonce until its expiration_time and rejects it from then on with 401 nonce_expired", async () => {
    const owner = newWallet();
    const body = await signedApplication(api, owner);
    api.clock.advance(api.config.nonceTtlSeconds);
    const late = await api.post("/integrators/applications", body);
    expect(late.status).to.equal(401);
    expect(late.body.code).to.equal("nonce_expired");
    expect(late.body.error).to.include(body.expiration_time);

    const fresh = await signedApplication(api, owner);
    api.clock.advance(api.config.nonceTtlSeconds - 1);
    expect((await api.post("/integrators/applications", fresh)).status).to.equal(201);
  });

  it("rejects a nonce issued for another action with 401 nonce_action_mismatch", async () => {
    const owner = newWallet();
    const fields = applicationFields(owner);
    const payload_hash = applicationPayloadHash(fields);
    const view = await requestNonce(api, { wallet: owner.address, action: OnboardingAction.ViewProfile });
    const response = await api.post("/integrators/applications", { ...fields, payload_hash, ...(await signChallenge(owner, view)) });
    expect(response.status).to.equal(401);
    expect(response.body).to.deep.equal({
      error: "nonce was issued for view_integrator_profile, not create_integrator_application",
      code: "nonce_action_mismatch",
    });

    // A key-creation nonce does not authorize a revocation, even with the revocation's own payload hash.
    expect((await api.post("/integrators/applications", await signedApplication(api, owner))).status).to.equal(201);
    const keyNonce = await signedApiKeyRequest(api, owner, 1);
    const revoke = await signedRevokeRequest(api, owner, 1, 1);
    const crossed = await api.post("/integrators/api-keys/1/revoke", { ...revoke, nonce: keyNonce.nonce, issued_at: keyNonce.issued_at, expiration_time: keyNonce.expiration_time, signature: keyNonce.signature });
    expect(crossed.body.code).to.equal("nonce_action_mismatch");
  });

  it("rejects a nonce issued to another wallet with 401 nonce_wallet_mismatch", async () => {
    const owner = newWallet();
    const other = newWallet();
    const fields = applicationFields(other);
    const payload_hash = applicationPayloadHash(fields);
    const challenge = await requestNonce(api, { wallet: owner.address, action: OnboardingAction.CreateApplication, payload_hash });
    const response = await api.post("/integrators/applications", { ...fields, payload_hash, ...(await signChallenge(other, challenge)) });
    expect(response.status).to.equal(401);
    expect(response.body.code).to.equal("nonce_wallet_mismatch");
  });

  it("rejects an echoed issued_at, expiration_time or message that differs from the nonce response", async () => {
    const body = await signedApplication(api, newWallet());
    for (const change of [{ issued_at: "2026-01-01T00:00:01.000Z" }, { expiration_time: "2099-01-01T00:00:00.000Z" }, { message: "something else" }]) {
      const response = await api.post("/integrators/applications", { ...body, ...change });
      expect(response.status).to.equal(401);
      expect(response.body.code).to.equal("nonce_field_mismatch");
      expect(response.body.error).to.include(Object.keys(change)[0]);
    }
  });

  it("rejects an unknown nonce with 401 nonce_unknown", async () => {
    const body = await signedApplication(api, newWallet());
    const response = await api.post("/integrators/applications", { ...body, nonce: "0123456789abcdef0123456789abcdef" });
    expect(response.status).to.equal(401);
    expect(response.body.code).to.equal("nonce_unknown");
  });

  it("rejects any application field altered after the nonce was issued, whether or not payload_hash was recomputed", async () => {
    const owner = newWallet();
    const alterations = fc.oneof(
      fc.record({ display_name: fc.string({ minLength: 1, maxLength: 30 }) }),
      fc.record({ slug: fc.stringMatching(/^[a-z0-9-]{3,20}$/) }),
      fc.record({ telegram_handle: fc.string({ minLength: 1, maxLength: 30 }) }),
      fc.record({ requested_max_fee_bps: fc.integer({ min: 0, max: 1000 }) }),
      fc.record({ contact_email: fc.constantFrom("other@example.com", null) }),
      fc.record({ chain_id: fc.constant(null) }),
    );
    await fc.assert(
      fc.asyncProperty(alterations, fc.boolean(), async (alteration, recompute) => {
        const body = await signedApplication(api, owner);
        const altered = { ...body, ...alteration };
        fc.pre(applicationPayloadHash(altered) !== body.payload_hash);
        const sent = recompute ? { ...altered, payload_hash: applicationPayloadHash(altered) } : altered;
        const response = await api.post("/integrators/applications", sent);
        expect(response.body.code).to.equal(recompute ? "nonce_payload_mismatch" : "payload_hash_mismatch");
        expect(response.status).to.equal(recompute ? 401 : 400);
      }),
      { numRuns: 12 },
    );
    expect(await api.store.listIntegrators()).to.deep.equal([]);
  });

  it("lets exactly one of several concurrent requests with one nonce succeed", async () => {
    const owner = newWallet();
    const body = await signedApplication(api, owner);
    const responses = await Promise.all(Array.from({ length: 6 }, () => api.post("/integrators/applications", body)));
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).to.deep.equal([201, 409, 409, 409, 409, 409]);
    expect(responses.filter((response) => response.status === 409).every((response) => response.body.code === "nonce_used")).to.equal(true);

    const keyBody = await signedApiKeyRequest(api, owner, 1);
    const keyResponses = await Promise.all(Array.from({ length: 6 }, () => api.post("/integrators/api-keys", keyBody)));
    expect(keyResponses.filter((response) => response.status === 201)).to.have.length(1);
    expect(await api.store.listApiKeys([1])).to.have.length(1);
  });

  it("refuses to issue a nonce for another chain, or a create/revoke nonce without payload_hash", async () => {
    const wallet = newWallet().address;
    const otherChain = await api.post("/integrators/nonce", { wallet, action: "view_integrator_profile", chain_id: 1 });
    expect(otherChain.status).to.equal(400);
    expect(otherChain.body).to.deep.equal({ error: "chain_id 1 is not served here; this API serves chain 4663", code: "unsupported_chain" });

    for (const action of ["create_integrator_application", "create_integrator_api_key", "revoke_integrator_api_key"]) {
      const response = await api.post("/integrators/nonce", { wallet, action });
      expect(response.status).to.equal(400);
      expect(response.body).to.deep.equal({ error: `payload_hash is required for action ${action}`, code: "invalid_request" });
    }
    const unknownAction = await api.post("/integrators/nonce", { wallet, action: "delete_everything" });
    expect(unknownAction.status).to.equal(400);
    expect(unknownAction.body.error).to.match(/^action must be one of/);
  });
});

describe("integrator onboarding: nonce spending under contention", () => {
  it("spends a nonce with one conditional write: requests that all passed the checks still yield one success", async () => {
    const contenders = 4;
    let waiting: (() => void)[] = [];
    // Holds every request at its challenge lookup until all have arrived, so all pass the pre-checks
    // with the nonce unspent and only the store's conditional UPDATE can tell them apart.
    const barrier = (store: Store): Store => {
      const findChallenge = async (nonce: string) => {
        const challenge = await store.findChallenge(nonce);
        await new Promise<void>((release) => {
          waiting.push(release);
          if (waiting.length === contenders) {
            waiting.forEach((go) => go());
            waiting = [];
          }
        });
        return challenge;
      };
      return new Proxy(store, {
        get: (target, property) => {
          if (property === "findChallenge") return findChallenge;
          const value: unknown = Reflect.get(target, property, target);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
    };
    const api = await startOnboardingApi({}, [], barrier);
    try {
      const owner = newWallet();
      const fields = applicationFields(owner);
      const payload_hash = applicationPayloadHash(fields);
      const challenge = await requestNonce(api, { wallet: owner.address, action: OnboardingAction.CreateApplication, payload_hash });
      const body = { ...fields, payload_hash, ...(await signChallenge(owner, challenge)) };
      const responses = await Promise.all(Array.from({ length: contenders }, () => api.post("/integrators/applications", body)));
      expect(responses.map((response) => `${response.status} ${response.body.code ?? ""}`).sort()).to.deep.equal([
        "201 ",
        "409 nonce_used",
        "409 nonce_used",
        "409 nonce_used",
      ]);
      expect(await api.store.listIntegrators()).to.have.length(1);
    } finally {
      await api.close();
    }
  });
});
