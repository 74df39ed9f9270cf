import { expect } from "chai";
import hre from "hardhat";
import { loadFixture, mine } from "@nomicfoundation/hardhat-network-helpers";
import { parseEventLogs, parseUnits, type Hex } from "viem";
import { gaslessSwapRouterAbi, type RelayJson } from "../../sdk";
import { fundedTakers, gaslessReadyFixture, type GaslessStack } from "../fixtures/gaslessStack";
import type { RpcProxy } from "../fixtures/rpcProxy";
import { startCrashableRelayer, type CrashableRelayer } from "../fixtures/childRelayer";
import type { SettlementFixture } from "../fixtures/settlementFixture";

const setAutomine = (on: boolean) => hre.network.provider.request({ method: "evm_setAutomine", params: [on] });

/**
 * A cancellation whose relayer (a child process of its own) is killed with SIGKILL after the
 * replacement was persisted and before the node got it, or after the node got it and before the
 * relayer heard back: restarted on the same database, it still ends the relay exactly once.
 */
describe("relay cancellation survives a relayer crash (a real child process, SIGKILL)", function () {
  this.timeout(120_000);
  let f: SettlementFixture;
  let proxy: RpcProxy;
  let stack: GaslessStack;
  let relayer: CrashableRelayer;

  beforeEach(async () => {
    f = await loadFixture(gaslessReadyFixture);
    relayer = await startCrashableRelayer(f, { signers: 1 });
    ({ stack, proxy } = relayer);
  });
  afterEach(async () => {
    await setAutomine(true);
    await relayer?.close();
  });

  const cancel = (relayId: string) => stack.api.request("POST", `/gasless/cancel/${relayId}`, { headers: { authorization: `Bearer ${stack.api.apiKey.secret}` } });

  async function pendingRelay() {
    const [taker] = await fundedTakers(f, 1);
    await setAutomine(false);
    const quote = (await stack.gaslessQuote(taker!.address, { sell_amount: parseUnits("100", 6) })).body;
    const submitted = await stack.submit({ quote_id: quote.quote_id, signature: await stack.sign(quote, taker!) });
    expect(submitted.status, JSON.stringify(submitted.body)).to.equal(202);
    const relayId = submitted.body.relay_id as string;
    const pending = await stack.waitFor(relayId, (relay) => relay.status === "submitted");
    // `submitted` is written before the send: wait until the node holds the swap.
    const until = Date.now() + 15_000;
    while ((await f.publicClient.getTransaction({ hash: pending.tx_hash as Hex }).catch(() => undefined)) === undefined) {
      if (Date.now() > until) throw new Error("the relayer never sent the swap");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return { relayId, pending, onchainQuoteId: quote.permit2.message.witness.quoteId as Hex };
  }

  /** Restarted, the relayer sends what it persisted; once mined, the relay is cancelled exactly once. */
  async function expectCancelledOnce(relayId: string, swap: RelayJson["transactions"][number], onchainQuoteId: Hex) {
    await relayer.start();
    // A restart that takes longer than RELAYER_RESUBMIT_SECONDS sends a bumped cancel instead: any cancel will do.
    const until = Date.now() + 45_000;
    let relay: RelayJson;
    for (;;) {
      relay = (await stack.status(relayId)).body as RelayJson;
      const cancels = relay.transactions.filter((transaction) => transaction.kind === "cancel");
      const held = await Promise.all(cancels.map((cancel) => f.publicClient.getTransaction({ hash: cancel.hash }).then(() => true, () => false)));
      if (held.includes(true)) break;
      if (Date.now() > until) throw new Error(`the restarted relayer did not send the persisted replacement: ${JSON.stringify(relay)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await mine(1);
    const final = await stack.waitFor(relayId);
    expect(final.status).to.equal("cancelled");
    const cancels = final.transactions.filter((transaction) => transaction.kind === "cancel");
    expect(cancels.filter((transaction) => transaction.mined)).to.have.length(1);
    expect(final.transactions.filter((transaction) => transaction.mined)).to.have.length(1);
    expect(new Set(final.transactions.map((transaction) => transaction.nonce))).to.deep.equal(new Set([swap.nonce]));
    const logs = await f.publicClient.getLogs({ address: f.contracts.gaslessSwapRouter, fromBlock: 0n, toBlock: "latest" });
    expect(parseEventLogs({ abi: gaslessSwapRouterAbi, logs, eventName: "SwapSettled" }).filter((log) => log.args.quoteId === onchainQuoteId)).to.have.length(0);
    expect(await f.publicClient.getTransactionCount({ address: swap.signer })).to.equal(swap.nonce + 1);
  }

  it("killed with its swap pending, restarted with the same keys, then cancelled: it holds that signer, so it replaces the swap like its own (cancelling), and the relay ends cancelled once the self-transfer mines", async () => {
    const { relayId, pending, onchainQuoteId } = await pendingRelay();
    await relayer.kill();
    await relayer.start();
    const answer = await cancel(relayId);
    expect([answer.status, answer.body.outcome], JSON.stringify(answer.body)).to.deep.equal([200, "cancelling"]);
    const transactions = (answer.body.relay as RelayJson).transactions;
    expect(transactions.map((transaction) => [transaction.kind, transaction.signer, transaction.nonce])).to.deep.equal([
      ["swap", pending.transactions[0]!.signer, pending.transactions[0]!.nonce],
      ["cancel", pending.transactions[0]!.signer, pending.transactions[0]!.nonce],
    ]);
    await mine(1);
    const final = await stack.waitFor(relayId);
    expect(final.status).to.equal("cancelled");
    expect(final.transactions.filter((transaction) => transaction.mined).map((transaction) => transaction.kind)).to.deep.equal(["cancel"]);
    const logs = await f.publicClient.getLogs({ address: f.contracts.gaslessSwapRouter, fromBlock: 0n, toBlock: "latest" });
    expect(parseEventLogs({ abi: gaslessSwapRouterAbi, logs, eventName: "SwapSettled" }).filter((log) => log.args.quoteId === onchainQuoteId)).to.have.length(0);
  });

  it("killed after persisting the replacement, before the node got it: the restarted relayer sends it and the relay ends cancelled once", async () => {
    const { relayId, pending, onchainQuoteId } = await pendingRelay();
    proxy.refuse("eth_sendRawTransaction");
    const answer = await cancel(relayId);
    expect([answer.status, answer.body.outcome], JSON.stringify(answer.body)).to.deep.equal([200, "cancelling"]);
    expect((answer.body.relay as RelayJson).transactions.map((transaction) => transaction.kind)).to.deep.equal(["swap", "cancel"]);
    // The node still holds only the swap.
    expect((await f.publicClient.getTransaction({ hash: pending.tx_hash as Hex })).hash).to.equal(pending.tx_hash);
    await relayer.kill();
    proxy.allow();
    await expectCancelledOnce(relayId, pending.transactions[0]!, onchainQuoteId);
  });

  it("killed after the node took the replacement, before the relayer heard back: after the restart the relay ends cancelled once", async () => {
    const { relayId, pending, onchainQuoteId } = await pendingRelay();
    proxy.before("eth_sendRawTransaction", async () => {
      await relayer.kill();
      return true;
    });
    const answer = await cancel(relayId);
    // The relayer died mid-request: the API could not hear its answer.
    expect([answer.status, answer.body.code]).to.deep.equal([503, "relayer_unavailable"]);
    await expectCancelledOnce(relayId, pending.transactions[0]!, onchainQuoteId);
  });
});
