import { expect } from "chai";
import fc from "fast-check";
import {
  applied,
  newWallet,
  signedApiKeyRequest,
  signedApplication,
  startOnboardingApi,
  type OnboardingApi,
} from "../fixtures/onboardingApi";
import type { Route } from "../../api/routes/route";

const brokenRoute: Route = {
  method: "get",
  path: "/test/broken",
  handlers: () => [
    () => {
      throw new Error("secret internals at /srv/app/db.ts:42");
    },
  ],
};

const ENDPOINTS = ["/integrators/nonce", "/integrators/applications", "/integrators/api-keys", "/integrators/me", "/integrators/api-keys/1/revoke"];

describe("integrator onboarding: request bodies and errors", () => {
  let api: OnboardingApi;
  beforeEach(async () => {
    api = await startOnboardingApi({}, [brokenRoute]);
  });
  afterEach(() => api.close());

  it("names each missing required field of an application with 400 invalid_request", async () => {
    const body = await signedApplication(api, newWallet());
    for (const field of ["owner_wallet", "display_name", "slug", "fee_recipient", "requested_max_fee_bps", "payload_hash", "nonce", "issued_at", "expiration_time", "signature"]) {
      const { [field as keyof typeof body]: _removed, ...rest } = body;
      const response = await api.post("/integrators/applications", rest);
      expect(response.status, field).to.equal(400);
      expect(response.body, field).to.deep.equal({ error: `${field} is required`, code: "invalid_request" });
    }
  });

  it("names wrong-typed fields with 400 invalid_request", async () => {
    const owner = newWallet();
    await applied(api, owner);
    const keyBody = await signedApiKeyRequest(api, owner, 1);
    const cases: [Record<string, unknown>, string][] = [
      [{ integrator_id: "1" }, "integrator_id must be a number, received a string"],
      [{ integrator_id: 1.5 }, "integrator_id must be an integer, received a fraction"],
      [{ integrator_id: 0 }, "integrator_id must be at least 1"],
      [{ label: 7 }, "label must be a string, received a number"],
      [{ label: null }, "label must be a string, received null"],
      [{ label: "" }, "label must not be empty"],
      [{ chain_id: "4663" }, "chain_id must be a number, received a string"],
      [{ owner_wallet: "0x1234" }, "owner_wallet must be a 20-byte hex address (0x + 40 hex digits, valid EIP-55 checksum if mixed case)"],
      [{ payload_hash: "0xabc" }, "payload_hash must be a 32-byte hex hash (0x + 64 hex digits)"],
      [{ signature: "deadbeef" }, "signature must be 0x-prefixed hex bytes"],
      [{ nonce: ["a"] }, "nonce must be a string, received an array"],
      [{ extra: true }, "request body has unknown field extra"],
    ];
    for (const [change, error] of cases) {
      const response = await api.post("/integrators/api-keys", { ...keyBody, ...change });
      expect(response.status, error).to.equal(400);
      expect(response.body, error).to.deep.equal({ error, code: "invalid_request" });
    }
    expect((await api.post("/integrators/api-keys", keyBody)).status).to.equal(201);
  });

  it("names oversized fields with 400, and answers an oversized body with 413 payload_too_large", async () => {
    const owner = newWallet();
    const tooLong = await api.post("/integrators/applications", { ...(await signedApplication(api, owner)), display_name: "x".repeat(101) });
    expect(tooLong.body).to.deep.equal({ error: "display_name must be at most 100 characters", code: "invalid_request" });
    const label = await api.post("/integrators/api-keys", { ...(await signedApiKeyRequest(api, owner, 1)), label: "l".repeat(65) });
    expect(label.body).to.deep.equal({ error: "label must be at most 64 characters", code: "invalid_request" });

    const huge = await api.post("/integrators/applications", { ...(await signedApplication(api, owner)), display_name: "x".repeat(20_000) });
    expect(huge.status).to.equal(413);
    expect(huge.body).to.deep.equal({ error: `request body exceeds ${api.config.maxBodyBytes} bytes limit`, code: "payload_too_large" });
  });

  it("answers malformed JSON with 400 invalid_json and a non-object body with 400 naming the body", async () => {
    for (const raw of ["{", '{"wallet": }', "nul", '"just a string"', "{'single': 'quotes'}"]) {
      const response = await api.request("POST", "/integrators/nonce", { raw, headers: { "content-type": "application/json" } });
      expect(response.status, raw).to.equal(400);
      expect(response.body, raw).to.deep.equal({ error: "request body is not valid JSON (top level must be an object)", code: "invalid_json" });
    }
    const array = await api.request("POST", "/integrators/nonce", { raw: "[]", headers: { "content-type": "application/json" } });
    expect(array.body).to.deep.equal({ error: "request body must be a JSON object", code: "invalid_request" });
    const empty = await api.request("POST", "/integrators/nonce");
    expect(empty.status).to.equal(400);
    expect(empty.body).to.deep.equal({ error: "request body must be a JSON object sent with Content-Type: application/json", code: "invalid_request" });
  });

  it("answers a body that is not JSON with 415 unsupported_media_type naming Content-Type", async () => {
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]) {
      const response = await api.request("POST", "/integrators/nonce", { raw: "wallet=0x", headers: { "content-type": type } });
      expect(response.status, type).to.equal(415);
      expect(response.body.code, type).to.equal("unsupported_media_type");
      expect(response.body.error, type).to.contain("Content-Type").and.contain("application/json");
    }
  });

  it("answers a compressed body it cannot read with a 4xx naming Content-Encoding, never a 500", async () => {
    const corrupt = await api.request("POST", "/integrators/nonce", { raw: '{"wallet": "not gzip"}', headers: { "content-type": "application/json", "content-encoding": "gzip" } });
    expect(corrupt.status).to.equal(400);
    expect(corrupt.body).to.deep.include({ code: "invalid_request" });
    expect(corrupt.body.error).to.contain("Content-Encoding");
    for (const encoding of ["br", "zstd", "compress"]) {
      const response = await api.request("POST", "/integrators/nonce", { raw: "{}", headers: { "content-type": "application/json", "content-encoding": encoding } });
      expect(response.status, encoding).to.equal(415);
      expect(response.body.code, encoding).to.equal("unsupported_media_type");
      expect(response.body.error, encoding).to.contain(`Content-Encoding ${encoding}`);
    }
  });

  it("answers a malformed percent-encoding in a path parameter with 400 naming the path", async () => {
    const response = await api.request("POST", "/integrators/api-keys/%ZZ/revoke", { json: {} });
    expect(response.status).to.equal(400);
    expect(response.body).to.deep.include({ code: "invalid_request" });
    expect(response.body.error).to.contain("percent-encoding");
  });

  it("answers unknown routes and methods with a 404 JSON error", async () => {
    for (const [method, path] of [["GET", "/"], ["GET", "/integrators/nonce"], ["POST", "/integrators/unknown"], ["DELETE", "/integrators/api-keys/1"]] as const) {
      const response = await api.request(method, path);
      expect(response.status, path).to.equal(404);
      expect(response.body, path).to.deep.equal({ error: `no route for ${method} ${path}`, code: "not_found" });
    }
  });

  it("hides the details of an internal failure behind a bare 500 internal_error", async () => {
    const response = await api.request("GET", "/test/broken");
    expect(response.status).to.equal(500);
    expect(response.body).to.deep.equal({ error: "internal error", code: "internal_error" });
    expect(response.text).to.not.include("/srv/app");
  });

  it("never answers arbitrary JSON bodies with a 5xx, always with { error, code }", async () => {
    const wallet = newWallet().address;
    // Plausible keys with values of any JSON type, mixed with entirely arbitrary values.
    const plausible = fc.dictionary(
      fc.constantFrom("wallet", "owner_wallet", "action", "payload_hash", "chain_id", "slug", "label", "integrator_id", "nonce", "signature", "issued_at", "expiration_time", "requested_max_fee_bps"),
      fc.oneof(fc.jsonValue(), fc.constant(wallet), fc.constantFrom("view_integrator_profile", "create_integrator_api_key")),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ENDPOINTS), fc.oneof(plausible, fc.jsonValue()), async (path, body) => {
        const response = await api.request("POST", path, { raw: JSON.stringify(body), headers: { "content-type": "application/json" } });
        expect(response.status, `${path} ${JSON.stringify(body)}`).to.be.within(200, 499);
        if (response.status >= 400) {
          expect(response.body.error).to.be.a("string").and.not.equal("");
          expect(response.body.code).to.be.a("string").and.not.equal("");
        }
      }),
      { numRuns: 150 },
    );
  });
});
