import { expect } from "chai";
import hre from "hardhat";
import { loadFixture, mine } from "@nomicfoundation/hardhat-network-helpers";
import { parseEventLogs, type Hex } from "viem";
import { gaslessSwapRouterAbi } from "../../sdk";
import { type GaslessStack, gaslessReadyFixture } from "../fixtures/gaslessStack";
import type { RpcProxy } from "../fixtures/rpcProxy";
import { startCrashableRelayer, type CrashableRelayer } from "../fixtures/childRelayer";
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
  let proxy: RpcProxy;
  let stack: GaslessStack;
  let relayer: CrashableRelayer;

  beforeEach(async () => {
    f = await loadFixture(gaslessReadyFixture);
    // No fee bump during a slow restart (a loaded machine): each test expects the transaction it signed.
    relayer = await startCrashableRelayer(f, { signers: 2, env: { RELAYER_RESUBMIT_SECONDS: "300" } });
    ({ stack, proxy } = relayer);
  });
  afterEach(async () => {
    await setAutomine(true);
    await relayer?.close();
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

  it("(a) killed after accepting, before any broadcast: the restarted relayer broadcasts it once", async () => {
    proxy.refuse("eth_call", "eth_sendRawTransaction");
    const { relayId, onchainQuoteId } = await submit();
    await relayer.waitForProxyToSee("eth_call");
    await relayer.kill();
    expect((await stack.status(relayId)).status).to.equal(503);
    proxy.allow();
    await relayer.start();
    await expectConfirmedOnce(relayId, onchainQuoteId);
  });

  it("(b) killed after the broadcast, before the receipt: the restarted relayer finds the mined transaction instead of sending another", async () => {
    await setAutomine(false);
    const { relayId, onchainQuoteId } = await submit();
    const pending = await stack.waitFor(relayId, (relay) => relay.status === "submitted");
    await relayer.kill();
    await mine(1);
    await setAutomine(true);
    await relayer.start();
    expect((await expectConfirmedOnce(relayId, onchainQuoteId)).tx_hash).to.equal(pending.tx_hash);
  });

  it("(b') killed after the node took the transaction but before the relayer heard back: still one fill", async () => {
    proxy.swallow("eth_sendRawTransaction");
    const { relayId, onchainQuoteId } = await submit();
    await relayer.waitForProxyToSee("eth_sendRawTransaction");
    await relayer.kill();
    proxy.allow();
    await relayer.start();
    await expectConfirmedOnce(relayId, onchainQuoteId);
  });

  it("(c) killed while the transaction is pending in the mempool: the restarted relayer rebroadcasts what it signed, with the same nonce", async () => {
    await setAutomine(false);
    const { relayId, onchainQuoteId } = await submit();
    const pending = await stack.waitFor(relayId, (relay) => relay.status === "submitted");
    await relayer.kill();
    // The node forgets it (as a node restart would): only the relayer's database still has it.
    await hre.network.provider.request({ method: "hardhat_dropTransaction", params: [pending.tx_hash] });
    proxy.seen.length = 0;
    await relayer.start();
    await relayer.waitForProxyToSee("eth_sendRawTransaction");
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
