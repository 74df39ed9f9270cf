import { expect } from "chai";
import fc from "fast-check";
import { encodeWebhookPayload, newWebhookSecret, signWebhook, verifyWebhook, webhookHeaders, webhookPayloadHash, WebhookVerificationError } from "../../sdk";

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
