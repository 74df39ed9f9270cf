import { expect } from "chai";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { loadApiConfig } from "../../api/config";
import { loadRelayerConfig } from "../../relayer/config";
import { httpServerLimitsOf } from "../../sdk/server/httpServerLimits";
import { newWallet, startOnboardingApi, type OnboardingApi } from "../fixtures/onboardingApi";
import { gaslessReadyFixture, RELAYER_TOKEN, startGaslessStack, type GaslessStack } from "../fixtures/gaslessStack";
import { lastJsonBody, rawExchange, statusesOf } from "../fixtures/rawHttp";

const FIVE_MB = 5 * 1024 * 1024;

function postHead(path: string, headers: Record<string, string>): string {
  return [`POST ${path} HTTP/1.1`, "Host: 127.0.0.1", ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`), "", ""].join("\r\n");
}

/** A body of `bytes` in 64 KiB pieces, so the client writes it as fast as the server reads it. */
function bodyOf(bytes: number): Buffer[] {
  const piece = Buffer.alloc(65_536, 0x61);
  return Array.from({ length: Math.ceil(bytes / piece.length) }, () => piece);
}

describe("HTTP limits of the API and the relayer's internal endpoint: header size, slow clients, bodies refused before they are read", function () {
  this.timeout(60_000);

  describe("settings", () => {
    it("reads HTTP_MAX_HEADER_BYTES, HTTP_HEADERS_TIMEOUT_MS, HTTP_REQUEST_TIMEOUT_MS and HTTP_KEEP_ALIVE_TIMEOUT_MS once for both servers, and refuses bad values by name", () => {
      const defaults = { maxHeaderBytes: 16_384, headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000 };
      expect(loadApiConfig({}).httpLimits).to.deep.equal(defaults);
      expect(loadRelayerConfig({ RELAYER_INTERNAL_TOKEN: RELAYER_TOKEN, RELAYER_PRIVATE_KEYS: `0x${"11".repeat(32)}` }).httpLimits).to.deep.equal(defaults);
      expect(loadApiConfig({ HTTP_HEADERS_TIMEOUT_MS: "2000", HTTP_REQUEST_TIMEOUT_MS: "4000" }).httpLimits).to.include({ headersTimeoutMs: 2_000, requestTimeoutMs: 4_000 });
      expect(() => loadApiConfig({ HTTP_MAX_HEADER_BYTES: "10" })).to.throw(/HTTP_MAX_HEADER_BYTES/);
      expect(() => loadApiConfig({ HTTP_KEEP_ALIVE_TIMEOUT_MS: "soon" })).to.throw(/HTTP_KEEP_ALIVE_TIMEOUT_MS/);
      expect(() => httpServerLimitsOf({ HTTP_MAX_HEADER_BYTES: 16_384, HTTP_HEADERS_TIMEOUT_MS: 5_000, HTTP_REQUEST_TIMEOUT_MS: 1_000, HTTP_KEEP_ALIVE_TIMEOUT_MS: 5_000 })).to.throw(/HTTP_REQUEST_TIMEOUT_MS/);
    });
  });

  describe("the API", () => {
    let api: OnboardingApi;
    before(async () => {
      api = await startOnboardingApi({ httpLimits: { maxHeaderBytes: 16_384, headersTimeoutMs: 400, requestTimeoutMs: 800, keepAliveTimeoutMs: 5_000 } });
    });
    after(() => api.close());

    it("answers a 100 KB request header with 431 header_too_large in JSON, read by the client before the connection closes", async () => {
      const { response, socketError } = await rawExchange(api.url, [`GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${"a".repeat(100_000)}\r\n\r\n`]);
      expect(statusesOf(response)).to.deep.equal([431]);
      expect(lastJsonBody(response)).to.deep.equal({ error: "request headers exceed the server's limit of 16384 bytes (HTTP_MAX_HEADER_BYTES)", code: "header_too_large" });
      expect(socketError).to.equal(undefined);
    });

    it("answers a client that sends its headers too slowly (slowloris) with 408 request_timeout after HTTP_HEADERS_TIMEOUT_MS", async () => {
      const started = Date.now();
      const { response } = await rawExchange(api.url, ["GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: 1\r\n"], 10_000);
      expect(statusesOf(response)).to.deep.equal([408]);
      expect(lastJsonBody(response)).to.deep.include({ code: "request_timeout" });
      expect(Date.now() - started).to.be.below(5_000);
    });

    it("answers a 5 MB body announced with Expect: 100-continue with 413 at once, without asking for the body", async () => {
      const { response } = await rawExchange(api.url, [postHead("/integrators/nonce", { "Content-Type": "application/json", "Content-Length": String(FIVE_MB), Expect: "100-continue" })]);
      expect(statusesOf(response)).to.deep.equal([413]);
      expect(lastJsonBody(response)).to.deep.equal({ error: `request body exceeds ${api.config.maxBodyBytes} bytes limit`, code: "payload_too_large" });
    });

    it("answers a small body with Expect: 100-continue with 100 Continue, then serves it", async () => {
      const body = JSON.stringify({ wallet: newWallet().address, action: "view_integrator_profile" });
      const { response } = await rawExchange(api.url, [postHead("/integrators/nonce", { "Content-Type": "application/json", "Content-Length": String(body.length), Expect: "100-continue", Connection: "close" }), body]);
      expect(statusesOf(response)).to.deep.equal([100, 200]);
    });

    it("answers JSON in a charset other than UTF-8 with 415 naming the charset, and accepts charset=utf-8", async () => {
      for (const charset of ["utf-16", "UTF-16LE", "iso-8859-1", '"utf-32"']) {
        const response = await api.request("POST", "/integrators/nonce", { raw: "{}", headers: { "content-type": `application/json; charset=${charset}` } });
        expect(response.status, charset).to.equal(415);
        expect(response.body, charset).to.deep.equal({ error: `charset ${charset.replace(/"/g, "")} is not accepted; send the JSON body in UTF-8 (charset=utf-8, or no charset)`, code: "unsupported_media_type" });
      }
      const utf8 = await api.request("POST", "/integrators/nonce", { json: { wallet: newWallet().address, action: "view_integrator_profile" }, headers: { "content-type": "application/json; charset=UTF-8" } });
      expect(utf8.status).to.equal(200);
    });

    it("counts a malformed JSON body under its route in the request metrics, not route=\"unmatched\"", async () => {
      const response = await api.request("POST", "/integrators/applications", { raw: "{", headers: { "content-type": "application/json" } });
      expect(response.body.code).to.equal("invalid_json");
      const text = await (await fetch(`${api.metricsUrl}/metrics`)).text();
      expect(text).to.match(/api_http_request_duration_seconds_count\{method="POST",route="\/integrators\/applications",status="400"\} 1/);
      expect(text).to.not.contain('route="unmatched"');
    });
  });

  describe("the relayer's internal endpoint", () => {
    let stack: GaslessStack;
    before(async () => {
      stack = await startGaslessStack(await loadFixture(gaslessReadyFixture));
    });
    after(() => stack.close());

    it("answers a 5 MB unauthenticated body sent with Expect: 100-continue with 401 before the body is sent", async () => {
      const { response } = await rawExchange(stack.relayer!.url, [postHead("/internal/relays", { "Content-Type": "application/json", "Content-Length": String(FIVE_MB), Expect: "100-continue" })]);
      expect(statusesOf(response)).to.deep.equal([401]);
      expect(lastJsonBody(response)).to.deep.include({ code: "unauthorized" });
    });

    it("answers a 5 MB unauthenticated body sent without waiting with 401, and the client sends it all without a reset", async () => {
      const { response, socketError } = await rawExchange(stack.relayer!.url, [postHead("/internal/relays", { "Content-Type": "application/json", "Content-Length": String(FIVE_MB) }), ...bodyOf(FIVE_MB)]);
      expect(statusesOf(response)).to.deep.equal([401]);
      expect(socketError).to.equal(undefined);
    });

    it("answers an authorised 5 MB body with 413 before reading it, and a UTF-16 body with 415 naming the charset", async () => {
      const authorization = `Bearer ${RELAYER_TOKEN}`;
      const { response } = await rawExchange(stack.relayer!.url, [postHead("/internal/relays", { Authorization: authorization, "Content-Type": "application/json", "Content-Length": String(FIVE_MB), Expect: "100-continue" })]);
      expect(statusesOf(response)).to.deep.equal([413]);
      expect(lastJsonBody(response)).to.deep.equal({ error: "request body exceeds 65536 bytes limit", code: "payload_too_large" });
      const utf16 = await fetch(`${stack.relayer!.url}/internal/relays`, { method: "POST", headers: { authorization, "content-type": "application/json; charset=utf-16" }, body: "{}" });
      expect([utf16.status, await utf16.json()]).to.deep.equal([415, { error: "charset utf-16 is not accepted; send the JSON body in UTF-8 (charset=utf-8, or no charset)", code: "unsupported_media_type" }]);
    });

    it("answers a 100 KB request header with 431 in JSON", async () => {
      const { response } = await rawExchange(stack.relayer!.url, [`GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${"a".repeat(100_000)}\r\n\r\n`]);
      expect(statusesOf(response)).to.deep.equal([431]);
      expect(lastJsonBody(response)).to.deep.include({ code: "header_too_large" });
    });
  });
});
