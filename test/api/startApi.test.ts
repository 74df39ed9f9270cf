import { expect } from "chai";
import hre from "hardhat";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { loadApiConfig } from "../../api/config";
import { startApi } from "../../api/startApi";
import { openSqliteStore } from "../../api/store/sqlite/sqliteStore";
import { startChainServer, type ChainServer } from "../../scripts/devnet/chainServer";
import { applicationPayloadHash, OnboardingAction } from "../../sdk";
import { applicationFields, newWallet } from "../fixtures/onboardingApi";

describe("startApi (npm run api, and the devnet's API step)", () => {
  let directory: string;
  let chain: ChainServer;
  beforeEach(async () => {
    directory = mkdtempSync(join(tmpdir(), "start-api-"));
    chain = await startChainServer(hre, "127.0.0.1", 0);
  });
  afterEach(async () => {
    await chain.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it("serves on 127.0.0.1, verifies signatures over the chain's JSON-RPC URL, and close() frees the port and the database", async () => {
    const dbPath = join(directory, "data", "api.sqlite");
    const config = { ...loadApiConfig({ API_PORT: "0", API_DB_PATH: dbPath }), rpcUrl: chain.url };
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

  it("fails to start, and leaves nothing open, when the port is taken", async () => {
    const first = await startApi({ ...loadApiConfig({ API_PORT: "0", API_DB_PATH: join(directory, "a.sqlite") }), rpcUrl: chain.url }, pino({ level: "silent" }));
    try {
      const port = Number(new URL(first.url).port);
      let failure: unknown;
      await startApi({ ...loadApiConfig({ API_PORT: String(port), API_DB_PATH: join(directory, "b.sqlite") }), rpcUrl: chain.url }, pino({ level: "silent" })).catch(
        (error: unknown) => (failure = error),
      );
      expect(String(failure)).to.match(/EADDRINUSE/);
      expect(existsSync(join(directory, "b.sqlite-wal")), "the second database was closed").to.equal(false);
    } finally {
      await first.close();
    }
  });
});
