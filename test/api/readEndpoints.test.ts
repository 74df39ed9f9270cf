import { expect } from "chai";
import hre from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { loadApiConfig } from "../../api/config";
import { startApi } from "../../api/startApi";
import { startChainServer, type ChainServer } from "../../scripts/devnet/chainServer";
import { manifestPath, writeManifest } from "../../sdk";
import { endpointLabel } from "../../sdk/rpc/endpointLabel";
import { startRpcProxy, type RpcProxy } from "../fixtures/rpcProxy";
import { settlementFixture } from "../fixtures/settlementFixture";
import { fixtureManifest } from "../fixtures/tradingApi";

const LAG = 6;

/**
 * RPC_URLS on the API: the default chain's reads go through two proxies of one chain, the first
 * serving a head LAG blocks old. The API sets it aside, answers from the other, and takes it back once it
 * catches up; the per-endpoint metrics say so on METRICS_PORT.
 */
describe("API read endpoints (RPC_URLS)", function () {
  this.timeout(60_000);
  let directory: string;
  let chain: ChainServer;
  let lagging: RpcProxy;
  let healthy: RpcProxy;
  beforeEach(async () => {
    directory = mkdtempSync(join(tmpdir(), "api-read-endpoints-"));
    writeManifest(manifestPath(directory, 4663), await fixtureManifest(await loadFixture(settlementFixture)));
    await hre.network.provider.send("hardhat_mine", [`0x${(LAG * 2).toString(16)}`]);
    chain = await startChainServer(hre, "127.0.0.1", 0);
    [lagging, healthy] = await Promise.all([startRpcProxy(chain.url), startRpcProxy(chain.url)]);
    lagging.inject((calls) => (calls.some((call) => call.method === "eth_blockNumber" || call.method === "eth_getBlockByNumber") ? { kind: "stale", blocks: LAG } : undefined));
  });
  afterEach(async () => {
    for (const proxy of [lagging, healthy]) await proxy.close();
    await chain.close();
    rmSync(directory, { recursive: true, force: true });
  });

  const startWith = async (probeMs: number) => {
    const config = loadApiConfig({
      API_PORT: "0",
      API_DB_PATH: join(directory, "api.sqlite"),
      DEPLOYMENTS_DIR: directory,
      METRICS_PORT: "0",
      RPC_URLS: `${lagging.url},${healthy.url}`,
      RPC_PROBE_MS: String(probeMs),
    });
    expect(config.rpcUrls).to.deep.equal([lagging.url, healthy.url]);
    const api = await startApi(config, pino({ level: "silent" }));
    const gauge = async (name: string, proxy: RpcProxy) => {
      const page = await (await fetch(`${api.metricsUrl}/metrics`)).text();
      const match = new RegExp(`^api_rpc_endpoint_${name}\\{endpoint="${endpointLabel(proxy.url).replace(".", "\\.")}"\\} (\\S+)$`, "m").exec(page);
      return match === null ? undefined : Number(match[1]);
    };
    const until = async (holds: () => Promise<boolean>, what: string) => {
      const deadline = Date.now() + 10_000;
      while (!(await holds())) {
        if (Date.now() > deadline) throw new Error(`${what} within 10 s`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    };
    return { api, gauge, until };
  };

  it("sets aside the endpoint lagging by more than RPC_MAX_HEAD_LAG_BLOCKS at its first probe and answers /ready from the healthy one", async () => {
    // One probe (at start) in the whole test: every later request is /ready's.
    const { api, gauge, until } = await startWith(60_000);
    try {
      await until(async () => (await gauge("usable", lagging)) === 0 && (await gauge("selected", healthy)) === 1, "the lagging endpoint set aside");
      expect(await gauge("head_lag_blocks", lagging)).to.equal(LAG);
      const from = { lagging: lagging.calls.length, healthy: healthy.calls.length };
      const ready = await fetch(`${api.url}/ready`);
      expect(ready.status).to.equal(200);
      expect(lagging.calls.length).to.equal(from.lagging);
      expect(healthy.calls.slice(from.healthy).map((call) => call.method)).to.include("eth_blockNumber");
    } finally {
      await api.close();
    }
  });

  it("takes the lagging endpoint back in rotation once it catches up", async () => {
    const { api, gauge, until } = await startWith(100);
    try {
      await until(async () => (await gauge("usable", lagging)) === 0, "the lagging endpoint set aside");
      lagging.inject(undefined);
      await until(async () => (await gauge("usable", lagging)) === 1 && (await gauge("head_lag_blocks", lagging)) === 0, "the caught-up endpoint back in rotation");
    } finally {
      await api.close();
    }
  });
});
