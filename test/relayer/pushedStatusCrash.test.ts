import { expect } from "chai";
import hre from "hardhat";
import { loadFixture, mine } from "@nomicfoundation/hardhat-network-helpers";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseUnits, type Hex, type LocalAccount } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { onboardIntegrator, readServerSentEvents, writeManifest, type RelayStatusEventJson } from "../../sdk";
import { startChainServer, type ChainServer } from "../../scripts/devnet/chainServer";
import { freePort } from "../../scripts/devnet/freePort";
import { spawnService, type SpawnedService } from "../../scripts/devnet/spawnService";
import { spawnChildRelayer } from "../fixtures/childRelayer";
import { fundedTakers, gaslessReadyFixture, RELAYER_TOKEN, relayerAccounts, type QuotePermit2 } from "../fixtures/gaslessStack";
import type { SettlementFixture } from "../fixtures/settlementFixture";
import { fixtureManifest } from "../fixtures/tradingApi";
import { setWebhook, WebhookReceiver } from "../fixtures/webhookReceiver";

const setAutomine = (on: boolean) => hre.network.provider.request({ method: "evm_setAutomine", params: [on] });

/**
 * The relayer and the API as production runs them, child processes of their own, killed with SIGKILL
 * in the middle of pushing status: a webhook delivery the receiver got but never answered is sent
 * again by the restarted relayer (the receiver deduplicates by event id), no event is lost, and an
 * SSE client that resumes with Last-Event-ID on the restarted API misses nothing.
 */
describe("pushed status survives SIGKILL of the relayer and the API (child processes)", function () {
  this.timeout(180_000);
  let f: SettlementFixture;
  let chain: ChainServer;
  let directory: string;
  let relayer: SpawnedService | undefined;
  let api: SpawnedService | undefined;
  let relayerPort: number;
  let apiPort: number;
  let receiver: WebhookReceiver;
  let apiUrl: string;
  let owner: LocalAccount;
  let integratorId: number;
  let apiKey: string;

  const startRelayerProcess = async () => {
    relayer = await spawnChildRelayer({
      keys: relayerAccounts(2).signers,
      rpcUrl: chain.url,
      directory,
      port: relayerPort,
      env: { WEBHOOK_RETRY_BASE_MS: "100", WEBHOOK_RETRY_MAX_MS: "300", WEBHOOK_POLL_MS: "25" },
    });
  };

  const startApiProcess = async () => {
    api = await spawnService(
      "api/main.ts",
      {
        API_PORT: String(apiPort),
        API_DB_PATH: join(directory, "api.sqlite"),
        API_LOG_LEVEL: "warn",
        AUTO_APPROVE: "true",
        RPC_URL: chain.url,
        DEPLOYMENTS_DIR: directory,
        RELAYER_URL: `http://127.0.0.1:${relayerPort}`,
        RELAYER_INTERNAL_TOKEN: RELAYER_TOKEN,
        RELAYER_FEE_RECIPIENT: relayerAccounts().feeRecipient,
        SSE_KEEPALIVE_SECONDS: "1",
      },
      /^Integrator API on (\S+)$/m,
    );
  };

  beforeEach(async () => {
    f = await loadFixture(gaslessReadyFixture);
    chain = await startChainServer(hre, "127.0.0.1", 0);
    directory = mkdtempSync(join(tmpdir(), "pushed-crash-"));
    const manifest = await fixtureManifest(f);
    writeManifest(join(directory, `${manifest.chainId}.json`), manifest);
    relayerPort = await freePort();
    apiPort = await freePort();
    apiUrl = `http://127.0.0.1:${apiPort}`;
    await startRelayerProcess();
    await startApiProcess();
    owner = privateKeyToAccount(generatePrivateKey());
    const onboarded = await onboardIntegrator({
      baseUrl: apiUrl,
      account: owner,
      application: { chain_id: 4663, display_name: "Crash Tests", slug: `crash-${owner.address.slice(2, 10).toLowerCase()}`, requested_max_fee_bps: 0 },
      keyLabel: "crash",
    });
    integratorId = onboarded.integratorId;
    apiKey = onboarded.apiKey!.secret;
    receiver = new WebhookReceiver();
    await receiver.start();
    const registered = await setWebhook(apiUrl, owner, integratorId, receiver.url);
    expect(registered.status, JSON.stringify(registered.body)).to.equal(200);
    receiver.secret = registered.body.secret as string;
  });
  afterEach(async () => {
    await setAutomine(true);
    await api?.stop("SIGKILL");
    await relayer?.stop("SIGKILL");
    await receiver.stop();
    await chain.close();
    rmSync(directory, { recursive: true, force: true });
  });

  async function submit(taker: LocalAccount): Promise<string> {
    const query = new URLSearchParams({ sell_token: "USDC", buy_token: "WETH", sell_amount: parseUnits("1000", 6).toString(), taker: taker.address, permit2_owner: taker.address });
    const quoteResponse = await fetch(`${apiUrl}/quote?${query.toString()}`, { headers: { authorization: `Bearer ${apiKey}` } });
    const quote = (await quoteResponse.json()) as { quote_id: string; permit2: QuotePermit2 };
    expect(quoteResponse.status, JSON.stringify(quote)).to.equal(200);
    const { EIP712Domain: _domain, ...types } = quote.permit2.types;
    const signature: Hex = await taker.signTypedData({ ...quote.permit2, types } as Parameters<LocalAccount["signTypedData"]>[0]);
    const response = await fetch(`${apiUrl}/gasless/submit`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ quote_id: quote.quote_id, signature }),
    });
    const body = (await response.json()) as { relay_id: string };
    expect(response.status, JSON.stringify(body)).to.equal(202);
    return body.relay_id;
  }

  it("the relayer killed while a delivery is in flight: the restarted relayer sends it again and every event arrives, in order", async () => {
    const [taker] = await fundedTakers(f, 1);
    receiver.hold();
    const relayId = await submit(taker!);
    // The receiver has the first delivery and has not answered: the relayer is mid-delivery.
    await receiver.waitFor(() => receiver.received.length >= 1);
    await relayer!.stop("SIGKILL");
    receiver.release();
    await startRelayerProcess();
    await receiver.waitFor(() => receiver.statusesOf(relayId).includes("confirmed"), 30_000);
    expect(receiver.received.every((delivery) => delivery.verified)).to.equal(true);
    expect(receiver.statusesOf(relayId)).to.deep.equal(["accepted", "submitted", "confirmed"]);
    // At least once: the unanswered delivery came again, with the same event id.
    const firstId = receiver.received[0]!.id;
    expect(receiver.received.filter((delivery) => delivery.id === firstId).length).to.be.greaterThanOrEqual(2);
  });

  it("the API killed mid-stream: deliveries go on, and the SSE client resumes on the restarted API with Last-Event-ID, missing nothing", async () => {
    const [taker] = await fundedTakers(f, 1);
    await setAutomine(false);
    const relayId = await submit(taker!);
    const seen: { id: string; status: string }[] = [];
    const response = await fetch(`${apiUrl}/gasless/events?relay_id=${relayId}`, { headers: { authorization: `Bearer ${apiKey}` } });
    expect(response.status).to.equal(200);
    const stream = readServerSentEvents(response.body!);
    for await (const event of stream) {
      seen.push({ id: event.id!, status: (JSON.parse(event.data) as RelayStatusEventJson).relay.status });
      if (seen.at(-1)!.status === "submitted") break;
    }
    await api!.stop("SIGKILL");
    // Confirmed while the API is down: the relayer delivers the webhook all the same.
    await mine(1);
    await setAutomine(true);
    await receiver.waitFor(() => receiver.statusesOf(relayId).includes("confirmed"), 30_000);
    await startApiProcess();
    const resumed = await fetch(`${apiUrl}/gasless/events?relay_id=${relayId}`, { headers: { authorization: `Bearer ${apiKey}`, "last-event-id": seen.at(-1)!.id } });
    expect(resumed.status).to.equal(200);
    for await (const event of readServerSentEvents(resumed.body!)) {
      seen.push({ id: event.id!, status: (JSON.parse(event.data) as RelayStatusEventJson).relay.status });
    }
    expect(seen.map((event) => event.status)).to.deep.equal(["accepted", "submitted", "confirmed"]);
    expect(receiver.statusesOf(relayId)).to.deep.equal(["accepted", "submitted", "confirmed"]);
  });
});
