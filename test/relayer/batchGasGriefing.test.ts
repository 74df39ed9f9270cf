import { expect } from "chai";
import hre from "hardhat";
import { loadFixture, mine, time } from "@nomicfoundation/hardhat-network-helpers";
import { encodeErrorResult, parseAbi, parseEventLogs, parseUnits, type Hex, type LocalAccount } from "viem";
import { gaslessBatchSwapRouterAbi, type RelayJson } from "../../sdk";
import { relayGasLimitOfCalldata } from "../../sdk/relay/relayGasLimit";
import { settlementsByQuote, submitTogether } from "../fixtures/batchRelays";
import { memberGasCap } from "../../relayer/batching/batchBroadcast";
import { batchSkipGas } from "../../relayer/ledger/receiptCharge";
import { fundedTakers, gaslessReadyFixture, startGaslessStack, type GaslessStack } from "../fixtures/gaslessStack";
import type { SettlementFixture } from "../fixtures/settlementFixture";

const setAutomine = (on: boolean) => hre.network.provider.request({ method: "evm_setAutomine", params: [on] });

/** How many relays finished `stage` (the relayer's own stage histogram). */
async function stageCount(stack: GaslessStack, stage: string): Promise<number> {
  const metric = await stack.relayer!.context.metrics!.stages.histogram.get();
  return metric.values.find((value) => value.metricName?.endsWith("_count") && value.labels.stage === stage)?.value ?? 0;
}

/**
 * Issue 19's theme: a taker must not be able to make the relayer pay for reverted transactions at
 * will. A taker whose own address turns into a gas-burning ERC-1271 wallet only on chain (an EIP-7702
 * delegation to a time bomb: it signs like an EOA and passes every simulation, then burns whatever gas
 * Permit2's signature check is given once its fuse time is reached) joins a batch with honest takers.
 */
describe("a batch member that burns gas only on chain (relayer, API and a real chain)", function () {
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

  it("the batch mines and settles the honest members (confirmed); the burner is skipped for running out of its own cap, ends failed and its gas cap is charged to its taker; the batch costs no more than the members' single-swap limits", async () => {
    stack = await startGaslessStack(f, { signers: 1, relayerEnv: { RELAYER_BATCH_WAIT_MS: "1500" } });
    const [burner, ...honest] = takers as [LocalAccount, ...LocalAccount[]];
    // The burner quotes as the plain key it still is, so its relay is a batchable swapGasless.
    const quote = (await stack.gaslessQuote(burner.address, { sell_amount: parseUnits("100", 6) })).body;
    const deadline = BigInt(quote.permit2.message.deadline);
    const fuse = deadline - 120n;
    const bomb = await hre.viem.deployContract("TimeBombWallet", [fuse], { client: { public: f.publicClient, wallet: f.deployer } });
    const code = await f.publicClient.getCode({ address: bomb.address });
    // Stands in for the taker's EIP-7702 delegation (the devnet runs cancun): the same code at its own address.
    await hre.network.provider.request({ method: "hardhat_setCode", params: [burner.address, code!] });
    await setAutomine(false);
    const submitted = await stack.submit({ quote_id: quote.quote_id, signature: await stack.sign(quote, burner) });
    expect(submitted.status, JSON.stringify(submitted.body)).to.equal(202);
    const burnerRelay = { relayId: submitted.body.relay_id as string, onchainQuoteId: quote.permit2.message.witness.quoteId as Hex };
    // It is ready first, so it comes first in the batch: every honest order runs after it.
    while ((await stageCount(stack, "nonce_check")) < 1) await new Promise((resolve) => setTimeout(resolve, 20));
    const others = await submitTogether(stack, honest);
    const relays = [burnerRelay, ...others];
    const pending = await Promise.all(relays.map(({ relayId }) => stack!.waitFor(relayId, (relay) => relay.status === "submitted")));
    expect(new Set(pending.map((relay) => relay.tx_hash)).size, "one batch transaction").to.equal(1);
    // The honest two take places 1 and 2 in the order they became ready, which the test does not fix.
    expect(pending.map((relay) => relay.batch?.position)[0]).to.equal(0);

    // Mined after the fuse: the burner's signature check now burns all the gas it gets.
    await time.setNextBlockTimestamp(fuse);
    await mine(1);
    await setAutomine(true);
    const done: RelayJson[] = await Promise.all(relays.map(({ relayId }) => stack!.waitFor(relayId)));
    expect(done.map((relay) => relay.status)).to.deep.equal(["failed", "confirmed", "confirmed"]);
    const hash = pending[0]!.tx_hash as Hex;
    expect(done.map((relay) => relay.tx_hash)).to.deep.equal([hash, hash, hash]);
    const receipt = await f.publicClient.getTransactionReceipt({ hash });
    expect(receipt.status, "the batch itself mined successfully").to.equal("success");
    const skips = parseEventLogs({ abi: gaslessBatchSwapRouterAbi, logs: receipt.logs, eventName: "GaslessOrderSkipped" });
    expect(skips.map((skip) => [skip.args.index, skip.args.quoteId, skip.args.reason])).to.deep.equal([[0n, burnerRelay.onchainQuoteId, "0x"]]);
    // The burner was not sent again, and its failure names the skip and its cause.
    const failed = done[0]!;
    expect([failed.reason, failed.transactions.length]).to.deep.equal(["reverted", 1]);
    expect(failed.error).to.match(/skipped in batch transaction .*position 0 of 3.*ran out of its gas cap/);
    const settled = await settlementsByQuote(f);
    expect(relays.map(({ onchainQuoteId }) => settled.get(onchainQuoteId) ?? 0)).to.deep.equal([0, 1, 1]);
    // Charged to the burner's taker (and nobody else's), as a reverted relay of its own would be: the cap
    // it was given (the router reports no gas per order), at the batch's effective price.
    const records = await Promise.all(relays.map(({ relayId }) => stack!.relayer!.context.store.getRelay(relayId)));
    const burnerCap = memberGasCap(records[0]!);
    expect(burnerCap < receipt.gasUsed).to.equal(true);
    const charged = async (taker: LocalAccount) => (await stack!.relayer!.context.store.unpaidGasCharged({ taker: taker.address, integratorId: stack!.api.integratorId, since: new Date(0) })).taker;
    expect(await Promise.all(takers.map(charged))).to.deep.equal([burnerCap, 0n, 0n]);
    expect(await stack.relayer!.context.store.unpaidGasTotals({})).to.deep.equal([
      { cause: "taker", kind: "batch_skip", entries: 1, gasUsed: burnerCap, weiPaid: Number(burnerCap * receipt.effectiveGasPrice) },
    ]);
    // What the operator paid is within the single-swap limits the three fees were checked against.
    const singleLimits = records.reduce((sum, record) => sum + relayGasLimitOfCalldata(record!.estimatedGas, record!.data), 0n);
    expect(receipt.gasUsed <= singleLimits, `gasUsed ${receipt.gasUsed}, single limits ${singleLimits}`).to.equal(true);
  });

  it("a forged skip (audit 3, finding 1): a wallet that burns nearly its cap, then reverts with the router's own SwapFeaturePaused(3) bytes, is not taken for a pause: its relay ends failed, counted against its taker, never sent again alone; the honest members confirm", async () => {
    stack = await startGaslessStack(f, { signers: 1, relayerEnv: { RELAYER_BATCH_WAIT_MS: "1500", RELAYER_TAKER_GAS_BUDGET: "250000" } });
    const [forger, ...honest] = takers as [LocalAccount, ...LocalAccount[]];
    const quote = (await stack.gaslessQuote(forger.address, { sell_amount: parseUnits("100", 6) })).body;
    const fuse = BigInt(quote.permit2.message.deadline) - 120n;
    const wallet = await hre.viem.deployContract("ForgedSkipWallet", [fuse], { client: { public: f.publicClient, wallet: f.deployer } });
    await hre.network.provider.request({ method: "hardhat_setCode", params: [forger.address, (await f.publicClient.getCode({ address: wallet.address }))!] });
    await setAutomine(false);
    const submitted = await stack.submit({ quote_id: quote.quote_id, signature: await stack.sign(quote, forger) });
    expect(submitted.status, JSON.stringify(submitted.body)).to.equal(202);
    const forged = { relayId: submitted.body.relay_id as string, onchainQuoteId: quote.permit2.message.witness.quoteId as Hex };
    while ((await stageCount(stack, "nonce_check")) < 1) await new Promise((resolve) => setTimeout(resolve, 20));
    const relays = [forged, ...(await submitTogether(stack, honest))];
    const pending = await Promise.all(relays.map(({ relayId }) => stack!.waitFor(relayId, (relay) => relay.status === "submitted")));
    expect(new Set(pending.map((relay) => relay.tx_hash)).size, "one batch transaction").to.equal(1);
    expect(pending[0]!.batch?.position).to.equal(0);

    await time.setNextBlockTimestamp(fuse);
    await mine(1);
    await setAutomine(true);
    const done: RelayJson[] = await Promise.all(relays.map(({ relayId }) => stack!.waitFor(relayId)));
    expect(done.map((relay) => relay.status)).to.deep.equal(["failed", "confirmed", "confirmed"]);
    const hash = pending[0]!.tx_hash as Hex;
    const receipt = await f.publicClient.getTransactionReceipt({ hash });
    const skips = parseEventLogs({ abi: gaslessBatchSwapRouterAbi, logs: receipt.logs, eventName: "GaslessOrderSkipped" });
    // The skip carries exactly the router's own pause error, as the audit saw.
    const pausedBytes = encodeErrorResult({ abi: parseAbi(["error SwapFeaturePaused(uint128 featureId)"]), errorName: "SwapFeaturePaused", args: [3n] });
    expect(skips.map((skip) => [skip.args.index, skip.args.reason])).to.deep.equal([[0n, pausedBytes]]);
    // The bytes lie: the router was active at that very block.
    const [paused, activeUntil] = await f.publicClient.readContract({ address: f.contracts.gaslessSwapRouter, abi: gaslessBatchSwapRouterAbi, functionName: "status", blockNumber: receipt.blockNumber });
    expect([paused, activeUntil > 0n]).to.deep.equal([false, true]);
    // Not sent again alone (before: called transient, retried, failed/simulation_failed and counted nowhere).
    const failed = done[0]!;
    expect([failed.reason, failed.transactions.length]).to.deep.equal(["reverted", 1]);
    // Whether the node shows the code at the acceptance block (set just before the hand-off) only changes the wording.
    expect(failed.error).to.match(/SwapFeaturePaused\(3\).*(the taker's wallet code ran|had code when mined); its revert data is its own choice/);
    // The ledger has it as the taker's, at its cap, and nothing on anyone else.
    const totals = await stack.relayer!.context.store.unpaidGasTotals({ integratorId: stack.api.integratorId });
    expect(totals.map((total) => [total.cause, total.kind, total.entries])).to.deep.equal([["taker", "batch_skip", 1]]);
    const records = await Promise.all(relays.map(({ relayId }) => stack!.relayer!.context.store.getRelay(relayId)));
    const charged = async (taker: LocalAccount) => (await stack!.relayer!.context.store.unpaidGasCharged({ taker: taker.address, integratorId: stack!.api.integratorId, since: new Date(0) })).taker;
    expect(await Promise.all(takers.map(charged))).to.deep.equal([memberGasCap(records[0]!), 0n, 0n]);
    // Stopped within its budget (here below one cap): its next gasless quote is refused, the honest takers' are not.
    const next = await Promise.all(takers.map(async (taker) => (await stack!.gaslessQuote(taker.address, { sell_amount: parseUnits("100", 6) })).body.code ?? null));
    expect(next).to.deep.equal(["gasless_taker_gas_budget_spent", null, null]);
    const settled = await settlementsByQuote(f);
    expect(relays.map(({ onchainQuoteId }) => settled.get(onchainQuoteId) ?? 0)).to.deep.equal([0, 1, 1]);
  });

  it("batch members skipped because the block is past their deadline end expired and their gas caps are written to the ledger as the operator's (counted against nobody)", async () => {
    stack = await startGaslessStack(f, { signers: 1, relayerEnv: { RELAYER_BATCH_WAIT_MS: "1500" } });
    await setAutomine(false);
    const relays = await submitTogether(stack, takers.slice(0, 2));
    const pending = await Promise.all(relays.map(({ relayId }) => stack!.waitFor(relayId, (relay) => relay.status === "submitted")));
    expect(new Set(pending.map((relay) => relay.tx_hash)).size, "one batch transaction").to.equal(1);
    const store = stack.relayer!.context.store;
    const records = await Promise.all(relays.map(async ({ relayId }) => (await store.getRelay(relayId))!));
    const latest = records.reduce((max, record) => (record.deadline > max ? record.deadline : max), 0n);
    await time.setNextBlockTimestamp(latest + 1n);
    await mine(1);
    await setAutomine(true);
    const done: RelayJson[] = await Promise.all(relays.map(({ relayId }) => stack!.waitFor(relayId)));
    expect(done.map((relay) => [relay.status, relay.reason])).to.deep.equal([
      ["expired", "deadline_passed"],
      ["expired", "deadline_passed"],
    ]);
    const receipt = await f.publicClient.getTransactionReceipt({ hash: pending[0]!.tx_hash as Hex });
    expect(parseEventLogs({ abi: gaslessBatchSwapRouterAbi, logs: receipt.logs, eventName: "GaslessOrderSkipped" })).to.have.length(2);
    // Before: nothing was written though the operator paid for the batch.
    const totals = await store.unpaidGasTotals({ integratorId: stack.api.integratorId });
    const caps = records.reduce((sum, record) => sum + batchSkipGas(record, receipt), 0n);
    expect(totals.map((total) => [total.cause, total.kind, total.entries, total.gasUsed])).to.deep.equal([["operator", "batch_skip", 2, caps]]);
    const charged = async (taker: LocalAccount) => (await store.unpaidGasCharged({ taker: taker.address, integratorId: stack!.api.integratorId, since: new Date(0) })).taker;
    expect(await Promise.all(takers.slice(0, 2).map(charged))).to.deep.equal([0n, 0n]);
  });

  it("a forged skip cancelled right after its broadcast (the old batch mines before any rebuild) is still attributed from facts: its cap is charged to its taker, the relay ends cancelled and is never sent again", async () => {
    stack = await startGaslessStack(f, { signers: 1, relayerEnv: { RELAYER_BATCH_WAIT_MS: "1500" } });
    const [forger, ...honest] = takers as [LocalAccount, ...LocalAccount[]];
    const quote = (await stack.gaslessQuote(forger.address, { sell_amount: parseUnits("100", 6) })).body;
    const fuse = BigInt(quote.permit2.message.deadline) - 120n;
    const wallet = await hre.viem.deployContract("ForgedSkipWallet", [fuse], { client: { public: f.publicClient, wallet: f.deployer } });
    await hre.network.provider.request({ method: "hardhat_setCode", params: [forger.address, (await f.publicClient.getCode({ address: wallet.address }))!] });
    await setAutomine(false);
    const submitted = await stack.submit({ quote_id: quote.quote_id, signature: await stack.sign(quote, forger) });
    expect(submitted.status, JSON.stringify(submitted.body)).to.equal(202);
    const forged = { relayId: submitted.body.relay_id as string, onchainQuoteId: quote.permit2.message.witness.quoteId as Hex };
    while ((await stageCount(stack, "nonce_check")) < 1) await new Promise((resolve) => setTimeout(resolve, 20));
    const relays = [forged, ...(await submitTogether(stack, honest))];
    const pending = await Promise.all(relays.map(({ relayId }) => stack!.waitFor(relayId, (relay) => relay.status === "submitted")));
    expect(new Set(pending.map((relay) => relay.tx_hash)).size, "one batch transaction").to.equal(1);
    // The cancellation is on record, and the old batch mines in the very next block (the rebuild lost the race).
    const store = stack.relayer!.context.store;
    expect(await store.requestCancellation(forged.relayId, new Date())).to.not.equal(undefined);
    await time.setNextBlockTimestamp(fuse);
    await mine(1);
    await setAutomine(true);
    const done: RelayJson[] = await Promise.all(relays.map(({ relayId }) => stack!.waitFor(relayId)));
    expect(done.map((relay) => relay.status)).to.deep.equal(["cancelled", "confirmed", "confirmed"]);
    expect(done[0]!.transactions.length, "not sent again").to.equal(1);
    expect(done[0]!.error).to.match(/cancelled by the integrator; skipped in batch transaction .*its revert data is its own choice/);
    // Before: ended cancelled with nothing in the ledger. Now the taker's cap is charged, as without the cancel.
    const totals = await store.unpaidGasTotals({ integratorId: stack.api.integratorId });
    expect(totals.map((total) => [total.cause, total.kind, total.entries])).to.deep.equal([["taker", "batch_skip", 1]]);
    const charged = async (taker: LocalAccount) => (await store.unpaidGasCharged({ taker: taker.address, integratorId: stack!.api.integratorId, since: new Date(0) })).taker;
    expect(await Promise.all(takers.map(charged))).to.deep.equal([memberGasCap((await store.getRelay(forged.relayId))!), 0n, 0n]);
  });
});
