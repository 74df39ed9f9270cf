import { expect } from "chai";
import hre from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { parseUnits } from "viem";
import { loadRelayerConfig } from "../../relayer/config";
import { startChainServer, type ChainServer } from "../../scripts/devnet/chainServer";
import { freePort } from "../../scripts/devnet/freePort";
import type { SpawnedService } from "../../scripts/devnet/spawnService";
import { endpointLabel } from "../../sdk/rpc/endpointLabel";
import { settlementsByQuote, submitTogether } from "../fixtures/batchRelays";
import { spawnChildRelayer } from "../fixtures/childRelayer";
import { fundedTakers, gaslessReadyFixture, relayerAccounts, startGaslessStack, type GaslessStack } from "../fixtures/gaslessStack";
import { startRpcProxy, type RpcProxy } from "../fixtures/rpcProxy";
import type { SettlementFixture } from "../fixtures/settlementFixture";

const HEAD_METHODS = new Set(["eth_blockNumber", "eth_getBlockByNumber"]);
const LAG = 10;

/** The relayer's metrics as `name{endpoint="…"}` → value, scraped from its metrics port. */
async function scrape(metricsUrl: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${metricsUrl}/metrics`)).text();
  const values = new Map<string, number>();
  for (const match of text.matchAll(/^(relayer_rpc_endpoint_[a-z_]+)\{endpoint="([^"]+)"(?:,outcome="([^"]+)")?\} (\S+)$/gm)) {
    values.set(`${match[1]}{${match[2]}${match[3] === undefined ? "" : `,${match[3]}`}}`, Number(match[4]));
  }
  return values;
}

/**
 * RPC_URLS: the relayer (a child process, as production runs it) reads through three proxies in front
 * of one chain: one serving a head LAG blocks old (a node that stopped following the chain), one
 * answering every request with HTTP 502, and a healthy one. Reads go to the healthy one; the lagging
 * node comes back once it catches up, and takes over when the healthy one dies.
 */
describe("relayer read endpoints (RPC_URLS)", function () {
  this.timeout(180_000);
  let f: SettlementFixture;
  let chain: ChainServer;
  let lagging: RpcProxy;
  let failing: RpcProxy;
  let healthy: RpcProxy;
  let stack: GaslessStack | undefined;
  let relayer: SpawnedService | undefined;
  beforeEach(async () => {
    f = await loadFixture(gaslessReadyFixture);
    // The lagging node's head is LAG blocks below the tip: the chain needs more blocks than that.
    await hre.network.provider.send("hardhat_mine", [`0x${(LAG * 2).toString(16)}`]);
    chain = await startChainServer(hre, "127.0.0.1", 0);
    [lagging, failing, healthy] = await Promise.all([startRpcProxy(chain.url), startRpcProxy(chain.url), startRpcProxy(chain.url)]);
    lagging.inject((calls) => (calls.some((call) => HEAD_METHODS.has(call.method)) ? { kind: "stale", blocks: LAG } : undefined));
    failing.inject(() => ({ kind: "status", status: 502 }));
  });
  afterEach(async () => {
    await relayer?.stop("SIGKILL");
    relayer = undefined;
    await stack?.close();
    stack = undefined;
    for (const proxy of [lagging, failing, healthy]) await proxy.close();
    await chain.close();
  });

  const start = async () => {
    const port = await freePort();
    const metricsPort = await freePort();
    stack = await startGaslessStack(f, { relayerUrl: `http://127.0.0.1:${port}` });
    relayer = await spawnChildRelayer({
      keys: relayerAccounts(2).signers,
      rpcUrl: healthy.url,
      directory: stack.directory,
      port,
      env: {
        // The lagging node first: the configured order alone would pick it.
        RPC_URL: undefined,
        RPC_URLS: [lagging.url, failing.url, healthy.url].join(","),
        RPC_PROBE_MS: "100",
        RPC_MAX_HEAD_LAG_BLOCKS: "3",
        RELAYER_METRICS_PORT: String(metricsPort),
      },
    });
    return `http://127.0.0.1:${metricsPort}`;
  };
  const label = (proxy: RpcProxy) => endpointLabel(proxy.url);
  const until = async (metricsUrl: string, holds: (values: Map<string, number>) => boolean, what: string) => {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const values = await scrape(metricsUrl);
      if (holds(values)) return values;
      if (Date.now() > deadline) throw new Error(`${what} did not happen within 15 s: ${JSON.stringify([...values])}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const relayOnce = async () => {
    const relays = await submitTogether(stack!, await fundedTakers(f, 1), parseUnits("20", 6));
    const done = await Promise.all(relays.map(({ relayId }) => stack!.waitFor(relayId)));
    expect(done.map((relay) => relay.status)).to.deep.equal(["confirmed"]);
    const settled = await settlementsByQuote(f);
    expect(relays.map(({ onchainQuoteId }) => settled.get(onchainQuoteId))).to.deep.equal([1]);
  };
  const methodsSince = (proxy: RpcProxy, from: number) => new Set(proxy.calls.slice(from).map((call) => call.method));

  it("reads from the healthy node, sets aside the one lagging by more than RPC_MAX_HEAD_LAG_BLOCKS and the one answering 502, and counts each endpoint", async () => {
    const metricsUrl = await start();
    const values = await scrape(metricsUrl);
    expect(values.get(`relayer_rpc_endpoint_selected{${label(healthy)}}`)).to.equal(1);
    expect(values.get(`relayer_rpc_endpoint_usable{${label(healthy)}}`)).to.equal(1);
    expect(values.get(`relayer_rpc_endpoint_usable{${label(lagging)}}`)).to.equal(0);
    expect(values.get(`relayer_rpc_endpoint_usable{${label(failing)}}`)).to.equal(0);
    expect(values.get(`relayer_rpc_endpoint_head_lag_blocks{${label(lagging)}}`)).to.equal(LAG);
    expect(values.get(`relayer_rpc_endpoint_head_lag_blocks{${label(healthy)}}`)).to.equal(0);
    expect(values.get(`relayer_rpc_endpoint_requests_total{${label(failing)},failed}`)).to.be.greaterThan(0);
    expect(values.get(`relayer_rpc_endpoint_requests_total{${label(healthy)},answered}`)).to.be.greaterThan(0);

    const [laggingFrom, failingFrom] = [lagging.calls.length, failing.calls.length];
    await relayOnce();
    // The nodes set aside hear only the probes of their heads; the relay's reads and its send went to the healthy one.
    expect([...methodsSince(lagging, laggingFrom)]).to.deep.equal(["eth_blockNumber"]);
    expect([...methodsSince(failing, failingFrom)].every((method) => method === "eth_chainId" || method === "eth_blockNumber")).to.equal(true);
    expect(methodsSince(healthy, 0)).to.include.keys("eth_sendRawTransaction", "eth_getTransactionReceipt");
  });

  it("puts the lagging node back in rotation once it catches up, and reads from it when the healthy node dies", async () => {
    const metricsUrl = await start();
    lagging.inject(undefined);
    await until(
      metricsUrl,
      (values) => values.get(`relayer_rpc_endpoint_usable{${label(lagging)}}`) === 1 && values.get(`relayer_rpc_endpoint_head_lag_blocks{${label(lagging)}}`) === 0,
      "the recovered node back in rotation",
    );
    healthy.down();
    const values = await until(
      metricsUrl,
      (scraped) => scraped.get(`relayer_rpc_endpoint_selected{${label(lagging)}}`) === 1 && scraped.get(`relayer_rpc_endpoint_usable{${label(healthy)}}`) === 0,
      "reads moving to the recovered node",
    );
    expect(values.get(`relayer_rpc_endpoint_selected{${label(healthy)}}`)).to.equal(0);
    expect(values.get(`relayer_rpc_endpoint_usable{${label(failing)}}`)).to.equal(0);
    const from = lagging.calls.length;
    await relayOnce();
    expect(methodsSince(lagging, from)).to.include.keys("eth_sendRawTransaction", "eth_getTransactionReceipt");
  });
});

describe("relayer read endpoint settings (RPC_URLS, RPC_MAX_HEAD_LAG_BLOCKS, RPC_PROBE_MS)", () => {
  const base = { RELAYER_INTERNAL_TOKEN: "test-relayer-secret-0123456789", RELAYER_PRIVATE_KEYS: `0x${"11".repeat(32)}` };

  it("reads a comma-separated RPC_URLS (the first named in errors), defaults the lag to 3 blocks and the probe to 1 s, and keeps RPC_URL alone as one endpoint", () => {
    const config = loadRelayerConfig({ ...base, RPC_URLS: "http://a:8545, https://b.example/key ,http://c:8545" });
    expect(config.rpcUrls).to.deep.equal(["http://a:8545", "https://b.example/key", "http://c:8545"]);
    expect(config.rpcUrl).to.equal("http://a:8545");
    expect([config.rpcMaxHeadLagBlocks, config.rpcProbeMs]).to.deep.equal([3, 1_000]);
    expect(loadRelayerConfig({ ...base, RPC_URL: "http://node:8545" }).rpcUrls).to.deep.equal(["http://node:8545"]);
  });

  it("refuses RPC_URL and RPC_URLS together, a URL that is not http(s), more than 8 URLs, and a negative lag, naming the variable", () => {
    expect(() => loadRelayerConfig({ ...base, RPC_URL: "http://a:8545", RPC_URLS: "http://b:8545" })).to.throw(/RPC_URLS.*not both/);
    expect(() => loadRelayerConfig({ ...base, RPC_URLS: "http://a:8545,ws://b:8546" })).to.throw(/RPC_URLS/);
    expect(() => loadRelayerConfig({ ...base, RPC_URLS: Array.from({ length: 9 }, (_, i) => `http://n${i}:8545`).join(",") })).to.throw(/RPC_URLS/);
    expect(() => loadRelayerConfig({ ...base, RPC_MAX_HEAD_LAG_BLOCKS: "-1" })).to.throw(/RPC_MAX_HEAD_LAG_BLOCKS/);
  });
});
