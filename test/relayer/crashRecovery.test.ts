import { expect } from "chai";
import hre from "hardhat";
import { loadFixture, mine } from "@nomicfoundation/hardhat-network-helpers";
import { join } from "node:path";
import { erc20Abi, maxUint256, parseEventLogs, type Hex } from "viem";
import { gaslessSwapRouterAbi } from "../../sdk";
import { startChainServer, type ChainServer } from "../../scripts/devnet/chainServer";
import { freePort } from "../../scripts/devnet/freePort";
import { spawnService, type SpawnedService } from "../../scripts/devnet/spawnService";
import { RELAYER_TOKEN, relayerAccounts, startGaslessStack, type GaslessStack, gaslessReadyFixture } from "../fixtures/gaslessStack";
import { startRpcProxy, type RpcProxy } from "../fixtures/rpcProxy";
import type { SettlementFixture } from "../fixtures/settlementFixture";

const setAutomine = (on: boolean) => hre.network.provider.request({ method: "evm_setAutomine", params: [on] });

/**
 * The relayer as production runs it, a child process of its own, killed with SIGKILL at the worst
 * moments and restarted on the same database: each relay must still end confirmed with exactly one
 * SwapSettled for its quote.
 */
describe("relayer crash safety (a real child process, SIGKILL)", function () {
  this.timeout(120_000);
  let f: SettlementFixture;
  let chain: ChainServer;
  let proxy: RpcProxy;
  let stack: GaslessStack;
  let port: number;
  let relayer: SpawnedService | undefined;

  const startRelayerProcess = async () => {
    relayer = await spawnService(
      "relayer/main.ts",
      {
        RELAYER_PRIVATE_KEYS: relayerAccounts(2).signers.map((account) => account.privateKey).join(","),
        RELAYER_INTERNAL_TOKEN: RELAYER_TOKEN,
        RPC_URL: proxy.url,
        DEPLOYMENTS_DIR: stack.directory,
        RELAYER_DB_PATH: join(stack.directory, "relayer.sqlite"),
        RELAYER_PORT: String(port),
        RELAYER_POLL_MS: "50",
        RELAYER_LOG_LEVEL: "warn",
      },
      /^Relayer on (\S+)$/m,
    );
  };

  beforeEach(async () => {
    f = await loadFixture(gaslessReadyFixture);
    chain = await startChainServer(hre, "127.0.0.1", 0);
    proxy = await startRpcProxy(chain.url);
    port = await freePort();
    stack = await startGaslessStack(f, { relayerUrl: `http://127.0.0.1:${port}` });
    await startRelayerProcess();
  });
  afterEach(async () => {
    await setAutomine(true);
    await relayer?.stop("SIGKILL");
    await stack.close();
    await proxy.close();
    await chain.close();
  });

  async function submit() {
    const taker = f.signerOf(f.taker.account.address);
    const quote = (await stack.gaslessQuote(taker.address)).body;
    const response = await stack.submit({ quote_id: quote.quote_id, signature: await stack.sign(quote, taker) });
    expect(response.status, JSON.stringify(response.body)).to.equal(202);
    return { onchainQuoteId: quote.permit2.message.witness.quoteId as Hex, relayId: response.body.relay_id as string };
  }

  async function settledOnce(onchainQuoteId: Hex) {
    const logs = await f.publicClient.getLogs({ address: f.contracts.gaslessSwapRouter, fromBlock: 0n, toBlock: "latest" });
    return parseEventLogs({ abi: gaslessSwapRouterAbi, logs, eventName: "SwapSettled" }).filter((log) => log.args.quoteId === onchainQuoteId);
  }

  /** The relay ended confirmed, with one transaction of its own, and its quote settled exactly once on chain. */
  async function expectConfirmedOnce(relayId: string, onchainQuoteId: Hex) {
    const relay = await stack.waitFor(relayId);
    expect(relay.status).to.equal("confirmed");
    expect(relay.transactions).to.have.length(1);
    expect(await settledOnce(onchainQuoteId)).to.have.length(1);
    return relay;
  }

  async function waitForProxyToSee(method: string) {
    const until = Date.now() + 15_000;
    while (!proxy.seen.includes(method)) {
      if (Date.now() > until) throw new Error(`the relayer never called ${method}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it("(a) killed after accepting, before any broadcast: the restarted relayer broadcasts it once", async () => {
    proxy.refuse("eth_call", "eth_sendRawTransaction");
    const { relayId, onchainQuoteId } = await submit();
    await waitForProxyToSee("eth_call");
    await relayer!.stop("SIGKILL");
    expect((await stack.status(relayId)).status).to.equal(503);
    proxy.allow();
    await startRelayerProcess();
    await expectConfirmedOnce(relayId, onchainQuoteId);
  });

  it("(b) killed after the broadcast, before the receipt: the restarted relayer finds the mined transaction instead of sending another", async () => {
    await setAutomine(false);
    const { relayId, onchainQuoteId } = await submit();
    const pending = await stack.waitFor(relayId, (relay) => relay.status === "submitted");
    await relayer!.stop("SIGKILL");
    await mine(1);
    await setAutomine(true);
    await startRelayerProcess();
    expect((await expectConfirmedOnce(relayId, onchainQuoteId)).tx_hash).to.equal(pending.tx_hash);
  });

  it("(b') killed after the node took the transaction but before the relayer heard back: still one fill", async () => {
    proxy.swallow("eth_sendRawTransaction");
    const { relayId, onchainQuoteId } = await submit();
    await waitForProxyToSee("eth_sendRawTransaction");
    await relayer!.stop("SIGKILL");
    proxy.allow();
    await startRelayerProcess();
    await expectConfirmedOnce(relayId, onchainQuoteId);
  });

  it("(c) killed while the transaction is pending in the mempool: the restarted relayer rebroadcasts what it signed, with the same nonce", async () => {
    await setAutomine(false);
    const { relayId, onchainQuoteId } = await submit();
    const pending = await stack.waitFor(relayId, (relay) => relay.status === "submitted");
    await relayer!.stop("SIGKILL");
    // The node forgets it (as a node restart would): only the relayer's database still has it.
    await hre.network.provider.request({ method: "hardhat_dropTransaction", params: [pending.tx_hash] });
    proxy.seen.length = 0;
    await startRelayerProcess();
    await waitForProxyToSee("eth_sendRawTransaction");
    const until = Date.now() + 10_000;
    while ((await f.publicClient.getTransaction({ hash: pending.tx_hash as Hex }).catch(() => undefined)) === undefined) {
      if (Date.now() > until) throw new Error("the restarted relayer did not rebroadcast the signed transaction");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await mine(1);
    const relay = await stack.waitFor(relayId);
    expect([relay.status, relay.tx_hash]).to.deep.equal(["confirmed", pending.tx_hash]);
    expect(await settledOnce(onchainQuoteId)).to.have.length(1);
  });
});
