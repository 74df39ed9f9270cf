import { expect } from "chai";
import fc from "fast-check";
import {
  encodeWebhookPayload,
  newWebhookSecret,
  SdkError,
  signWebhook,
  verifyRelayWebhook,
  verifyWebhook,
  webhookHeaders,
  webhookPayloadHash,
  WebhookVerificationError,
  type RelayStatusEventJson,
} from "../../sdk";

describe("webhook signatures (Standard Webhooks v1)", () => {
  it("matches the specification's reference signature", () => {
    // The example of the Standard Webhooks specification and its reference libraries.
    expect(signWebhook("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, '{"test": 2432232314}')).to.equal(
      "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
    );
  });

  it("verifies what it signs, and refuses any other body, id, secret, or a stale timestamp", () => {
    const secret = newWebhookSecret();
    const body = JSON.stringify({ event_id: "evt_1" });
    const now = new Date(1_700_000_000_000);
    const headers = webhookHeaders(secret, "evt_1", now, body);
    expect(verifyWebhook(secret, headers, body, now)).to.deep.equal({ event_id: "evt_1" });
    // During a rotation a sender may list several signatures: any one matching is enough.
    expect(verifyWebhook(secret, { ...headers, "webhook-signature": `v1,AAAA ${headers["webhook-signature"]}` }, body, now)).to.deep.equal({ event_id: "evt_1" });
    expect(() => verifyWebhook(secret, headers, `${body} `, now)).to.throw(WebhookVerificationError, /no webhook-signature/);
    expect(() => verifyWebhook(secret, { ...headers, "webhook-id": "evt_2" }, body, now)).to.throw(WebhookVerificationError);
    expect(() => verifyWebhook(newWebhookSecret(), headers, body, now)).to.throw(WebhookVerificationError);
    expect(() => verifyWebhook(secret, headers, body, new Date(now.getTime() + 301_000))).to.throw(WebhookVerificationError, /tolerance/);
    expect(() => verifyWebhook(secret, { "webhook-id": "evt_1" }, body, now)).to.throw(WebhookVerificationError, /missing header webhook-timestamp/);
  });

  it("a tampered body never verifies", () => {
    const secret = newWebhookSecret();
    fc.assert(
      fc.property(fc.string(), fc.string({ minLength: 1 }), (body, suffix) => {
        const now = new Date();
        const headers = webhookHeaders(secret, "evt_x", now, body);
        expect(() => verifyWebhook(secret, headers, body + suffix, now)).to.throw(WebhookVerificationError);
      }),
      { numRuns: 50 },
    );
  });
});

/** A relay.status event as the relayer writes it (the relay as GET /gasless/status shows it). */
function relayEvent(eventId: string): RelayStatusEventJson {
  return {
    type: "relay.status",
    event_id: eventId,
    timestamp: "2026-11-24T10:00:00.000Z",
    relay: {
      relay_id: "6f1c7a52-4a3f-4f7e-9a39-1f1f3c2b8e10",
      quote_id: "0b6f0a9e-2a4f-4c55-8d3e-5c2d1b0a9f87",
      status: "confirmed",
      chain_id: 4663,
      tx_hash: `0x${"ab".repeat(32)}`,
      error: null,
      reason: null,
      transactions: [],
      cancel_requested_at: null,
      created_at: "2026-11-24T09:59:58.000Z",
      updated_at: "2026-11-24T10:00:00.000Z",
    },
  };
}

describe("verifyRelayWebhook (the receiving side of the client package)", () => {
  const secret = newWebhookSecret();
  const now = new Date(1_700_000_000_000);
  const reasonOf = (run: () => unknown): string | undefined => {
    try {
      run();
    } catch (error) {
      expect(error).to.be.instanceOf(WebhookVerificationError).and.instanceOf(SdkError);
      expect((error as WebhookVerificationError).details, "says what to do").to.be.a("string").and.not.equal("");
      return (error as WebhookVerificationError).reason;
    }
    return undefined;
  };

  it("returns the typed event from node's headers, a fetch Headers, or any header case, over a string or a byte body", () => {
    const body = JSON.stringify(relayEvent("evt_1"));
    const headers = webhookHeaders(secret, "evt_1", now, body);
    expect(verifyRelayWebhook(secret, headers, body, { now })).to.deep.equal(relayEvent("evt_1"));
    expect(verifyRelayWebhook(secret, new Headers(headers), new TextEncoder().encode(body), { now }).relay.status).to.equal("confirmed");
    const mixedCase = { "Webhook-Id": headers["webhook-id"], "WEBHOOK-TIMESTAMP": headers["webhook-timestamp"], "Webhook-Signature": [headers["webhook-signature"]] };
    expect(verifyRelayWebhook(secret, mixedCase, body, { now }).event_id).to.equal("evt_1");
  });

  it("names the check that failed: tampered body, stale or malformed timestamp, missing header, wrong secret, an event that is not relay.status or not the webhook-id's", () => {
    const body = JSON.stringify(relayEvent("evt_1"));
    const headers = webhookHeaders(secret, "evt_1", now, body);
    expect(reasonOf(() => verifyRelayWebhook(secret, headers, body.replace('"confirmed"', '"failed"'), { now }))).to.equal("signature_mismatch");
    expect(reasonOf(() => verifyRelayWebhook(newWebhookSecret(), headers, body, { now }))).to.equal("signature_mismatch");
    expect(reasonOf(() => verifyRelayWebhook(secret, headers, body, { now: new Date(now.getTime() + 301_000) }))).to.equal("stale_timestamp");
    expect(reasonOf(() => verifyRelayWebhook(secret, headers, body, { now: new Date(now.getTime() - 301_000) }))).to.equal("stale_timestamp");
    expect(reasonOf(() => verifyRelayWebhook(secret, headers, body, { now: new Date(now.getTime() + 301_000), toleranceSeconds: 600 }))).to.equal(undefined);
    expect(reasonOf(() => verifyRelayWebhook(secret, { ...headers, "webhook-timestamp": "1.7e9" }, body, { now }))).to.equal("malformed_timestamp");
    expect(reasonOf(() => verifyRelayWebhook(secret, { "webhook-id": "evt_1", "webhook-timestamp": headers["webhook-timestamp"] }, body, { now }))).to.equal("missing_header");
    expect(reasonOf(() => verifyRelayWebhook("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", headers, body, { now }))).to.equal("malformed_secret");
    // Signed correctly, but not an event this API sends: a signature proves the sender, not the shape.
    const other = JSON.stringify({ type: "relay.other", event_id: "evt_2" });
    expect(reasonOf(() => verifyRelayWebhook(secret, webhookHeaders(secret, "evt_2", now, other), other, { now }))).to.equal("malformed_body");
    // The body's event is not the signed webhook-id's.
    expect(reasonOf(() => verifyRelayWebhook(secret, webhookHeaders(secret, "evt_9", now, body), body, { now }))).to.equal("malformed_body");
  });
});

describe("set_integrator_webhook payload hash", () => {
  it("encodes owner_wallet, integrator_id and url as the spec's other signed actions, url null as none", () => {
    const owner_wallet = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
    expect(encodeWebhookPayload({ owner_wallet, integrator_id: 7, url: "https://a.example/h" })).to.equal(
      "owner_wallet=42:0x70997970c51812dc3a010c7d01b50e0d17dc79c8\nintegrator_id=1:7\nurl=24:some:https://a.example/h\n",
    );
    expect(encodeWebhookPayload({ owner_wallet, integrator_id: 7, url: null })).to.equal("owner_wallet=42:0x70997970c51812dc3a010c7d01b50e0d17dc79c8\nintegrator_id=1:7\nurl=4:none\n");
    expect(webhookPayloadHash({ owner_wallet, integrator_id: 7, url: null })).to.not.equal(webhookPayloadHash({ owner_wallet, integrator_id: 7, url: "none" }));
  });
});
