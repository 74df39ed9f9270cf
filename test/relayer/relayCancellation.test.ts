import { expect } from "chai";
import hre from "hardhat";
import { loadFixture, mine } from "@nomicfoundation/hardhat-network-helpers";
import { randomUUID } from "node:crypto";
import { http, parseEventLogs, parseUnits, type Hex, type LocalAccount } from "viem";
import { encodeInvalidateNonce, gaslessSwapRouterAbi, permit2Abi, relayCancellationJsonSchema, type GasBudgetJson, type IntegratorGasBudgetJson, type RelayCancellationJson, type RelayJson } from "../../sdk";
import { startChainServer, type ChainServer } from "../../scripts/devnet/chainServer";
import { fundedTakers, gaslessReadyFixture, otherIntegratorKey, RELAYER_TOKEN, relayerAccounts, startGaslessStack, type GaslessStack } from "../fixtures/gaslessStack";
import { startRpcProxy, type RpcProxy } from "../fixtures/rpcProxy";
import type { SettlementFixture } from "../fixtures/settlementFixture";

const setAutomine = (on: boolean) => hre.network.provider.request({ method: "evm_setAutomine", params: [on] });

/**
 * POST /gasless/cancel/{relay_id} against the devnet, the real relayer (its chain reads go through a
 * proxy a test can make refuse a method) and the real API: before the broadcast, after it (the
 * replacement wins, or the swap was mined first), the taker's own invalidation, and who may cancel.
 * Automine off holds a broadcast swap pending until the test mines.
 */
describe("cancelling a gasless relay (devnet, real relayer and API)", function () {
  this.timeout(120_000);
  let f: SettlementFixture;
  let chain: ChainServer;
  let proxy: RpcProxy;
  let stack: GaslessStack;
  beforeEach(async () => {
    f = await loadFixture(gaslessReadyFixture);
    chain = await startChainServer(hre, "127.0.0.1", 0);
    proxy = await startRpcProxy(chain.url);
    stack = await startGaslessStack(f, { relayerTransport: http(proxy.url, { retryCount: 0, timeout: 5_000 }), signers: 1 });
  });
  afterEach(async () => {
    proxy.allow();
    await setAutomine(true);
    await stack.close();
    await proxy.close();
    await chain.close();
  });

  const cancel = (relayId: string, key: string = stack.api.apiKey.secret) => stack.api.request("POST", `/gasless/cancel/${relayId}`, { headers: { authorization: `Bearer ${key}` } });

  async function submitFor(taker: LocalAccount) {
    const quote = (await stack.gaslessQuote(taker.address, { sell_amount: parseUnits("100", 6) })).body;
    const submitted = await stack.submit({ quote_id: quote.quote_id, signature: await stack.sign(quote, taker) });
    expect(submitted.status, JSON.stringify(submitted.body)).to.equal(202);
    return { quote, relayId: submitted.body.relay_id as string, nonce: BigInt(quote.permit2.message.nonce), onchainQuoteId: quote.permit2.message.witness.quoteId as Hex };
  }

  async function fillsOf(onchainQuoteId: Hex) {
    const logs = await f.publicClient.getLogs({ address: f.contracts.gaslessSwapRouter, fromBlock: 0n, toBlock: "latest" });
    return parseEventLogs({ abi: gaslessSwapRouterAbi, logs, eventName: "SwapSettled" }).filter((log) => log.args.quoteId === onchainQuoteId);
  }

  async function nonceSpent(taker: LocalAccount, nonce: bigint): Promise<boolean> {
    const bitmap = await f.publicClient.readContract({ address: f.contracts.permit2, abi: permit2Abi, functionName: "nonceBitmap", args: [taker.address, nonce >> 8n] });
    return (bitmap & (1n << (nonce & 0xffn))) !== 0n;
  }

  /** The integrator's gas budget, as the relayer shows it to the API. */
  async function gasBudget(): Promise<GasBudgetJson> {
    const response = await fetch(`${stack.relayer!.url}/internal/gas-budget?integrator_id=${stack.api.integratorId}`, { headers: { authorization: `Bearer ${RELAYER_TOKEN}` } });
    expect(response.status).to.equal(200);
    return ((await response.json()) as IntegratorGasBudgetJson).integrator;
  }

  /** Gas charged to the taker's and to the integrator's budgets (the unpaid-gas ledger). */
  async function charged(taker: LocalAccount) {
    return stack.relayer!.context.store.unpaidGasCharged({ taker: taker.address, integratorId: stack.api.integratorId, since: new Date(0) });
  }

  async function waitUntil(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (!(await condition())) {
      if (Date.now() > until) throw new Error(`timed out waiting until ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** A relay whose swap the node holds pending (`submitted` is written before the send, so the node is asked). */
  async function pendingSwap(relayId: string): Promise<RelayJson> {
    const pending = await stack.waitFor(relayId, (relay) => relay.status === "submitted");
    await waitUntil(async () => (await f.publicClient.getTransaction({ hash: pending.tx_hash as Hex }).catch(() => undefined)) !== undefined, "the node holds the swap");
    return pending;
  }

  const cancellation = (body: unknown): RelayCancellationJson => relayCancellationJsonSchema.parse(body) as RelayCancellationJson;

  it("before the broadcast: the relay ends cancelled at once and is never sent; the answer carries the taker's invalidation", async () => {
    const [taker] = await fundedTakers(f, 1);
    // The relayer cannot read the chain (eth_call) before its first broadcast: the relay waits in the queue.
    proxy.refuse("eth_call");
    const { relayId, nonce, onchainQuoteId } = await submitFor(taker!);
    await waitUntil(() => proxy.seen.includes("eth_call"), "the relayer tried to check the relay");
    const response = await cancel(relayId);
    expect(response.status, JSON.stringify(response.body)).to.equal(200);
    const answer = cancellation(response.body);
    expect([answer.outcome, answer.relay.status, answer.relay.transactions.length]).to.deep.equal(["cancelled", "cancelled", 0]);
    expect(answer.relay.cancel_requested_at).to.be.a("string");
    expect(answer.invalidate_nonce).to.deep.equal({ chain_id: 4663, from: taker!.address, to: f.contracts.permit2, data: encodeInvalidateNonce(nonce), value: "0", permit2_nonce: nonce.toString() });

    // The queue comes back to it once the chain answers again: it finds it final and sends nothing.
    proxy.allow();
    proxy.seen.length = 0;
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(proxy.seen).to.not.include("eth_sendRawTransaction");
    const relay = (await stack.status(relayId)).body as RelayJson;
    expect([relay.status, relay.transactions.length, relay.tx_hash]).to.deep.equal(["cancelled", 0, null]);
    expect(await fillsOf(onchainQuoteId)).to.have.length(0);
    expect(await nonceSpent(taker!, nonce)).to.equal(false);
    // Nothing was sent: the cancel is free, charged to nobody.
    expect(await charged(taker!)).to.deep.equal({ taker: 0n, integrator: 0n });
    expect(await stack.relayer!.context.store.unpaidGasTotals({})).to.deep.equal([]);
  });

  it("a cancellation racing the first broadcast resolves each relay to exactly one outcome: cancelled and never sent, or replaced at its nonce and cancelled once mined", async () => {
    const takers = await fundedTakers(f, 6);
    // Automine off: whatever went out stays pending, so each cancel meets the relay before or after its broadcast.
    await setAutomine(false);
    // Cancels at staggered moments after each submission: at once (before the relayer's checks end), later
    // (around its broadcast), and for the last one only once it is submitted (surely after its broadcast).
    const delaysMs = [0, 0, 50, 150, 400, -1];
    const results = await Promise.all(
      takers.map(async (taker, index) => {
        const { relayId, onchainQuoteId } = await submitFor(taker);
        const delay = delaysMs[index]!;
        if (delay < 0) await stack.waitFor(relayId, (relay) => relay.status === "submitted");
        else await new Promise((resolve) => setTimeout(resolve, delay));
        const response = await cancel(relayId);
        return { relayId, onchainQuoteId, response };
      }),
    );
    await mine(1);
    const outcomes = new Set<string>();
    for (const { relayId, onchainQuoteId, response } of results) {
      expect(response.status, JSON.stringify(response.body)).to.equal(200);
      const answer = cancellation(response.body);
      outcomes.add(answer.outcome);
      const final = await stack.waitFor(relayId);
      expect([final.status, (await fillsOf(onchainQuoteId)).length]).to.deep.equal(["cancelled", 0]);
      if (answer.outcome === "cancelled") expect(final.transactions).to.deep.equal([]);
      else {
        expect(answer.outcome).to.equal("cancelling");
        // A relay alone is replaced by a self-transfer; one in a batch with others leaves it (the batch
        // is signed again without it), so nothing of its own is mined.
        const mined = final.transactions.filter((transaction) => transaction.mined).map((transaction) => transaction.kind);
        expect(final.batch === null ? mined : [], JSON.stringify(final)).to.deep.equal(final.batch === null ? ["cancel"] : []);
      }
    }
    expect([...outcomes].every((outcome) => outcome === "cancelled" || outcome === "cancelling")).to.equal(true);
    expect(outcomes).to.include("cancelling");
  });

  it("after the broadcast: the pending swap is replaced at its nonce by a self-transfer at bumped fees, the relay stays submitted until it is mined, then ends cancelled and the replacement's gas is charged to the integrator's budget; the taker's invalidation then makes the order unfillable", async () => {
    const [taker] = await fundedTakers(f, 1);
    const budgetBefore = await gasBudget();
    expect([budgetBefore.charged_gas, budgetBefore.remaining_gas]).to.deep.equal([0, budgetBefore.budget_gas]);
    await setAutomine(false);
    const { quote, relayId, nonce, onchainQuoteId } = await submitFor(taker!);
    const pending = await pendingSwap(relayId);
    // The signed swap, read while the node still holds it: the order it carries is tried again below.
    const original = await f.publicClient.getTransaction({ hash: pending.tx_hash as Hex });
    const response = await cancel(relayId);
    expect(response.status, JSON.stringify(response.body)).to.equal(200);
    const answer = cancellation(response.body);
    expect([answer.outcome, answer.relay.status]).to.deep.equal(["cancelling", "submitted"]);
    const [swap, replacement] = answer.relay.transactions;
    expect([swap!.kind, replacement!.kind, replacement!.nonce, replacement!.signer]).to.deep.equal(["swap", "cancel", swap!.nonce, swap!.signer]);
    expect(BigInt(replacement!.max_fee_per_gas) * 100n >= BigInt(swap!.max_fee_per_gas) * 110n).to.equal(true);
    expect(BigInt(replacement!.max_priority_fee_per_gas) * 100n >= BigInt(swap!.max_priority_fee_per_gas) * 110n).to.equal(true);
    // The replacement is what the node holds now, as a zero-value self-transfer.
    const sent = await f.publicClient.getTransaction({ hash: replacement!.hash });
    expect([sent.to?.toLowerCase(), sent.value, sent.input]).to.deep.equal([replacement!.signer.toLowerCase(), 0n, "0x"]);
    // A second request adds nothing; the status stays truthful (still pending) until the chain decides.
    const again = cancellation((await cancel(relayId)).body);
    expect([again.outcome, again.relay.transactions.length]).to.deep.equal(["cancelling", 2]);
    expect(((await stack.status(relayId)).body as RelayJson).status).to.equal("submitted");

    await mine(1);
    const final = await stack.waitFor(relayId);
    expect([final.status, final.reason, final.tx_hash]).to.deep.equal(["cancelled", null, replacement!.hash]);
    expect(final.transactions.map((transaction) => [transaction.kind, transaction.mined])).to.deep.equal([
      ["swap", false],
      ["cancel", true],
    ]);
    expect(await fillsOf(onchainQuoteId)).to.have.length(0);
    expect(await f.publicClient.getTransactionCount({ address: relayerAccounts(1).signers[0]!.address })).to.equal(swap!.nonce + 1);
    // The replacement's receipt is the ledger entry: the integrator caused it, the taker did not.
    const replaced = await f.publicClient.getTransactionReceipt({ hash: replacement!.hash });
    expect(replaced.gasUsed).to.equal(21_000n);
    expect(await stack.relayer!.context.store.unpaidGasTotals({})).to.deep.equal([
      { cause: "integrator", kind: "cancel_replacement", entries: 1, gasUsed: 21_000n, weiPaid: Number(21_000n * replaced.effectiveGasPrice) },
    ]);
    expect(await charged(taker!)).to.deep.equal({ taker: 0n, integrator: 21_000n });
    const budgetAfter = await gasBudget();
    expect([budgetAfter.charged_gas, budgetAfter.remaining_gas, budgetAfter.spent]).to.deep.equal([21_000, budgetBefore.budget_gas - 21_000, false]);
    expect((await cancel(relayId)).body).to.include({ code: "relay_final", status: "cancelled" });

    // The signature is still valid until the taker kills it: its own wallet sends the answer's calldata.
    await setAutomine(true);
    await f.publicClient.call({ account: f.stranger.account, to: original.to!, data: original.input });
    const wallet = await hre.viem.getWalletClient(taker!.address, { account: taker! });
    const invalidation = await wallet.sendTransaction({ to: answer.invalidate_nonce.to, data: answer.invalidate_nonce.data });
    expect((await f.publicClient.waitForTransactionReceipt({ hash: invalidation })).status).to.equal("success");
    expect(await nonceSpent(taker!, nonce)).to.equal(true);
    const refill = await f.publicClient.call({ account: f.stranger.account, to: original.to!, data: original.input }).then(
      () => "filled",
      (error: Error) => error.message,
    );
    expect(refill).to.match(/InvalidNonce|0x756688fe|revert/i);
    expect(quote.permit2.message.nonce).to.equal(nonce.toString());
  });

  it("a relay marked for cancellation whose swap is still the latest (the request was served by another relayer, or this one died before replacing it) is replaced by the watcher and ends cancelled", async () => {
    const [taker] = await fundedTakers(f, 1);
    await setAutomine(false);
    const { relayId, onchainQuoteId } = await submitFor(taker!);
    await pendingSwap(relayId);
    // Only the mark, as the store of a relayer that answered the request without the relay's signer leaves it.
    expect((await stack.relayer!.context.store.requestCancellation(relayId, new Date()))?.decision).to.equal("cancelling");
    const replaced = await stack.waitFor(relayId, (relay) => relay.transactions.some((transaction) => transaction.kind === "cancel"));
    expect(replaced.status).to.equal("submitted");
    await mine(1);
    const final = await stack.waitFor(relayId);
    expect([final.status, final.transactions.map((transaction) => [transaction.kind, transaction.mined])]).to.deep.equal([
      "cancelled",
      [
        ["swap", false],
        ["cancel", true],
      ],
    ]);
    expect(await fillsOf(onchainQuoteId)).to.have.length(0);
  });

  it("after the broadcast, when the swap is mined before the replacement: the answer said cancelling, and the relay ends confirmed with the swap", async () => {
    const [taker] = await fundedTakers(f, 1);
    await setAutomine(false);
    const { relayId, onchainQuoteId } = await submitFor(taker!);
    const pending = await pendingSwap(relayId);
    // The replacement is signed and persisted, but the node never gets it: the swap stays in the mempool.
    proxy.refuse("eth_sendRawTransaction");
    const answer = cancellation((await cancel(relayId)).body);
    expect([answer.outcome, answer.relay.status, answer.relay.transactions.map((transaction) => transaction.kind)]).to.deep.equal(["cancelling", "submitted", ["swap", "cancel"]]);
    await mine(1);
    const final = await stack.waitFor(relayId);
    expect([final.status, final.tx_hash]).to.deep.equal(["confirmed", pending.tx_hash]);
    expect(final.cancel_requested_at).to.equal(answer.relay.cancel_requested_at);
    expect(final.transactions.map((transaction) => [transaction.kind, transaction.mined])).to.deep.equal([
      ["swap", true],
      ["cancel", false],
    ]);
    expect(await fillsOf(onchainQuoteId)).to.have.length(1);
  });

  it("a swap that reverts because the taker invalidated its nonce after the cancellation ends cancelled, and its gas is charged to the integrator that cancelled, not to the taker", async () => {
    const [taker] = await fundedTakers(f, 1);
    await setAutomine(false);
    const { relayId, nonce } = await submitFor(taker!);
    const pending = await pendingSwap(relayId);
    proxy.refuse("eth_sendRawTransaction");
    const answer = cancellation((await cancel(relayId)).body);
    expect(answer.outcome).to.equal("cancelling");
    // The taker's invalidation, with a higher tip, is mined before the relayer's swap in the same block.
    const original = await f.publicClient.getTransaction({ hash: pending.tx_hash as Hex });
    const wallet = await hre.viem.getWalletClient(taker!.address, { account: taker! });
    // An explicit gas limit: estimated against the pending block (the swap first), the bit's word would
    // already be non-zero there and the estimate too low for the fresh storage slot it writes.
    const invalidation = await wallet.sendTransaction({
      to: answer.invalidate_nonce.to,
      data: answer.invalidate_nonce.data,
      gas: 100_000n,
      maxFeePerGas: original.maxFeePerGas! * 2n,
      maxPriorityFeePerGas: original.maxPriorityFeePerGas! * 2n,
    });
    await mine(1);
    expect((await f.publicClient.getTransactionReceipt({ hash: invalidation })).status).to.equal("success");
    expect((await f.publicClient.getTransactionReceipt({ hash: pending.tx_hash as Hex })).status).to.equal("reverted");
    const final = await stack.waitFor(relayId);
    expect([final.status, final.tx_hash]).to.deep.equal(["cancelled", pending.tx_hash]);
    expect(await nonceSpent(taker!, nonce)).to.equal(true);
    // The reverted swap's gas is the cancellation's cost: the integrator's, not the taker's.
    const reverted = await f.publicClient.getTransactionReceipt({ hash: pending.tx_hash as Hex });
    expect(await charged(taker!)).to.deep.equal({ taker: 0n, integrator: reverted.gasUsed });
    expect((await stack.relayer!.context.store.unpaidGasTotals({})).map((total) => [total.cause, total.kind])).to.deep.equal([["integrator", "reverted_swap"]]);
  });

  it("once the integrator's gas budget is spent, a cancel of a broadcast swap is refused (403 gasless_integrator_gas_budget_spent, with when it frees up) and nothing is sent; a cancel before the broadcast stays free", async () => {
    const [taker, other] = await fundedTakers(f, 2);
    // Two relays accepted while the budget still served: one broadcast (pending), one not yet (the
    // relayer cannot read the chain before its first broadcast, so it waits in the queue).
    await setAutomine(false);
    const broadcast = await submitFor(taker!);
    const pending = await pendingSwap(broadcast.relayId);
    proxy.refuse("eth_call");
    const unsent = await submitFor(other!);
    await waitUntil(() => proxy.seen.includes("eth_call"), "the relayer tried to check the second relay");

    // Then the budget is spent by the integrator's earlier cancels, as the ledger holds them.
    const spentAt = new Date();
    const budget = (await gasBudget()).budget_gas;
    await stack.relayer!.context.store.recordUnpaidGas({
      relayId: randomUUID(),
      taker: other!.address,
      integratorId: stack.api.integratorId,
      cause: "integrator",
      kind: "cancel_replacement",
      gasUsed: BigInt(budget),
      gasPrice: 1_000_000_000n,
      txHash: `0x${"cd".repeat(32)}`,
      at: spentAt,
      detail: "earlier cancels",
    });
    expect((await gasBudget()).spent).to.equal(true);

    proxy.seen.length = 0;
    const refused = await cancel(broadcast.relayId);
    expect([refused.status, (refused.body as { code: string }).code], JSON.stringify(refused.body)).to.deep.equal([403, "gasless_integrator_gas_budget_spent"]);
    const body = refused.body as { budget: string; budget_gas: number; charged_gas: number; frees_at: string; error: string };
    expect([body.budget, body.budget_gas, body.charged_gas, body.frees_at]).to.deep.equal(["integrator", budget, budget, new Date(spentAt.getTime() + 24 * 3_600_000).toISOString()]);
    expect(body.error).to.match(/cancels of swaps already broadcast .* are refused until/);
    expect(proxy.seen, "nothing sent").to.not.include("eth_sendRawTransaction");
    const after = (await stack.status(broadcast.relayId)).body as RelayJson;
    expect([after.status, after.cancel_requested_at, after.transactions.map((transaction) => transaction.kind)]).to.deep.equal(["submitted", null, ["swap"]]);

    // Before its broadcast, a relay is still cancelled at once: nothing is sent, nothing is charged.
    const free = await cancel(unsent.relayId);
    expect([free.status, cancellation(free.body).outcome], JSON.stringify(free.body)).to.deep.equal([200, "cancelled"]);
    proxy.allow();

    // The refused cancel left the swap to go on: it settles.
    await mine(1);
    const final = await stack.waitFor(broadcast.relayId);
    expect([final.status, final.tx_hash]).to.deep.equal(["confirmed", pending.tx_hash]);
    expect(await fillsOf(broadcast.onchainQuoteId)).to.have.length(1);
    expect(((await stack.status(unsent.relayId)).body as RelayJson).status).to.equal("cancelled");
    expect((await gasBudget()).charged_gas).to.equal(budget);
  });

  it("only the submitting integrator may cancel: another key and an unknown id get 404, a malformed id 400, and a final relay 409 with its status", async () => {
    const [taker] = await fundedTakers(f, 1);
    const { relayId } = await submitFor(taker!);
    const confirmed = await stack.waitFor(relayId);
    expect(confirmed.status).to.equal("confirmed");
    const other = await otherIntegratorKey(stack.api.url);
    const foreign = await cancel(relayId, other);
    expect([foreign.status, foreign.body.code]).to.deep.equal([404, "relay_not_found"]);
    const unknown = await cancel(randomUUID());
    expect([unknown.status, unknown.body.code]).to.deep.equal([404, "relay_not_found"]);
    const malformed = await cancel("not-a-relay");
    expect([malformed.status, malformed.body.code]).to.deep.equal([400, "invalid_request"]);
    expect(malformed.body.error).to.include("relay_id");
    const final = await cancel(relayId);
    expect(final.status).to.equal(409);
    expect(final.body).to.include({ code: "relay_final", status: "confirmed", relay_id: relayId });
    // The other integrator's attempt changed nothing.
    expect(((await stack.status(relayId)).body as RelayJson).cancel_requested_at).to.equal(null);
  });
});
