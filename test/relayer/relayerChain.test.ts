import { join } from "node:path";
import Database from "better-sqlite3";
import { expect } from "chai";
import pino from "pino";
import hre from "hardhat";
import { loadFixture, mine, time } from "@nomicfoundation/hardhat-network-helpers";
import { getAbiItem, http, parseEventLogs, parseUnits, toFunctionSelector, type Hex, type LocalAccount } from "viem";
import { gaslessSwapRouterAbi, type RelayJson } from "../../sdk";
import { startChainServer, type ChainServer } from "../../scripts/devnet/chainServer";
import { fundedTakers, relayerAccounts, startGaslessStack, type GaslessStack, gaslessReadyFixture } from "../fixtures/gaslessStack";
import { startRpcProxy, type RpcProxy } from "../fixtures/rpcProxy";
import type { SettlementFixture } from "../fixtures/settlementFixture";
import { balanceOf } from "../fixtures/testRoute";

/** Polls `condition` every 20 ms for up to 20 s (the relayer runs in its own timers). */
async function waitUntil(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const setAutomine = (on: boolean) => hre.network.provider.request({ method: "evm_setAutomine", params: [on] });

/** SwapSettled events of the gasless router for one quote id, over the whole chain. */
async function fillsOf(f: SettlementFixture, onchainQuoteId: Hex) {
  const logs = await f.publicClient.getLogs({ address: f.contracts.gaslessSwapRouter, fromBlock: 0n, toBlock: "latest" });
  return parseEventLogs({ abi: gaslessSwapRouterAbi, logs, eventName: "SwapSettled" }).filter((log) => log.args.quoteId === onchainQuoteId);
}

describe("the relayer against a real chain: stuck, copied, expired, unreachable, and busy", function () {
  this.timeout(120_000);
  let f: SettlementFixture;
  let stack: GaslessStack | undefined;
  beforeEach(async () => {
    f = await loadFixture(gaslessReadyFixture);
  });
  afterEach(async () => {
    await setAutomine(true);
    await stack?.close();
    stack = undefined;
  });

  async function submitFor(taker: LocalAccount, params: Record<string, string | bigint | number> = {}) {
    const quote = (await stack!.gaslessQuote(taker.address, params)).body;
    const submitted = await stack!.submit({ quote_id: quote.quote_id, signature: await stack!.sign(quote, taker) });
    expect(submitted.status, JSON.stringify(submitted.body)).to.equal(202);
    return { quote, relayId: submitted.body.relay_id as string };
  }
  const submitted = (relay: RelayJson) => relay.status === "submitted";

  it("a stuck transaction is replaced with both fees raised by at least 10 %, and the replacement confirms; the old hash stays listed", async () => {
    stack = await startGaslessStack(f, { relayerEnv: { RELAYER_RESUBMIT_SECONDS: "0.3" } });
    await setAutomine(false);
    const { quote, relayId } = await submitFor(f.signerOf(f.taker.account.address));
    const pending = await stack.waitFor(relayId, (relay) => relay.transactions.length >= 2);
    await mine(1);
    const relay = await stack.waitFor(relayId);
    expect(relay.status).to.equal("confirmed");
    const [first, ...later] = relay.transactions;
    expect(first!.mined).to.equal(false);
    expect(first!.hash).to.equal(pending.transactions[0]!.hash);
    const mined = relay.transactions.find((transaction) => transaction.mined)!;
    expect(later).to.deep.include(mined);
    expect(relay.tx_hash).to.equal(mined.hash);
    expect(BigInt(later[0]!.max_fee_per_gas) * 100n >= BigInt(first!.max_fee_per_gas) * 110n).to.equal(true);
    expect(BigInt(later[0]!.max_priority_fee_per_gas) * 100n >= BigInt(first!.max_priority_fee_per_gas) * 110n).to.equal(true);
    expect(new Set(relay.transactions.map((transaction) => transaction.nonce)).size).to.equal(1);
    expect(await fillsOf(f, quote.permit2.message.witness.quoteId)).to.have.length(1);
  });

  it("a copier that front-runs the relayer with a higher tip gains nothing: the fee goes to the signed payee and the relayer records the copier's fill", async () => {
    stack = await startGaslessStack(f);
    await setAutomine(false);
    const { quote, relayId } = await submitFor(f.signerOf(f.taker.account.address));
    const relay = await stack.waitFor(relayId, submitted);
    const original = await f.publicClient.getTransaction({ hash: relay.tx_hash as Hex });
    const copierUsdc = await balanceOf(f, f.token("USDC"), f.stranger.account.address);
    const payeeUsdc = await balanceOf(f, f.token("USDC"), stack.feeRecipient);
    const copy = await f.stranger.sendTransaction({
      to: original.to!,
      data: original.input,
      gas: original.gas,
      maxFeePerGas: original.maxFeePerGas! * 3n,
      maxPriorityFeePerGas: original.maxPriorityFeePerGas! * 3n,
    });
    await mine(1);
    const final = await stack.waitFor(relayId);
    expect(final.status).to.equal("confirmed");
    expect(final.tx_hash).to.equal(copy);
    expect(final.transactions.map((transaction) => [transaction.hash, transaction.mined])).to.deep.equal([
      [relay.tx_hash, false],
      [copy, true],
    ]);
    expect(await balanceOf(f, f.token("USDC"), f.stranger.account.address)).to.equal(copierUsdc);
    expect(await balanceOf(f, f.token("USDC"), stack.feeRecipient)).to.equal(payeeUsdc + BigInt(quote.relayer_fee.amount));
    expect(await fillsOf(f, quote.permit2.message.witness.quoteId)).to.have.length(1);
    // Our own swap mined after the copy and reverted: gas the operator paid, written as the market's (counted against nobody).
    const ours = await f.publicClient.getTransactionReceipt({ hash: relay.tx_hash as Hex });
    expect(ours.status).to.equal("reverted");
    const totals = await stack.relayer!.context.store.unpaidGasTotals({});
    expect(totals.map((total) => [total.cause, total.kind, total.entries, total.gasUsed])).to.deep.equal([["market", "reverted_swap", 1, ours.gasUsed]]);
  });

  it("when the deadline passes while pending, the relay expires, a self-transfer frees the signer's nonce, and later relays go through", async () => {
    stack = await startGaslessStack(f, { signers: 1 });
    await setAutomine(false);
    const taker = f.signerOf(f.taker.account.address);
    const { quote, relayId } = await submitFor(taker);
    const pending = await stack.waitFor(relayId, submitted);
    // The node loses the transaction (as a restarted node would); the quote's five minutes then pass.
    await hre.network.provider.request({ method: "hardhat_dropTransaction", params: [pending.tx_hash] });
    await time.increaseTo(BigInt(quote.permit2.message.deadline) + 1n);
    const cancelling = await stack.waitFor(relayId, (relay) => relay.transactions.some((transaction) => transaction.kind === "cancel"));
    const cancel = cancelling.transactions.find((transaction) => transaction.kind === "cancel")!;
    expect(cancel.nonce).to.equal(pending.transactions[0]!.nonce);
    await mine(1);
    const expired = await stack.waitFor(relayId);
    expect([expired.status, expired.reason]).to.deep.equal(["expired", "deadline_passed"]);
    const signer = relayerAccounts(1).signers[0]!.address;
    expect(await f.publicClient.getTransactionCount({ address: signer })).to.equal(cancel.nonce + 1);

    await setAutomine(true);
    const later = await submitFor(taker);
    const confirmed = await stack.waitFor(later.relayId);
    expect(confirmed.status).to.equal("confirmed");
    expect(confirmed.transactions[0]!.nonce).to.equal(cancel.nonce + 1);
  });

  describe("with the chain behind a proxy that can fail", () => {
    let chain: ChainServer;
    let proxy: RpcProxy;
    beforeEach(async () => {
      chain = await startChainServer(hre, "127.0.0.1", 0);
      proxy = await startRpcProxy(chain.url);
    });
    afterEach(async () => {
      await proxy.close();
      await chain.close();
    });

    it("a relay taken over between the relayer's ownership check and its write is never broadcast here, and its nonce goes back", async () => {
      const lines: string[] = [];
      const relayerLogger = pino({ level: "warn" }, { write: (line: string) => void lines.push(line) });
      stack = await startGaslessStack(f, { relayerLogger, relayerTransport: http(proxy.url, { retryCount: 0, timeout: 5_000 }) });
      const relayerDb = join(stack.directory, "relayer.sqlite");
      // The relayer's first chain read after it decided the relay is its own (the Permit2 nonce check,
      // then the simulation): another relayer claims the relay right then.
      // At the swap's own simulation, past the ownership check: no other eth_call (the registry's poll,
      // the Permit2 nonce read) may run the lease out before that check instead.
      const swapGasless = toFunctionSelector(getAbiItem({ abi: gaslessSwapRouterAbi, name: "swapGasless" }));
      proxy.before("eth_call", (params) => {
        if (!((params[0] as { data?: string } | undefined)?.data ?? "").startsWith(swapGasless)) return false;
        const db = new Database(relayerDb);
        try {
          return db.prepare("UPDATE relays SET claimed_by = 'relayer-other', lease_until = ? WHERE status = 'accepted'").run(Date.now() + 3_600_000).changes > 0;
        } finally {
          db.close();
        }
      });
      const signers = relayerAccounts(4).signers.map((signer) => signer.address);
      const nonces = async () => Promise.all(signers.map((signer) => f.publicClient.getTransactionCount({ address: signer, blockTag: "pending" })));
      const before = await nonces();
      const taken = await submitFor(f.signerOf(f.taker.account.address));
      await waitUntil(() => lines.some((line) => line.includes("taken over before its transaction was recorded")));
      const relay = (await stack.status(taken.relayId)).body as RelayJson;
      expect([relay.status, relay.transactions]).to.deep.equal(["accepted", []]);
      expect(proxy.seen).to.not.include("eth_sendRawTransaction");

      // The nonce it had taken went back: the next relay uses it, and nothing waits behind a gap.
      const [next] = await fundedTakers(f, 1);
      const { relayId } = await submitFor(next!);
      const confirmed = await stack.waitFor(relayId);
      expect(confirmed.status, JSON.stringify(confirmed)).to.equal("confirmed");
      const sent = confirmed.transactions[0]!;
      expect(sent.nonce).to.equal(before[signers.indexOf(sent.signer as Hex)]);
      expect(await nonces()).to.deep.equal(before.map((nonce, index) => (signers[index] === sent.signer ? nonce + 1 : nonce)));
    });

    it("a relay whose lease lapsed between the ownership check and the write waits for a renewal, then confirms once", async () => {
      const lines: string[] = [];
      const relayerLogger = pino({ level: "warn" }, { write: (line: string) => void lines.push(line) });
      // Leases of 1.5 s, renewed every half second: a lapse is soon mended.
      stack = await startGaslessStack(f, { relayerLogger, relayerTransport: http(proxy.url, { retryCount: 0, timeout: 5_000 }), relayerEnv: { RELAYER_LEASE_SECONDS: "1.5" } });
      const relayerDb = join(stack.directory, "relayer.sqlite");
      // At the swap's own simulation, past the ownership check: no other eth_call (the registry's poll,
      // the Permit2 nonce read) may run the lease out before that check instead.
      const swapGasless = toFunctionSelector(getAbiItem({ abi: gaslessSwapRouterAbi, name: "swapGasless" }));
      proxy.before("eth_call", (params) => {
        if (!((params[0] as { data?: string } | undefined)?.data ?? "").startsWith(swapGasless)) return false;
        const db = new Database(relayerDb);
        try {
          // Still this relayer's claim, but run out (as after renewals failed during a database outage).
          return db.prepare("UPDATE relays SET lease_until = ? WHERE status = 'accepted' AND claimed_by IS NOT NULL").run(Date.now() - 1).changes > 0;
        } finally {
          db.close();
        }
      });
      const { quote, relayId } = await submitFor(f.signerOf(f.taker.account.address));
      const relay = await stack.waitFor(relayId);
      expect(relay.status, JSON.stringify(relay)).to.equal("confirmed");
      expect(lines.some((line) => line.includes("lease on the relay lapsed before the broadcast was recorded"))).to.equal(true);
      expect(relay.transactions).to.have.length(1);
      expect(await fillsOf(f, quote.permit2.message.witness.quoteId)).to.have.length(1);
    });

    it("a node unreachable for a few seconds mid-flight delays the relay but never fails it; it confirms once", async () => {
      stack = await startGaslessStack(f, { relayerTransport: http(proxy.url, { retryCount: 0, timeout: 2_000 }) });
      proxy.refuse("eth_call", "eth_sendRawTransaction");
      const { quote, relayId } = await submitFor(f.signerOf(f.taker.account.address));
      await waitUntil(() => proxy.seen.includes("eth_call"));
      proxy.down();
      // The outage itself is the scenario: it lasts real seconds, during which the relay must survive.
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      expect((await stack.status(relayId)).body.status).to.equal("accepted");
      proxy.allow();
      proxy.up();
      const relay = await stack.waitFor(relayId);
      expect(relay.status).to.equal("confirmed");
      expect(await fillsOf(f, quote.permit2.message.witness.quoteId)).to.have.length(1);
    });
    it("a node whose txpool is full delays the relay without failing it; once it takes transactions the relay confirms once", async () => {
      stack = await startGaslessStack(f, { relayerTransport: http(proxy.url, { retryCount: 0, timeout: 2_000 }) });
      proxy.fail("eth_sendRawTransaction", "txpool is full");
      const { quote, relayId } = await submitFor(f.signerOf(f.taker.account.address));
      // Refused twice, and still waiting: the nonce went back each time, nothing failed. The refused
      // transactions stay listed (each was stored before it was offered), none of them mined.
      await waitUntil(() => proxy.seen.filter((method) => method === "eth_sendRawTransaction").length >= 2);
      const waiting = (await stack.status(relayId)).body;
      expect(waiting.status).to.be.oneOf(["accepted", "submitted"]);
      expect(waiting.reason).to.equal(null);
      proxy.allow();
      const relay = await stack.waitFor(relayId);
      expect(relay.status, JSON.stringify(relay)).to.equal("confirmed");
      expect(relay.transactions.filter((transaction) => transaction.mined)).to.have.length(1);
      expect(new Set(relay.transactions.map((transaction) => transaction.nonce)).size).to.equal(1);
      expect(await fillsOf(f, quote.permit2.message.witness.quoteId)).to.have.length(1);
    });

    it("a base fee above RELAYER_MAX_FEE_GWEI holds the relay, unsent, until the base fee falls; then it confirms", async () => {
      await hre.network.provider.request({ method: "hardhat_setNextBlockBaseFeePerGas", params: [`0x${parseUnits("20", 9).toString(16)}`] });
      await mine(1);
      stack = await startGaslessStack(f, { relayerTransport: http(proxy.url, { retryCount: 0, timeout: 2_000 }), relayerEnv: { RELAYER_MAX_FEE_GWEI: "4" } });
      const { quote, relayId } = await submitFor(f.signerOf(f.taker.account.address));
      const checks = () => proxy.seen.filter((method) => method === "eth_call").length;
      const before = checks();
      // Three more rounds of checks (each reads the Permit2 nonce) and not one broadcast.
      await waitUntil(() => checks() >= before + 3);
      expect(proxy.seen).to.not.include("eth_sendRawTransaction");
      expect((await stack.status(relayId)).body.status).to.equal("accepted");
      await hre.network.provider.request({ method: "hardhat_setNextBlockBaseFeePerGas", params: [`0x${parseUnits("1", 9).toString(16)}`] });
      await mine(1);
      const relay = await stack.waitFor(relayId, undefined, 60_000);
      expect(relay.status).to.equal("confirmed");
      expect(BigInt(relay.transactions[0]!.max_fee_per_gas) <= parseUnits("4", 9)).to.equal(true);
      expect(await fillsOf(f, quote.permit2.message.witness.quoteId)).to.have.length(1);
    });
  });

  it("a relay another relayer took over (this one's lease lapsed) is left alone: never broadcast here", async () => {
    const lines: string[] = [];
    const relayerLogger = pino({ level: "warn" }, { write: (line: string) => void lines.push(line) });
    // A base fee over the ceiling keeps the relay waiting in the queue, unbroadcast.
    await hre.network.provider.request({ method: "hardhat_setNextBlockBaseFeePerGas", params: [`0x${parseUnits("20", 9).toString(16)}`] });
    await mine(1);
    stack = await startGaslessStack(f, { relayerLogger, relayerEnv: { RELAYER_MAX_FEE_GWEI: "4" } });
    const { relayId } = await submitFor(f.signerOf(f.taker.account.address));
    await waitUntil(() => lines.some((line) => line.includes("waiting for it to fall")));
    // Another relayer claims it, as after this one's lease ran out during a database outage.
    const db = new Database(join(stack.directory, "relayer.sqlite"));
    db.prepare("UPDATE relays SET claimed_by = 'relayer-other', lease_until = ? WHERE id = ?").run(Date.now() + 3_600_000, relayId);
    db.close();
    await hre.network.provider.request({ method: "hardhat_setNextBlockBaseFeePerGas", params: [`0x${parseUnits("1", 9).toString(16)}`] });
    await mine(1);
    await waitUntil(() => lines.some((line) => line.includes("taken over by another relayer; leaving it")));
    const relay = (await stack.status(relayId)).body as RelayJson;
    expect(relay.status).to.equal("accepted");
    expect(relay.transactions).to.deep.equal([]);
  });

  it("a broadcast relay taken over by another relayer stops counting against this one's signer once its nonce is mined", async () => {
    stack = await startGaslessStack(f, { signers: 1 });
    const pendingNonces = async () => {
      const text = await (await fetch(`${stack!.relayer!.metricsUrl}/metrics`)).text();
      return Number(/^relayer_signer_pending_nonces\{[^}]*\} (\d+)$/m.exec(text)?.[1]);
    };
    await setAutomine(false);
    const { relayId } = await submitFor(f.signerOf(f.taker.account.address));
    await stack.waitFor(relayId, submitted);
    expect(await pendingNonces()).to.equal(1);
    // Another relayer takes the broadcast relay over (this one's lease ran out); then the swap is mined.
    const db = new Database(join(stack.directory, "relayer.sqlite"));
    db.prepare("UPDATE relays SET claimed_by = 'relayer-other', lease_until = ? WHERE id = ?").run(Date.now() + 3_600_000, relayId);
    db.close();
    await mine(1);
    await setAutomine(true);
    // The watcher's signer check (every few ticks) lets go of the mined nonce it no longer follows.
    const until = Date.now() + 20_000;
    while ((await pendingNonces()) !== 0) {
      if (Date.now() > until) throw new Error("the taken-over relay's nonce still counts against the signer");
      await mine(1);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await f.publicClient.getTransactionCount({ address: relayerAccounts(1).signers[0]!.address })).to.be.greaterThan(0);
  });

  it("a taken-over relay whose transaction the node dropped frees this relayer's nonce after its deadline: the gap is filled, later relays go through", async () => {
    stack = await startGaslessStack(f, { signers: 1 });
    const signer = relayerAccounts(1).signers[0]!.address;
    await setAutomine(false);
    const { quote, relayId } = await submitFor(f.signerOf(f.taker.account.address));
    const broadcast = await stack.waitFor(relayId, submitted);
    const db = new Database(join(stack.directory, "relayer.sqlite"));
    db.prepare("UPDATE relays SET claimed_by = 'relayer-other', lease_until = ? WHERE id = ?").run(Date.now() + 3_600_000, relayId);
    db.close();
    // The node forgets our swap; nothing will ever mine its nonce unless the relayer lets go of it.
    await hre.network.provider.request({ method: "hardhat_dropTransaction", params: [broadcast.transactions[0]!.hash] });
    const before = await f.publicClient.getTransactionCount({ address: signer });
    await time.increaseTo(Number(quote.permit2.message.deadline) + 1);
    await setAutomine(true);
    const until = Date.now() + 20_000;
    while ((await f.publicClient.getTransactionCount({ address: signer })) === before) {
      if (Date.now() > until) throw new Error("the dropped, handed-over nonce was never filled");
      await mine(1);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const [next] = await fundedTakers(f, 1);
    const later = await submitFor(next!);
    expect((await stack.waitFor(later.relayId)).status).to.equal("confirmed");
  });

  it("a swap the automining node refuses as 'nonce too high' (an earlier one of ours did not reach it) waits for that one and confirms, never ends failed", async () => {
    stack = await startGaslessStack(f, { signers: 1, relayerEnv: { RELAYER_RESUBMIT_SECONDS: "1" } });
    await setAutomine(false);
    const first = await submitFor(f.signerOf(f.taker.account.address));
    const broadcast = await stack.waitFor(first.relayId, submitted);
    // The node forgets the first swap: its nonce is a hole below everything the signer sends next.
    await hre.network.provider.request({ method: "hardhat_dropTransaction", params: [broadcast.transactions[0]!.hash] });
    await setAutomine(true);
    const [next] = await fundedTakers(f, 1);
    const second = await submitFor(next!);
    const relays = [await stack.waitFor(first.relayId), await stack.waitFor(second.relayId)];
    expect(relays.map((relay) => relay.status)).to.deep.equal(["confirmed", "confirmed"]);
    for (const { quote } of [first, second]) expect(await fillsOf(f, quote.permit2.message.witness.quoteId)).to.have.length(1);
  });

  it("100 relays from 20 takers at once with 4 signers, one relay a transaction, all confirm: nonces without gaps, and every signer took a share", async () => {
    // The spread of single sends over the signers (batches, which let one signer carry many relays, are batchLoad's).
    stack = await startGaslessStack(f, { api: { defaultQuoteRateLimitPerMinute: 1000, defaultSwapRateLimitPerMinute: 1000 }, relayerEnv: { RELAYER_BATCH_MAX: "1" } });
    const takers = await fundedTakers(f, 20);
    const signers = relayerAccounts(4).signers.map((signer) => signer.address);
    const startNonces = new Map(await Promise.all(signers.map(async (signer) => [signer, await f.publicClient.getTransactionCount({ address: signer })] as const)));
    const quotes = await Promise.all(
      takers.flatMap((taker) =>
        Array.from({ length: 5 }, async () => {
          const quote = (await stack!.gaslessQuote(taker.address, { sell_amount: parseUnits("100", 6) })).body;
          return { quote, signature: await stack!.sign(quote, taker) };
        }),
      ),
    );
    const responses = await Promise.all(quotes.map(({ quote, signature }) => stack!.submit({ quote_id: quote.quote_id, signature })));
    expect(responses.map((response) => response.status)).to.deep.equal(Array(100).fill(202));
    const relays = await Promise.all(responses.map((response) => stack!.waitFor(response.body.relay_id as string, undefined, 60_000)));
    expect(relays.map((relay) => relay.status), JSON.stringify(relays.filter((relay) => relay.status !== "confirmed").slice(0, 2))).to.deep.equal(Array(100).fill("confirmed"));

    // Relays of one batch share its transaction: nonces are counted per transaction.
    const bySigner = new Map<string, number[]>();
    const seen = new Set<string>();
    for (const relay of relays) {
      const mined = relay.transactions.find((transaction) => transaction.mined)!;
      if (seen.has(mined.hash)) continue;
      seen.add(mined.hash);
      bySigner.set(mined.signer, [...(bySigner.get(mined.signer) ?? []), mined.nonce]);
    }
    expect([...bySigner.keys()].sort()).to.deep.equal([...signers].sort());
    for (const [signer, nonces] of bySigner) {
      const sorted = [...nonces].sort((a, b) => a - b);
      const start = startNonces.get(signer as Hex)!;
      expect(sorted, signer).to.deep.equal(sorted.map((_, index) => start + index));
      expect(await f.publicClient.getTransactionCount({ address: signer as Hex }), signer).to.equal(start + sorted.length);
      expect(relays.filter((relay) => relay.transactions.find((transaction) => transaction.mined)!.signer === signer).length, `${signer}'s share of 100`).to.be.at.least(10);
    }
    const settled = new Set<string>();
    for (const { quote } of quotes) {
      const fills = await fillsOf(f, quote.permit2.message.witness.quoteId);
      expect(fills).to.have.length(1);
      settled.add(fills[0]!.transactionHash);
    }
    expect(settled.size).to.equal(seen.size);
  });
});
