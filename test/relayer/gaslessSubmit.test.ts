import { expect } from "chai";
import Database from "better-sqlite3";
import { loadFixture, time } from "@nomicfoundation/hardhat-network-helpers";
import { erc20Abi } from "viem";
import { permit2Abi } from "../../sdk";
import { startGaslessStack, type GaslessStack, gaslessReadyFixture, otherIntegratorKey } from "../fixtures/gaslessStack";
import type { SettlementFixture } from "../fixtures/settlementFixture";

describe("POST /gasless/submit and GET /gasless/status: validation, ownership and idempotency", function () {
  this.timeout(60_000);
  let f: SettlementFixture;
  let stack: GaslessStack;
  beforeEach(async () => {
    f = await loadFixture(gaslessReadyFixture);
    stack = await startGaslessStack(f);
  });
  afterEach(async () => {
    await stack.close();
  });

  const taker = () => f.signerOf(f.taker.account.address);
  async function signedQuote(params: Record<string, string | bigint | number> = {}) {
    const quote = (await stack.gaslessQuote(taker().address, params)).body;
    return { quote, signature: await stack.sign(quote, taker()) };
  }
  async function expectRefused(body: Record<string, unknown>, status: number, code: string, mentions?: RegExp, key?: string | null) {
    const response = await stack.submit(body, key);
    expect([response.status, response.body.code], JSON.stringify(response.body)).to.deep.equal([status, code]);
    if (mentions !== undefined) expect(response.body.error).to.match(mentions);
    return response;
  }

  it("refuses malformed bodies naming the field: quote_id, a signature that is not 65 bytes, a long idempotency_key, unknown fields", async () => {
    const { quote, signature } = await signedQuote();
    await expectRefused({ quote_id: "nope", signature }, 400, "invalid_request", /quote_id/);
    await expectRefused({ quote_id: quote.quote_id, signature: signature.slice(0, 130) }, 400, "invalid_request", /signature must be exactly 65 bytes .* got 64 bytes/);
    await expectRefused({ quote_id: quote.quote_id, signature: `${signature}00` }, 400, "invalid_request", /got 66 bytes/);
    await expectRefused({ quote_id: quote.quote_id, signature, idempotency_key: "k".repeat(129) }, 400, "invalid_request", /idempotency_key/);
    await expectRefused({ quote_id: quote.quote_id, signature, tip: 1 }, 400, "invalid_request", /unknown field tip/);
  });

  it("refuses an unknown quote, another key's quote (404 either way) and a quote that is not gasless", async () => {
    const { signature } = await signedQuote();
    await expectRefused({ quote_id: "7c0e2d6e-1b7e-4c1e-9a52-1f0e6f4b9a11", signature }, 404, "quote_not_found");
    const plain = (await stack.api.quote({ sell_token: "USDC", buy_token: "WETH", sell_amount: 1_000_000, taker: taker().address })).body;
    await expectRefused({ quote_id: plain.quote_id, signature }, 400, "quote_not_gasless");

    const { quote } = await signedQuote();
    await expectRefused({ quote_id: quote.quote_id, signature: await stack.sign(quote, taker()) }, 404, "quote_not_found", undefined, await otherIntegratorKey(stack.api.url));
  });

  it("refuses a signature by anyone but the taker, over other typed data, or that is no signature at all", async () => {
    const { quote } = await signedQuote();
    await expectRefused({ quote_id: quote.quote_id, signature: await stack.sign(quote, f.signerOf(f.stranger.account.address)) }, 400, "signature_mismatch", /not the quote's taker/);
    const altered = { ...quote, permit2: { ...quote.permit2, message: { ...quote.permit2.message, witness: { ...quote.permit2.message.witness, relayerFee: "0" } } } };
    await expectRefused({ quote_id: quote.quote_id, signature: await stack.sign(altered, taker()) }, 400, "signature_mismatch");
    await expectRefused({ quote_id: quote.quote_id, signature: `0x${"00".repeat(65)}` }, 400, "signature_mismatch");
  });

  it("a submission that fails its check keeps its 4xx while the relayer cannot be asked for a retried relay (never a 503 telling it to retry)", async () => {
    const { quote } = await signedQuote();
    const wrong = await stack.sign(quote, f.signerOf(f.stranger.account.address));
    await stack.relayer!.close();
    await expectRefused({ quote_id: quote.quote_id, signature: wrong }, 400, "signature_mismatch", /not the quote's taker/);
  });

  it("refuses an expired quote, a spent Permit2 nonce, and a swap that no longer simulates", async () => {
    const expired = await signedQuote();
    // Past the quote's deadline (blocks mined faster than one a second can run ahead of the clock).
    await time.increaseTo(BigInt(expired.quote.permit2.message.deadline) + 1n);
    await expectRefused({ quote_id: expired.quote.quote_id, signature: expired.signature }, 400, "quote_expired", /request a fresh quote/);

    const spent = await signedQuote();
    const nonce = BigInt(spent.quote.permit2.message.nonce);
    await f.publicClient.waitForTransactionReceipt({
      hash: await f.taker.writeContract({ address: f.contracts.permit2, abi: permit2Abi, functionName: "invalidateUnorderedNonces", args: [nonce >> 8n, 1n << (nonce & 0xffn)] }),
    });
    await expectRefused({ quote_id: spent.quote.quote_id, signature: spent.signature }, 409, "permit2_nonce_used");

    const stale = await signedQuote();
    await f.publicClient.waitForTransactionReceipt({
      hash: await f.taker.writeContract({ address: f.token("USDC"), abi: erc20Abi, functionName: "approve", args: [f.contracts.permit2, 0n] }),
    });
    await expectRefused({ quote_id: stale.quote.quote_id, signature: stale.signature }, 422, "simulation_failed", /fresh quote/);
  });

  it("a signed swap refused because gasless swaps (feature 3) are paused says so, not to check balance and allowance", async () => {
    const { quote, signature } = await signedQuote();
    await f.registry.write.pause([3n]);
    const refused = await expectRefused({ quote_id: quote.quote_id, signature }, 503, "feature_paused", /feature 3\) are paused/);
    expect(refused.body.error).to.not.match(/issues\.balance|issues\.allowance/);
  });

  it("needs a key with swap:create that is not revoked, and counts submissions against swap_rate_limit_per_minute", async () => {
    const { quote, signature } = await signedQuote();
    await expectRefused({ quote_id: quote.quote_id, signature }, 401, "api_key_missing", undefined, null);
    const db = new Database(stack.api.dbPath);
    db.prepare("UPDATE api_keys SET scopes = ? WHERE id = ?").run(JSON.stringify(["quote:read"]), stack.api.apiKey.keyId);
    db.close();
    await expectRefused({ quote_id: quote.quote_id, signature }, 403, "missing_scope", /swap:create/);
    const restore = new Database(stack.api.dbPath);
    restore.prepare("UPDATE api_keys SET scopes = ? WHERE id = ?").run(JSON.stringify(["quote:read", "swap:create", "swap:integrator"]), stack.api.apiKey.keyId);
    restore.close();

    // The default swap limit is 10 per minute: ten requests pass the bucket (these fail later, and a
    // malformed one counts as much as a well-formed one: README), the eleventh is refused.
    for (let index = 0; index < 5; index++) await expectRefused({ quote_id: "nope", signature }, 400, "invalid_request");
    for (let index = 0; index < 5; index++) await expectRefused({ quote_id: "7c0e2d6e-1b7e-4c1e-9a52-1f0e6f4b9a11", signature }, 404, "quote_not_found");
    const limited = await expectRefused({ quote_id: quote.quote_id, signature }, 429, "rate_limited");
    expect(limited.body.bucket).to.equal("swap:create");
    expect(Number(limited.headers.get("retry-after"))).to.be.greaterThan(0);

    await stack.api.revokeKey();
    await expectRefused({ quote_id: quote.quote_id, signature }, 401, "api_key_revoked", undefined);
  });

  it("the same submission 20 times at once makes one relay and one transaction; a retried key finds it; conflicts are 409", async () => {
    const { quote, signature } = await signedQuote();
    // Every request counts against the swap bucket, retries too: allow these 25.
    const db = new Database(stack.api.dbPath);
    db.prepare("UPDATE api_keys SET swap_rate_limit_per_minute = 100 WHERE id = ?").run(stack.api.apiKey.keyId);
    db.close();
    const responses = await Promise.all(Array.from({ length: 20 }, () => stack.submit({ quote_id: quote.quote_id, signature, idempotency_key: "order-1" })));
    const ids = new Set(responses.map((response) => response.body.relay_id as string));
    expect(ids.size, JSON.stringify(responses.map((response) => response.body))).to.equal(1);
    expect(responses.filter((response) => response.status === 202)).to.have.length(1);
    expect(responses.every((response) => response.status === 202 || response.status === 200)).to.equal(true);
    const [relayId] = [...ids] as [string];
    const relay = await stack.waitFor(relayId);
    expect(relay.status).to.equal("confirmed");
    expect(relay.transactions).to.have.length(1);

    // After the fill, a retry still finds the relay instead of failing on the spent nonce.
    const retry = await stack.submit({ quote_id: quote.quote_id, signature });
    expect([retry.status, retry.body.relay_id, retry.body.status]).to.deep.equal([200, relayId, "confirmed"]);
    const other = await signedQuote();
    await expectRefused({ quote_id: other.quote.quote_id, signature: other.signature, idempotency_key: "order-1" }, 409, "idempotency_key_conflict");
    await expectRefused({ quote_id: quote.quote_id, signature: `0x${"ab".repeat(64)}1b` }, 409, "quote_already_submitted");
  });

  it("a relay is visible to the integrator that submitted it only: another integrator gets 404, a malformed id 400", async () => {
    const { quote, signature } = await signedQuote();
    const { body } = await stack.submit({ quote_id: quote.quote_id, signature });
    const mine = await stack.status(body.relay_id);
    expect([mine.status, mine.body.relay_id]).to.deep.equal([200, body.relay_id]);
    expect(Object.keys(mine.body).sort()).to.deep.equal(["batch", "cancel_requested_at", "chain_id", "created_at", "error", "quote_id", "reason", "relay_id", "status", "transactions", "tx_hash", "updated_at"]);
    const theirs = await stack.status(body.relay_id, await otherIntegratorKey(stack.api.url));
    expect([theirs.status, theirs.body.code]).to.deep.equal([404, "relay_not_found"]);
    const unknown = await stack.status("7c0e2d6e-1b7e-4c1e-9a52-1f0e6f4b9a11");
    expect([unknown.status, unknown.body.code]).to.deep.equal([404, "relay_not_found"]);
    const malformed = await stack.status("not-a-uuid");
    expect([malformed.status, malformed.body.code]).to.deep.equal([400, "invalid_request"]);
    await stack.waitFor(body.relay_id);
  });
});

