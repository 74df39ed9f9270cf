import { expect } from "chai";
import hre from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { http, parseUnits } from "viem";
import { startChainServer, type ChainServer } from "../../scripts/devnet/chainServer";
import { endpointLabel } from "../../sdk/rpc/endpointLabel";
import { settlementsByQuote, submitTogether } from "../fixtures/batchRelays";
import { fundedTakers, gaslessReadyFixture, startGaslessStack, testRelayerConfig, type GaslessStack } from "../fixtures/gaslessStack";
import { startRpcProxy, type RpcProxy } from "../fixtures/rpcProxy";
import type { SettlementFixture } from "../fixtures/settlementFixture";

/**
 * RELAYER_SEND_URLS: signed transactions go to every listed endpoint at once (one proxy each, in
 * front of the same chain), reads stay on the read endpoint, and one endpoint down costs nothing.
 */
describe("relayer send endpoints (RELAYER_SEND_URLS)", function () {
  this.timeout(120_000);
  let f: SettlementFixture;
  let chain: ChainServer;
  let reads: RpcProxy;
  let sendA: RpcProxy;
  let sendB: RpcProxy;
  let stack: GaslessStack | undefined;
  beforeEach(async () => {
    f = await loadFixture(gaslessReadyFixture);
    chain = await startChainServer(hre, "127.0.0.1", 0);
    [reads, sendA, sendB] = await Promise.all([startRpcProxy(chain.url), startRpcProxy(chain.url), startRpcProxy(chain.url)]);
  });
  afterEach(async () => {
    await stack?.close();
    stack = undefined;
    for (const proxy of [reads, sendA, sendB]) await proxy.close();
    await chain.close();
  });

  const start = () =>
    startGaslessStack(f, {
      signers: 2,
      relayerTransport: http(reads.url, { retryCount: 0, timeout: 5_000 }),
      relayerEnv: { RELAYER_SEND_URLS: `${sendA.url}, ${sendB.url}` },
    });
  const sendOutcomes = async () =>
    Object.fromEntries((await stack!.relayer!.context.metrics!.sendEndpoints.get()).values.map((value) => [`${value.labels.endpoint}:${value.labels.outcome}`, value.value]));
  const sends = (proxy: RpcProxy) => proxy.seen.filter((method) => method === "eth_sendRawTransaction").length;

  it("sends each signed transaction to every send endpoint and none to the read endpoint; the relays confirm once each", async () => {
    stack = await start();
    const relays = await submitTogether(stack, await fundedTakers(f, 3), parseUnits("20", 6));
    const done = await Promise.all(relays.map(({ relayId }) => stack!.waitFor(relayId)));
    expect(done.map((relay) => relay.status)).to.deep.equal(["confirmed", "confirmed", "confirmed"]);
    const settled = await settlementsByQuote(f);
    expect(relays.map(({ onchainQuoteId }) => settled.get(onchainQuoteId))).to.deep.equal([1, 1, 1]);
    expect(sends(reads)).to.equal(0);
    expect(sends(sendA)).to.be.greaterThan(0);
    expect(sends(sendB)).to.equal(sends(sendA));
    // Both endpoints front one chain: whichever comes second may hear "already known" or "nonce too low".
    const outcomes = await sendOutcomes();
    const count = (proxy: RpcProxy, outcome: string) => outcomes[`${endpointLabel(proxy.url)}:${outcome}`] ?? 0;
    for (const proxy of [sendA, sendB]) expect(count(proxy, "accepted") + count(proxy, "refused")).to.equal(sends(proxy));
    expect(count(sendA, "accepted") + count(sendB, "accepted")).to.be.at.least(sends(sendA));
  });

  it("one send endpoint down: the other takes the transactions, the relays confirm, and the metric counts the unreachable one", async () => {
    stack = await start();
    sendA.down();
    const relays = await submitTogether(stack, await fundedTakers(f, 2), parseUnits("20", 6));
    const done = await Promise.all(relays.map(({ relayId }) => stack!.waitFor(relayId)));
    expect(done.map((relay) => relay.status)).to.deep.equal(["confirmed", "confirmed"]);
    const outcomes = await sendOutcomes();
    expect(outcomes[`${endpointLabel(sendA.url)}:unreachable`]).to.be.greaterThan(0);
    expect(outcomes[`${endpointLabel(sendB.url)}:accepted`]).to.be.greaterThan(0);
  });

  it("refuses a RELAYER_SEND_URLS entry that is not an http(s) URL, naming the variable", () => {
    const directory = mkdtempSync(join(tmpdir(), "send-urls-"));
    try {
      expect(() => testRelayerConfig(directory, { RELAYER_SEND_URLS: "http://127.0.0.1:8545,ws://127.0.0.1:8546" })).to.throw(/RELAYER_SEND_URLS/);
      expect(testRelayerConfig(directory, { RELAYER_SEND_URLS: " http://a.example:8545 ,https://b.example/key " }).sendUrls).to.deep.equal(["http://a.example:8545", "https://b.example/key"]);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
