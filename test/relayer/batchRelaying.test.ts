import { expect } from "chai";
import hre from "hardhat";
import { loadFixture, mine, time } from "@nomicfoundation/hardhat-network-helpers";
import { decodeFunctionData, parseEventLogs, parseUnits, type Hex, type LocalAccount } from "viem";
import { gaslessBatchSwapRouterAbi, permit2Abi, type RelayJson } from "../../sdk";
import { settlementsByQuote, submitTogether } from "../fixtures/batchRelays";
import { memberGasCap } from "../../relayer/batching/batchBroadcast";
import { fundedTakers, gaslessReadyFixture, startGaslessStack, type GaslessStack } from "../fixtures/gaslessStack";
import { relayerSeesBaseFee, setBaseFee } from "../fixtures/baseFee";
import type { SettlementFixture } from "../fixtures/settlementFixture";

const setAutomine = (on: boolean) => hre.network.provider.request({ method: "evm_setAutomine", params: [on] });

/** How many relays finished `stage` (the relayer's own stage histogram). */
async function stageCount(stack: GaslessStack, stage: string): Promise<number> {
  const metric = await stack.relayer!.context.metrics!.stages.histogram.get();
  return metric.values.find((value) => value.metricName?.endsWith("_count") && value.labels.stage === stage)?.value ?? 0;
}

type Quoted = { taker: LocalAccount; quote: { quote_id: string; permit2: { message: Record<string, unknown> } } & Record<string, unknown> };

async function quoteFor(stack: GaslessStack, taker: LocalAccount): Promise<Quoted> {
  const response = await stack.gaslessQuote(taker.address, { sell_amount: parseUnits("100", 6) });
  expect(response.status, JSON.stringify(response.body)).to.equal(200);
  return { taker, quote: response.body };
}

async function submit(stack: GaslessStack, { taker, quote }: Quoted) {
  const response = await stack.submit({ quote_id: quote.quote_id, signature: await stack.sign(quote as never, taker) });
  expect(response.status, JSON.stringify(response.body)).to.equal(202);
  const message = quote.permit2.message as { deadline: string; witness: { quoteId: Hex } };
  return { relayId: response.body.relay_id as string, onchainQuoteId: message.witness.quoteId, deadline: BigInt(message.deadline) };
}

/**
 * Two quotes priced at a 20 gwei base fee (their fees cover a lot) and one at a near-zero base fee (its
 * fee covers about 1.2 gwei a gas: the tip plus the 20 % margin), then the base fee back near zero so
 * all three pass their checks when handed off.
 */
async function richAndPoor(stack: GaslessStack, takers: LocalAccount[]): Promise<Quoted[]> {
  await setBaseFee(parseUnits("20", 9));
  const rich = [await quoteFor(stack, takers[0]!), await quoteFor(stack, takers[1]!)];
  await setBaseFee(parseUnits("0.01", 9));
  await relayerSeesBaseFee(stack, (baseFee) => baseFee <= parseUnits("0.01", 9));
  return [...rich, await quoteFor(stack, takers[2]!)];
}

/** The API priced each fee at the base fee of its block: the poor relay's is a small part of a rich one's. */
async function expectRichAndPoor(stack: GaslessStack, relays: { relayId: string }[]): Promise<void> {
  const fees = await Promise.all(relays.map(async ({ relayId }) => (await stack.relayer!.context.store.getRelay(relayId))!.feeWei!));
  expect(fees[2]! * 5n < fees[0]! && fees[2]! * 5n < fees[1]!, fees.join(", ")).to.equal(true);
}

describe("relayer batching (a real chain, relayer and API)", function () {
  this.timeout(180_000);
  let f: SettlementFixture;
  let stack: GaslessStack | undefined;
  let takers: LocalAccount[];
  beforeEach(async () => {
    f = await loadFixture(gaslessReadyFixture);
    takers = await fundedTakers(f, 4);
  });
  afterEach(async () => {
    await setAutomine(true);
    await stack?.close();
    stack = undefined;
  });

  it("relays submitted together go out in one batch transaction; each status shows the batch hash, its position and the batch size", async () => {
    // One signer that waits 1.5 s for more: the four hand-offs arrive within it.
    stack = await startGaslessStack(f, { signers: 1, relayerEnv: { RELAYER_BATCH_WAIT_MS: "1500" } });
    const relays = await submitTogether(stack, takers);
    const done = await Promise.all(relays.map(({ relayId }) => stack!.waitFor(relayId)));
    expect(done.map((relay) => relay.status)).to.deep.equal(["confirmed", "confirmed", "confirmed", "confirmed"]);
    const hash = done[0]!.tx_hash!;
    expect(done.every((relay) => relay.tx_hash === hash && relay.transactions.length === 1)).to.equal(true);
    expect(done.map((relay) => relay.batch?.position).sort()).to.deep.equal([0, 1, 2, 3]);
    for (const relay of done) {
      expect(relay.batch).to.include({ tx_hash: hash, size: 4 });
      expect(relay.transactions[0]!.batch).to.deep.equal({ position: relay.batch!.position, size: 4 });
    }
    const settled = await settlementsByQuote(f);
    expect(relays.map(({ onchainQuoteId }) => settled.get(onchainQuoteId))).to.deep.equal([1, 1, 1, 1]);
    const receipt = await f.publicClient.getTransactionReceipt({ hash: hash as Hex });
    expect(parseEventLogs({ abi: gaslessBatchSwapRouterAbi, logs: receipt.logs, eventName: "SwapSettled" })).to.have.length(4);
  });

  it("an order whose Permit2 nonce the taker spends after the hand-off is skipped on chain: the others settle, it ends failed with the decoded reason and its gas cap is charged to its taker", async () => {
    stack = await startGaslessStack(f, { signers: 1, relayerEnv: { RELAYER_BATCH_WAIT_MS: "1500" } });
    await setAutomine(false);
    const relays = await submitTogether(stack, takers.slice(0, 3));
    const pending = await Promise.all(relays.map(({ relayId }) => stack!.waitFor(relayId, (relay) => relay.status === "submitted")));
    expect(new Set(pending.map((relay) => relay.tx_hash)).size).to.equal(1);
    // The taker spends the nonce with a higher tip, so it is mined first in the same block.
    const victim = relays[1]!;
    const wallet = await hre.viem.getWalletClient(victim.taker.address, { account: victim.taker });
    await wallet.writeContract({
      address: f.contracts.permit2,
      abi: permit2Abi,
      functionName: "invalidateUnorderedNonces",
      args: [victim.permit2Nonce >> 8n, 1n << (victim.permit2Nonce & 255n)],
      // An estimate against the pending block (our batch first) would price a warm slot: set the gas.
      gas: 100_000n,
      maxPriorityFeePerGas: parseUnits("50", 9),
      maxFeePerGas: parseUnits("200", 9),
    });
    await mine(1);
    await setAutomine(true);
    const done = await Promise.all(relays.map(({ relayId }) => stack!.waitFor(relayId)));
    expect(done.map((relay) => relay.status)).to.deep.equal(["confirmed", "failed", "confirmed"]);
    const failed = done[1]!;
    expect(failed.reason).to.equal("nonce_used");
    // Its place in the batch is the order the three became ready in, which the test does not fix.
    expect(failed.batch).to.include({ size: 3 });
    expect(failed.error).to.match(new RegExp(`skipped in batch transaction 0x[0-9a-f]{64} .*position ${failed.batch!.position} of 3.*InvalidNonce\\(\\)`));
    expect(failed.tx_hash).to.equal(pending[0]!.tx_hash);
    const settled = await settlementsByQuote(f);
    expect(relays.map(({ onchainQuoteId }) => settled.get(onchainQuoteId) ?? 0)).to.deep.equal([1, 0, 1]);
    // Charged to its taker: its gas cap in the batch (the router reports no gas per order), at the batch's price.
    const charged = await stack.relayer!.context.store.unpaidGasCharged({ taker: victim.taker.address, integratorId: stack.api.integratorId, since: new Date(0) });
    const cap = memberGasCap((await stack.relayer!.context.store.getRelay(victim.relayId))!);
    expect(charged).to.deep.equal({ taker: cap, integrator: cap });
    expect((await stack.relayer!.context.store.unpaidGasTotals({})).map((total) => [total.cause, total.kind, total.entries])).to.deep.equal([["taker", "batch_skip", 1]]);
  });

  it("cancelling one relay of a pending batch rebuilds the batch without it (same nonce): the others confirm, it ends cancelled and never settles", async () => {
    stack = await startGaslessStack(f, { signers: 1, relayerEnv: { RELAYER_BATCH_WAIT_MS: "1500" } });
    await setAutomine(false);
    const relays = await submitTogether(stack, takers.slice(0, 3));
    const pending = await Promise.all(relays.map(({ relayId }) => stack!.waitFor(relayId, (relay) => relay.status === "submitted")));
    expect(new Set(pending.map((relay) => relay.tx_hash)).size).to.equal(1);
    const victim = relays[1]!;
    const response = await stack.api.request("POST", `/gasless/cancel/${victim.relayId}`, { headers: { authorization: `Bearer ${stack.api.apiKey.secret}` } });
    expect(response.status, JSON.stringify(response.body)).to.equal(200);
    expect((response.body as { outcome: string }).outcome).to.equal("cancelling");
    // The watcher's next tick signs the rebuilt batch for the two others at the same nonce.
    const rebuilt = await stack.waitFor(relays[0]!.relayId, (relay) => relay.transactions.length >= 2, 20_000);
    const [first, second] = rebuilt.transactions;
    expect(second!.nonce).to.equal(first!.nonce);
    expect(second!.batch).to.deep.include({ size: 2 });
    await mine(1);
    await setAutomine(true);
    const done = await Promise.all(relays.map(({ relayId }) => stack!.waitFor(relayId)));
    expect(done.map((relay) => relay.status)).to.deep.equal(["confirmed", "cancelled", "confirmed"]);
    expect(done[0]!.tx_hash).to.equal(done[2]!.tx_hash);
    expect(done[0]!.tx_hash).to.equal(second!.hash);
    const settled = await settlementsByQuote(f);
    expect(relays.map(({ onchainQuoteId }) => settled.get(onchainQuoteId) ?? 0)).to.deep.equal([1, 0, 1]);
    // Leaving the batch sent nothing of its own: nothing is charged to anyone.
    expect(await stack.relayer!.context.store.unpaidGasTotals({})).to.deep.equal([]);
  });

  it("RELAYER_BATCH_MAX=1 keeps one relay per transaction, each a plain swapGasless with no batch", async () => {
    stack = await startGaslessStack(f, { signers: 1, relayerEnv: { RELAYER_BATCH_MAX: "1", RELAYER_BATCH_WAIT_MS: "1500" } });
    const relays = await submitTogether(stack, takers.slice(0, 3));
    const done: RelayJson[] = await Promise.all(relays.map(({ relayId }) => stack!.waitFor(relayId)));
    expect(done.map((relay) => relay.status)).to.deep.equal(["confirmed", "confirmed", "confirmed"]);
    expect(new Set(done.map((relay) => relay.tx_hash)).size).to.equal(3);
    expect(done.map((relay) => [relay.batch, relay.transactions[0]!.batch])).to.deep.equal([[null, null], [null, null], [null, null]]);
    for (const relay of done) {
      const transaction = await f.publicClient.getTransaction({ hash: relay.tx_hash as Hex });
      expect(decodeFunctionData({ abi: gaslessBatchSwapRouterAbi, data: transaction.input }).functionName).to.equal("swapGasless");
      const receipt = await f.publicClient.getTransactionReceipt({ hash: relay.tx_hash as Hex });
      expect(parseEventLogs({ abi: gaslessBatchSwapRouterAbi, logs: receipt.logs, eventName: "SwapSettled" })).to.have.length(1);
    }
  });

  it("a stuck batch is replaced whole (same nonce, same members and positions, bumped fees) and every relay confirms with the replacement", async () => {
    stack = await startGaslessStack(f, { signers: 1, relayerEnv: { RELAYER_BATCH_WAIT_MS: "1500", RELAYER_RESUBMIT_SECONDS: "1" } });
    await setAutomine(false);
    const relays = await submitTogether(stack, takers.slice(0, 3));
    const bumped = await Promise.all(relays.map(({ relayId }) => stack!.waitFor(relayId, (relay) => relay.transactions.length >= 2, 20_000)));
    await mine(1);
    await setAutomine(true);
    const done = await Promise.all(relays.map(({ relayId }) => stack!.waitFor(relayId)));
    expect(done.map((relay) => relay.status)).to.deep.equal(["confirmed", "confirmed", "confirmed"]);
    const [first, second] = bumped[0]!.transactions;
    expect(second!.nonce).to.equal(first!.nonce);
    expect(BigInt(second!.max_fee_per_gas) * 100n >= BigInt(first!.max_fee_per_gas) * 110n).to.equal(true);
    for (const relay of done) {
      const positions = relay.transactions.slice(0, 2).map((transaction) => transaction.batch);
      expect(positions[0]).to.deep.equal(positions[1]);
      expect(relay.transactions.filter((transaction) => transaction.mined)).to.have.length(1);
    }
    expect(new Set(done.map((relay) => relay.tx_hash)).size).to.equal(1);
    const settled = await settlementsByQuote(f);
    expect(relays.map(({ onchainQuoteId }) => settled.get(onchainQuoteId))).to.deep.equal([1, 1, 1]);
  });

  describe("members pay for their share of the batch at the fees it is signed with", () => {
    it("a relay whose fee covered its gas when it joined the ready list, but not at the base fee of the moment its batch is built, is left out: the others go out, it waits, is never sent, and ends expired / fee_below_cost at its deadline", async () => {
      // One signer holding for 5 s before it builds the batch: the base fee rises in that time.
      stack = await startGaslessStack(f, { signers: 1, relayerEnv: { RELAYER_BATCH_WAIT_MS: "5000" } });
      const quoted = await richAndPoor(stack, takers);
      const relays = await Promise.all(quoted.map((entry) => submit(stack!, entry)));
      await expectRichAndPoor(stack, relays);
      // All three passed their own checks (at the near-zero base fee) and wait for the batch.
      while ((await stageCount(stack, "nonce_check")) < 3) await new Promise((resolve) => setTimeout(resolve, 20));
      await setBaseFee(parseUnits("8", 9));
      await relayerSeesBaseFee(stack, (baseFee) => baseFee >= parseUnits("7", 9));

      const rich = await Promise.all(relays.slice(0, 2).map(({ relayId }) => stack!.waitFor(relayId)));
      expect(rich.map((relay) => relay.status)).to.deep.equal(["confirmed", "confirmed"]);
      expect(rich.map((relay) => relay.batch?.size)).to.deep.equal([2, 2]);
      const poor = relays[2]!;
      const waiting = (await stack.status(poor.relayId)).body as RelayJson;
      expect([waiting.status, waiting.transactions]).to.deep.equal(["accepted", []]);

      await time.increaseTo(poor.deadline + 1n);
      const ended = await stack.waitFor(poor.relayId, undefined, 60_000);
      expect([ended.status, ended.reason, ended.transactions]).to.deep.equal(["expired", "fee_below_cost", []]);
      const settled = await settlementsByQuote(f);
      expect(relays.map(({ onchainQuoteId }) => settled.get(onchainQuoteId) ?? 0)).to.deep.equal([1, 1, 0]);
    });

    it("cancelling one member of a pending batch whose other member no longer covers its share cancels only the first: the other is never ended by that cancel, waits, and ends expired / fee_below_cost at its deadline", async () => {
      stack = await startGaslessStack(f, { signers: 1, relayerEnv: { RELAYER_BATCH_WAIT_MS: "1500" } });
      await setBaseFee(parseUnits("20", 9));
      const rich = await quoteFor(stack, takers[0]!);
      await setBaseFee(parseUnits("0.01", 9));
      await relayerSeesBaseFee(stack, (baseFee) => baseFee <= parseUnits("0.01", 9));
      const poorQuote = await quoteFor(stack, takers[2]!);
      await setAutomine(false);
      const relays = await Promise.all([rich, poorQuote].map((entry) => submit(stack!, entry)));
      const pending = await Promise.all(relays.map(({ relayId }) => stack!.waitFor(relayId, (relay) => relay.status === "submitted")));
      expect(pending.map((relay) => relay.batch?.size)).to.deep.equal([2, 2]);
      // The batch cannot be mined at 8 gwei, and the poor member's fee does not cover its share there.
      await setBaseFee(parseUnits("8", 9));
      await relayerSeesBaseFee(stack, (baseFee) => baseFee >= parseUnits("7", 9));
      const [cancelled, poor] = relays;
      const response = await stack.api.request("POST", `/gasless/cancel/${cancelled!.relayId}`, { headers: { authorization: `Bearer ${stack.api.apiKey.secret}` } });
      expect(response.status, JSON.stringify(response.body)).to.equal(200);
      const replaced = await stack.waitFor(cancelled!.relayId, (relay) => relay.transactions.some((transaction) => transaction.kind === "cancel"), 20_000);
      const cancel = replaced.transactions.find((transaction) => transaction.kind === "cancel")!;
      // The cancel is recorded on the member asked to leave only.
      const poorNow = (await stack.status(poor!.relayId)).body as RelayJson;
      expect(poorNow.transactions.map((transaction) => transaction.kind)).to.deep.equal(["swap"]);
      await setAutomine(true);
      await mine(1);
      expect((await stack.waitFor(cancelled!.relayId)).status).to.equal("cancelled");
      expect((await f.publicClient.getTransactionReceipt({ hash: cancel.hash as Hex })).status).to.equal("success");
      // Its nonce went to the cancel: it is queued again and waits (its fee does not cover its gas), not ended.
      while ((await stageCount(stack, "nonce_check")) < 3) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(((await stack.status(poor!.relayId)).body as RelayJson).status).to.not.equal("expired");
      await time.increaseTo(poor!.deadline + 1n);
      const ended = await stack.waitFor(poor!.relayId, undefined, 60_000);
      expect([ended.status, ended.reason]).to.deep.equal(["expired", "fee_below_cost"]);
      const settled = await settlementsByQuote(f);
      expect(relays.map(({ onchainQuoteId }) => settled.get(onchainQuoteId) ?? 0)).to.deep.equal([0, 0]);
    });

    it("a stuck batch bumped after the base fee rose is rebuilt without the member whose fee no longer covers its share: the others confirm with the replacement, it is never settled and ends expired / fee_below_cost", async () => {
      stack = await startGaslessStack(f, { signers: 1, relayerEnv: { RELAYER_BATCH_WAIT_MS: "1500", RELAYER_RESUBMIT_SECONDS: "1" } });
      const quoted = await richAndPoor(stack, takers);
      await setAutomine(false);
      const relays = await Promise.all(quoted.map((entry) => submit(stack!, entry)));
      await expectRichAndPoor(stack, relays);
      const pending = await Promise.all(relays.map(({ relayId }) => stack!.waitFor(relayId, (relay) => relay.status === "submitted")));
      expect(new Set(pending.map((relay) => relay.tx_hash)).size).to.equal(1);
      expect(pending[0]!.batch?.size).to.equal(3);
      // An empty block at 8 gwei: the batch (signed for a near-zero base fee) cannot be mined and is stuck.
      await setBaseFee(parseUnits("8", 9));
      await relayerSeesBaseFee(stack, (baseFee) => baseFee >= parseUnits("7", 9));
      const bumped = await stack.waitFor(relays[0]!.relayId, (relay) => relay.transactions.some((transaction) => transaction.batch?.size === 2), 30_000);
      const replacement = bumped.transactions.find((transaction) => transaction.batch?.size === 2)!;
      expect(replacement.nonce).to.equal(bumped.transactions[0]!.nonce);
      await setAutomine(true);
      await mine(1);

      const rich = await Promise.all(relays.slice(0, 2).map(({ relayId }) => stack!.waitFor(relayId)));
      expect(rich.map((relay) => relay.status)).to.deep.equal(["confirmed", "confirmed"]);
      expect(rich.map((relay) => relay.tx_hash)).to.deep.equal([replacement.hash, replacement.hash]);
      const poor = relays[2]!;
      // Its nonce went to the replacement: it is queued again (a fourth check), where its fee still does not cover its gas.
      while ((await stageCount(stack, "nonce_check")) < 4) await new Promise((resolve) => setTimeout(resolve, 20));
      const waiting = (await stack.status(poor.relayId)).body as RelayJson;
      expect(waiting.transactions.some((transaction) => transaction.hash === replacement.hash || transaction.mined)).to.equal(false);

      await time.increaseTo(poor.deadline + 1n);
      const ended = await stack.waitFor(poor.relayId, undefined, 60_000);
      expect([ended.status, ended.reason]).to.deep.equal(["expired", "fee_below_cost"]);
      expect(ended.transactions.map((transaction) => transaction.hash)).to.deep.equal(waiting.transactions.map((transaction) => transaction.hash));
      const settled = await settlementsByQuote(f);
      expect(relays.map(({ onchainQuoteId }) => settled.get(onchainQuoteId) ?? 0)).to.deep.equal([1, 1, 0]);
    });
  });
});
