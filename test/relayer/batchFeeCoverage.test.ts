import { expect } from "chai";
import hre from "hardhat";
import { loadFixture, mine, time } from "@nomicfoundation/hardhat-network-helpers";
import { parseUnits, toHex, type Hex, type LocalAccount } from "viem";
import type { RelayJson } from "../../sdk";
import { settlementsByQuote } from "../fixtures/batchRelays";
import { fundedTakers, gaslessReadyFixture, startGaslessStack, type GaslessStack } from "../fixtures/gaslessStack";
import type { SettlementFixture } from "../fixtures/settlementFixture";

const setAutomine = (on: boolean) => hre.network.provider.request({ method: "evm_setAutomine", params: [on] });

/** The next block's base fee, in wei (Hardhat), then one block mined at it. */
async function setBaseFee(wei: bigint): Promise<void> {
  await hre.network.provider.request({ method: "hardhat_setNextBlockBaseFeePerGas", params: [toHex(wei)] });
  await mine(1);
}

/** Until the relayer's shared head shows a base fee that `holds` (a read in flight may predate the block). */
async function relayerSees(stack: GaslessStack, holds: (baseFee: bigint) => boolean): Promise<void> {
  while (!holds((await stack.relayer!.context.head.fresh()).baseFeePerGas)) await new Promise((resolve) => setTimeout(resolve, 20));
}

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
  await relayerSees(stack, (baseFee) => baseFee <= parseUnits("0.01", 9));
  return [...rich, await quoteFor(stack, takers[2]!)];
}

/** The API priced each fee at the base fee of its block: the poor relay's is a small part of a rich one's. */
async function expectRichAndPoor(stack: GaslessStack, relays: { relayId: string }[]): Promise<void> {
  const fees = await Promise.all(relays.map(async ({ relayId }) => (await stack.relayer!.context.store.getRelay(relayId))!.feeWei!));
  expect(fees[2]! * 5n < fees[0]! && fees[2]! * 5n < fees[1]!, fees.join(", ")).to.equal(true);
}

describe("batch members pay for their share of the batch at the fees it is signed with", function () {
  this.timeout(180_000);
  let f: SettlementFixture;
  let stack: GaslessStack | undefined;
  let takers: LocalAccount[];
  beforeEach(async () => {
    f = await loadFixture(gaslessReadyFixture);
    takers = await fundedTakers(f, 3);
  });
  afterEach(async () => {
    await setAutomine(true);
    await stack?.close();
    stack = undefined;
  });

  it("a relay whose fee covered its gas when it joined the ready list, but not at the base fee of the moment its batch is built, is left out: the others go out, it waits, is never sent, and ends expired / fee_below_cost at its deadline", async () => {
    // One signer holding for 5 s before it builds the batch: the base fee rises in that time.
    stack = await startGaslessStack(f, { signers: 1, relayerEnv: { RELAYER_BATCH_WAIT_MS: "5000" } });
    const quoted = await richAndPoor(stack, takers);
    const relays = await Promise.all(quoted.map((entry) => submit(stack!, entry)));
    await expectRichAndPoor(stack, relays);
    // All three passed their own checks (at the near-zero base fee) and wait for the batch.
    while ((await stageCount(stack, "nonce_check")) < 3) await new Promise((resolve) => setTimeout(resolve, 20));
    await setBaseFee(parseUnits("8", 9));
    await relayerSees(stack, (baseFee) => baseFee >= parseUnits("7", 9));

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
    await relayerSees(stack, (baseFee) => baseFee >= parseUnits("7", 9));
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
