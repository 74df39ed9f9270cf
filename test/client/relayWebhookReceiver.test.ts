import { expect } from "chai";
import express from "express";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { newWebhookSecret, relayWebhookHandler, webhookHeaders, type RelayStatusEventJson } from "../../sdk";

/** A relay.status event as the relayer writes it (the relay as GET /gasless/status shows it). */
function statusEvent(eventId: string): RelayStatusEventJson {
  const now = new Date().toISOString();
  return {
    type: "relay.status",
    event_id: eventId,
    timestamp: now,
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
      created_at: now,
      updated_at: now,
    },
  };
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/relays`;
}

describe("relayWebhookHandler / readRelayWebhook: a webhook receiver from a Node request, plain http and express", () => {
  const secret = newWebhookSecret();
  const servers: Server[] = [];
  after(async () => {
    for (const server of servers) await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  /** The three receivers an integrator mounts: plain http, express with no body parser, express.raw. */
  async function receivers(onEvent: (event: RelayStatusEventJson) => void | Promise<void>): Promise<Record<string, string>> {
    const handler = relayWebhookHandler(secret, onEvent);
    const plain = createServer((req, res) => void handler(req, res));
    const bare = express().post("/hooks/relays", (req, res) => void handler(req, res));
    const raw = express().post("/hooks/relays", express.raw({ type: "application/json" }), (req, res) => void handler(req, res));
    const jsonParsed = express().post("/hooks/relays", express.json(), (req, res) => void handler(req, res));
    const made = { plain, bare: createServer(bare), raw: createServer(raw), jsonParsed: createServer(jsonParsed) };
    servers.push(...Object.values(made));
    return Object.fromEntries(await Promise.all(Object.entries(made).map(async ([name, server]) => [name, await listen(server)] as const)));
  }

  it("verifies and parses a signed delivery and answers 204; a tampered, stale or unsigned one is 400 with its reason and never reaches onEvent", async () => {
    const seen: string[] = [];
    const urls = await receivers((event) => void seen.push(event.event_id));
    for (const [name, url] of Object.entries(urls).filter(([name]) => name !== "jsonParsed")) {
      const body = JSON.stringify(statusEvent(`evt_${name}`));
      const post = (headers: Record<string, string>, sent = body) => fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: sent });
      expect((await post(webhookHeaders(secret, `evt_${name}`, new Date(), body))).status, name).to.equal(204);
      const tampered = await post(webhookHeaders(secret, `evt_${name}`, new Date(), body), body.replace("confirmed", "failed"));
      expect([tampered.status, ((await tampered.json()) as { code: string }).code], name).to.deep.equal([400, "signature_mismatch"]);
      const stale = await post(webhookHeaders(secret, `evt_${name}`, new Date(Date.now() - 600_000), body));
      expect(((await stale.json()) as { code: string }).code, name).to.equal("stale_timestamp");
      expect((await post({})).status, name).to.equal(400);
    }
    expect(seen).to.deep.equal(["evt_plain", "evt_bare", "evt_raw"]);
  });

  it("a body already parsed by express.json() cannot be verified: 500 saying to mount express.raw, onEvent not called", async () => {
    const seen: string[] = [];
    const urls = await receivers((event) => void seen.push(event.event_id));
    const body = JSON.stringify(statusEvent("evt_json"));
    const response = await fetch(urls.jsonParsed!, { method: "POST", headers: { "content-type": "application/json", ...webhookHeaders(secret, "evt_json", new Date(), body) }, body });
    expect(response.status).to.equal(500);
    expect(((await response.json()) as { error: string }).error).to.include("already parsed");
    expect(seen).to.deep.equal([]);
  });

  it("a failing onEvent is answered 500, so the API delivers the event again; an oversized body is refused unread", async () => {
    const urls = await receivers(() => {
      throw new Error("database down");
    });
    const body = JSON.stringify(statusEvent("evt_fail"));
    const failed = await fetch(urls.plain!, { method: "POST", headers: { "content-type": "application/json", ...webhookHeaders(secret, "evt_fail", new Date(), body) }, body });
    expect(failed.status).to.equal(500);
    const huge = "x".repeat(2 * 1024 * 1024);
    const refused = await fetch(urls.plain!, { method: "POST", headers: { "content-type": "application/json", ...webhookHeaders(secret, "evt_huge", new Date(), huge) }, body: huge });
    expect([refused.status, ((await refused.json()) as { code: string }).code]).to.deep.equal([400, "body_too_large"]);
  });
});
