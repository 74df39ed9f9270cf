import { expect } from "chai";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { createTestDatabase } from "../fixtures/postgresServer";
import { gaslessReadyFixture, RELAYER_TOKEN, startGaslessStack, type GaslessStack } from "../fixtures/gaslessStack";
import type { SettlementFixture } from "../fixtures/settlementFixture";

const CONTROL_MESSAGE = "must not contain control characters (U+0000-U+001F or U+007F, such as NUL, tab or a line break)";

/**
 * An idempotency key reaches the relayer's database: one PostgreSQL cannot store (NUL) used to come
 * back as a relayer 500, which the API answered 503 "retry with the same idempotency_key", a retry
 * that could never succeed. Now both engines refuse it with a 400 naming the field, at the API and,
 * for a caller that skips the API, at the relayer's internal endpoint.
 */
for (const engine of [
  { name: "SQLite", databaseUrl: async (): Promise<string | undefined> => undefined },
  { name: "PostgreSQL", databaseUrl: () => createTestDatabase("idempotency_text") },
]) {
  describe(`idempotency keys with control characters, API and relayer on ${engine.name}`, function () {
    this.timeout(60_000);
    let f: SettlementFixture;
    let stack: GaslessStack;
    before(async () => {
      f = await loadFixture(gaslessReadyFixture);
      const databaseUrl = await engine.databaseUrl();
      stack = await startGaslessStack(f, { api: { databaseUrl }, relayerEnv: databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl } });
    });
    after(() => stack?.close());

    it("POST /gasless/submit refuses an idempotency_key with NUL or another control character: 400 naming it, and nothing is relayed", async () => {
      const taker = f.signerOf(f.taker.account.address);
      const quote = (await stack.gaslessQuote(taker.address)).body;
      const signature = await stack.sign(quote, taker);
      for (const idempotencyKey of ["order\u00001", "order\n1"]) {
        const response = await stack.submit({ quote_id: quote.quote_id, signature, idempotency_key: idempotencyKey });
        expect([response.status, response.body], JSON.stringify(idempotencyKey)).to.deep.equal([400, { error: `idempotency_key ${CONTROL_MESSAGE}`, code: "invalid_request" }]);
      }
      // The same quote and signature with a usable key make a new relay (202, not 200): nothing was relayed before.
      expect((await stack.submit({ quote_id: quote.quote_id, signature, idempotency_key: "order-1" })).status).to.equal(202);
    });

    it("the relayer's internal endpoints refuse such a key with 400 naming idempotency_key, never a 500", async () => {
      const relay = {
        chain_id: 4663,
        quote_id: "7c0e2d6e-1b7e-4c1e-9a52-1f0e6f4b9a11",
        integrator_id: 1,
        idempotency_key: "k\u0000",
        signature: `0x${"11".repeat(65)}`,
      };
      const handoff = {
        ...relay,
        onchain_quote_id: `0x${"22".repeat(32)}`,
        api_key_id: 1,
        taker: f.taker.account.address,
        router: f.routerAddress,
        data: "0x",
        permit2_nonce: "1",
        deadline: "9999999999",
        estimated_gas: 200_000,
      };
      for (const [path, body] of [["/internal/relays/match", relay], ["/internal/relays", handoff]] as const) {
        const response = await fetch(`${stack.relayer!.url}${path}`, {
          method: "POST",
          headers: { authorization: `Bearer ${RELAYER_TOKEN}`, "content-type": "application/json" },
          body: JSON.stringify(body),
        });
        expect([response.status, await response.json()], path).to.deep.equal([400, { error: `idempotency_key: ${CONTROL_MESSAGE}`, code: "invalid_request" }]);
      }
    });
  });
}
