import { expect } from "chai";
import hre from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import type { Address } from "viem";
import { loadApiConfig } from "../../api/config";
import { startApi } from "../../api/startApi";
import { openSqliteStore } from "../../api/store/sqlite/sqliteStore";
import { startChainServer, type ChainServer } from "../../scripts/devnet/chainServer";
import { applicationPayloadHash, manifestPath, OnboardingAction, writeManifest, type DeploymentManifest } from "../../sdk";
import { applicationFields, newWallet } from "../fixtures/onboardingApi";
import { settlementFixture } from "../fixtures/settlementFixture";
import { fixtureManifest } from "../fixtures/tradingApi";

describe("startApi (npm run api, and the devnet's API step)", () => {
  let directory: string;
  let chain: ChainServer;
  let manifest: DeploymentManifest;
  beforeEach(async () => {
    directory = mkdtempSync(join(tmpdir(), "start-api-"));
    // The served chain's manifest, as the devnet writes it into DEPLOYMENTS_DIR.
    manifest = await fixtureManifest(await loadFixture(settlementFixture));
    writeManifest(manifestPath(directory, 4663), manifest);
    chain = await startChainServer(hre, "127.0.0.1", 0);
  });
  afterEach(async () => {
    await chain.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it("serves on 127.0.0.1, verifies signatures over the chain's JSON-RPC URL, and close() frees the port and the database", async () => {
    const dbPath = join(directory, "data", "api.sqlite");
    const config = { ...loadApiConfig({ API_PORT: "0", API_DB_PATH: dbPath, DEPLOYMENTS_DIR: directory }), rpcUrl: chain.url };
    const api = await startApi(config, pino({ level: "silent" }));
    expect(api.url).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);

    const owner = newWallet();
    const fields = applicationFields(owner);
    const payload_hash = applicationPayloadHash(fields);
    const post = (path: string, body: unknown) =>
      fetch(`${api.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const challenge = (await (await post("/integrators/nonce", { wallet: owner.address, action: OnboardingAction.CreateApplication, payload_hash })).json()) as {
      message: string;
      nonce: string;
      issued_at: string;
      expiration_time: string;
    };
    const signature = await owner.signMessage({ message: challenge.message });
    // The whole nonce response may be sent back, message included.
    const response = await post("/integrators/applications", { ...fields, payload_hash, ...challenge, signature });
    expect(response.status).to.equal(201);

    await api.close();
    let refused = false;
    await fetch(`${api.url}/integrators/nonce`).catch(() => (refused = true));
    expect(refused, "the API port must be closed").to.equal(true);
    expect(existsSync(`${dbPath}-wal`), "closing checkpoints and removes the WAL").to.equal(false);
    const store = openSqliteStore(dbPath);
    expect((await store.listIntegrators()).map((integrator) => integrator.slug)).to.deep.equal([fields.slug]);
    await store.close();
  });

  it("serves GET /metrics on METRICS_PORT only, never on the API port, and not at all without it", async () => {
    const env = { API_PORT: "0", API_DB_PATH: join(directory, "api.sqlite"), DEPLOYMENTS_DIR: directory };
    const withMetrics = await startApi({ ...loadApiConfig({ ...env, METRICS_PORT: "0" }), rpcUrl: chain.url }, pino({ level: "silent" }));
    try {
      expect(withMetrics.metricsUrl).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(withMetrics.metricsUrl).to.not.equal(withMetrics.url);
      await fetch(`${withMetrics.url}/health`);
      const scraped = await fetch(`${withMetrics.metricsUrl}/metrics`);
      expect(scraped.status).to.equal(200);
      expect(await scraped.text()).to.contain('api_http_request_duration_seconds_count{method="GET",route="/health",status="200"} 1');
      expect((await fetch(`${withMetrics.url}/metrics`)).status).to.equal(404);
      // Nothing on the public port names a balance.
      for (const path of ["/health", "/ready"]) expect(await (await fetch(`${withMetrics.url}${path}`)).text()).to.not.match(/balance/i);
    } finally {
      await withMetrics.close();
    }
    let refused = false;
    await fetch(`${withMetrics.metricsUrl}/metrics`).catch(() => (refused = true));
    expect(refused, "close() closes the metrics port too").to.equal(true);

    const without = await startApi({ ...loadApiConfig(env), rpcUrl: chain.url }, pino({ level: "silent" }));
    try {
      expect(without.metricsUrl).to.equal(undefined);
      expect((await fetch(`${without.url}/metrics`)).status).to.equal(404);
    } finally {
      await without.close();
    }
  });

  it("fails to start, and leaves nothing open, when the port is taken", async () => {
    const first = await startApi({ ...loadApiConfig({ API_PORT: "0", API_DB_PATH: join(directory, "a.sqlite"), DEPLOYMENTS_DIR: directory }), rpcUrl: chain.url }, pino({ level: "silent" }));
    try {
      const port = Number(new URL(first.url).port);
      let failure: unknown;
      await startApi({ ...loadApiConfig({ API_PORT: String(port), API_DB_PATH: join(directory, "b.sqlite"), DEPLOYMENTS_DIR: directory }), rpcUrl: chain.url }, pino({ level: "silent" })).catch(
        (error: unknown) => (failure = error),
      );
      expect(String(failure)).to.match(/EADDRINUSE/);
      expect(existsSync(join(directory, "b.sqlite-wal")), "the second database was closed").to.equal(false);
    } finally {
      await first.close();
    }
  });

  it("serves the supported-token snapshot of the manifest in DEPLOYMENTS_DIR, with the decisions already in the database", async () => {
    const dbPath = join(directory, "api.sqlite");
    const link = manifest.tokens.find((token) => token.symbol === "LINK")!.address.toLowerCase() as Address;
    const store = openSqliteStore(dbPath);
    await store.saveTokenOverride(
      { chainId: 4663, token: link, status: "disabled", source: "operator", symbol: undefined, decimals: undefined, pool: undefined, reason: "test", chainRun: manifest.deployBlockHash, at: new Date() },
      "replace",
    );
    await store.close();

    const api = await startApi({ ...loadApiConfig({ API_PORT: "0", API_DB_PATH: dbPath, DEPLOYMENTS_DIR: directory }), rpcUrl: chain.url }, pino({ level: "silent" }));
    try {
      const response = await fetch(`${api.url}/tokens/supported-tokens`);
      expect(response.status).to.equal(200);
      const body = (await response.json()) as { chain_id: number; count: number; addresses: string[] };
      expect(body.chain_id).to.equal(4663);
      expect(body.addresses).to.include(`0x${"e".repeat(40)}`);
      expect(body.addresses).to.include(manifest.contracts.weth.toLowerCase());
      expect(body.addresses).to.not.include(link);
      expect(body.count).to.equal(manifest.tokens.length);
    } finally {
      await api.close();
    }
  });

  it("fails to start, naming the path, when the served chain has no manifest, and leaves the database closed", async () => {
    const empty = join(directory, "nothing-here");
    const dbPath = join(directory, "c.sqlite");
    let failure: unknown;
    await startApi({ ...loadApiConfig({ API_PORT: "0", API_DB_PATH: dbPath, DEPLOYMENTS_DIR: empty }), rpcUrl: chain.url }, pino({ level: "silent" })).catch(
      (error: unknown) => (failure = error),
    );
    expect(String(failure)).to.include(join(empty, "4663.json")).and.to.match(/DEPLOYMENTS_DIR/);
    expect(existsSync(`${dbPath}-wal`)).to.equal(false);
  });
});
