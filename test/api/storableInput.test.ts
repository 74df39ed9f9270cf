import { expect } from "chai";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { zeroAddress } from "viem";
import { OnboardingAction } from "../../sdk";
import { createTestDatabase } from "../fixtures/postgresServer";
import { applied, newWallet, signedApiKeyRequest, signedApplication } from "../fixtures/onboardingApi";
import { startQuoteApi, type QuoteApi } from "../fixtures/quoteApi";
import { settlementFixture } from "../fixtures/settlementFixture";

/**
 * Input that one engine would store and the other refuse (PostgreSQL's text cannot hold NUL) is
 * refused at the edge with a 400 naming the field, identically on SQLite and PostgreSQL; so is the
 * zero address where a wallet or a token is expected.
 */
const engines: { name: string; databaseUrl: () => Promise<string | undefined> }[] = [
  { name: "SQLite", databaseUrl: async () => undefined },
  { name: "PostgreSQL", databaseUrl: () => createTestDatabase("storable_input") },
];

const CONTROL_MESSAGE = "must not contain control characters (U+0000-U+001F or U+007F, such as NUL, tab or a line break)";

for (const engine of engines) {
  describe(`request text and addresses that reach the database, on ${engine.name}`, function () {
    this.timeout(60_000);
    let api: QuoteApi;
    before(async () => {
      const f = await loadFixture(settlementFixture);
      api = await startQuoteApi(f, { databaseUrl: await engine.databaseUrl(), defaultQuoteRateLimitPerMinute: 1_000_000 });
    });
    after(() => api?.close());

    it("refuses a validly signed application with a control character in display_name, telegram_handle or app_url: 400 naming the field", async () => {
      const cases: [string, Record<string, string>][] = [
        ["display_name", { display_name: "Acme\u0000Swap" }],
        ["display_name", { display_name: "Acme\nSwap" }],
        ["telegram_handle", { telegram_handle: "@acme\u0000" }],
        ["telegram_handle", { telegram_handle: "@acme\u007f" }],
        ["app_url", { app_url: "https://swap.example.com/\u0000" }],
        ["app_url", { app_url: "https://swap.example.com/a\tb" }],
      ];
      for (const [field, change] of cases) {
        const owner = newWallet();
        // Signed over exactly these fields: only the text itself can be at fault.
        const response = await api.post("/integrators/applications", await signedApplication(api, owner, change));
        expect([response.status, response.body], JSON.stringify(change)).to.deep.equal([400, { error: `${field} ${CONTROL_MESSAGE}`, code: "invalid_request" }]);
      }
      // Text that is merely unusual is still accepted, on both engines alike.
      const owner = newWallet();
      const accepted = await api.post("/integrators/applications", await signedApplication(api, owner, { display_name: "Ünïcode 🦄 Swap", telegram_handle: "@ünï" }));
      expect(accepted.status, accepted.text).to.equal(201);
    });

    it("refuses a validly signed API key request with a control character in label: 400 naming label", async () => {
      const owner = newWallet();
      const integratorId = await applied(api, owner);
      for (const label of ["prod\u0000key", "prod\rkey"]) {
        const response = await api.post("/integrators/api-keys", await signedApiKeyRequest(api, owner, integratorId, label));
        expect([response.status, response.body], JSON.stringify(label)).to.deep.equal([400, { error: `label ${CONTROL_MESSAGE}`, code: "invalid_request" }]);
      }
      expect((await api.post("/integrators/api-keys", await signedApiKeyRequest(api, owner, integratorId, "prod key"))).status).to.equal(201);
    });

    it("refuses the zero address as a nonce wallet and as an owner_wallet: 400 naming the field", async () => {
      const nonce = await api.post("/integrators/nonce", { wallet: zeroAddress, action: OnboardingAction.ViewProfile });
      expect([nonce.status, nonce.body]).to.deep.equal([400, { error: "wallet must not be the zero address", code: "invalid_request" }]);
      const me = await api.post("/integrators/me", { owner_wallet: zeroAddress, nonce: "a".repeat(32), issued_at: "x", expiration_time: "x", signature: "0x00" });
      expect([me.status, me.body]).to.deep.equal([400, { error: "owner_wallet must not be the zero address", code: "invalid_request" }]);
    });

    it("refuses the zero address as buy_token or sell_token with 400 naming it, and records no demand for it", async () => {
      const taker = newWallet().address;
      for (const side of ["buy_token", "sell_token"] as const) {
        const params = { sell_token: "USDC", buy_token: "WETH", sell_amount: 1000, taker, [side]: zeroAddress };
        const response = await api.quote(params);
        expect(response.status, side).to.equal(400);
        expect(response.body, side).to.deep.equal({
          error: `${side} must not be the zero address (the native asset is 0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee, or ETH)`,
          code: "invalid_request",
        });
      }
      await api.served.jobs.flushDemand();
      const demand = await api.store.listTokenDemand({ since: new Date(0) });
      expect(demand.map((row) => row.token)).to.not.include(zeroAddress);
    });
  });
}
