import { expect } from "chai";
import hre from "hardhat";
import { loadFixture, mine } from "@nomicfoundation/hardhat-network-helpers";
import type { LocalAccount } from "viem";
import { fundedTakers, gaslessReadyFixture, type GaslessStack } from "../fixtures/gaslessStack";
import type { RpcProxy } from "../fixtures/rpcProxy";
import { startCrashableRelayer, type CrashableRelayer } from "../fixtures/childRelayer";
import type { SettlementFixture } from "../fixtures/settlementFixture";
import { settlementsByQuote, submitTogether } from "../fixtures/batchRelays";

const setAutomine = (on: boolean) => hre.network.provider.request({ method: "evm_setAutomine", params: [on] });

/**
 * A batching relayer as production runs it, a child process, killed with SIGKILL before and after
 * it broadcasts a batch and restarted on the same database: every relay of the batch must end
 * confirmed with exactly one SwapSettled for its quote.
 */
describe("batch crash safety (a real child process, SIGKILL)", function () {
  this.timeout(180_000);
  let f: SettlementFixture;
  let proxy: RpcProxy;
  let stack: GaslessStack;
  let relayer: CrashableRelayer;
  let takers: LocalAccount[];

  beforeEach(async () => {
    f = await loadFixture(gaslessReadyFixture);
    takers = await fundedTakers(f, 3);
    // One signer that waits for more: the hand-offs of a test go out in one batch. No fee bump during
    // a slow restart (a loaded machine): each test expects the batch it signed.
    relayer = await startCrashableRelayer(f, { signers: 1, env: { RELAYER_BATCH_WAIT_MS: "1500", RELAYER_RESUBMIT_SECONDS: "300" } });
    ({ stack, proxy } = relayer);
  });
  afterEach(async () => {
    await setAutomine(true);
    await relayer?.close();
  });

  /** Every relay confirmed, all by one transaction, each quote settled exactly once. */
  async function expectBatchSettledOnce(relays: Awaited<ReturnType<typeof submitTogether>>) {
    const done = await Promise.all(relays.map(({ relayId }) => stack.waitFor(relayId)));
    expect(done.map((relay) => relay.status)).to.deep.equal(relays.map(() => "confirmed"));
    const settled = await settlementsByQuote(f);
    expect(relays.map(({ onchainQuoteId }) => settled.get(onchainQuoteId))).to.deep.equal(relays.map(() => 1));
    return done;
  }

  it("killed while simulating the batch (nothing recorded): the restarted relayer sends the batch once", async () => {
    proxy.refuse("eth_call", "eth_sendRawTransaction");
    const relays = await submitTogether(stack, takers);
    await relayer.waitForProxyToSee("eth_call");
    await relayer.kill();
    proxy.allow();
    await relayer.start();
    const done = await expectBatchSettledOnce(relays);
    expect(new Set(done.map((relay) => relay.tx_hash)).size).to.equal(1);
    expect(done.map((relay) => relay.batch?.size)).to.deep.equal([3, 3, 3]);
  });

  it("killed after the batch was recorded but before the node took it: the restarted relayer sends the recorded batch, not another", async () => {
    proxy.refuse("eth_sendRawTransaction");
    const relays = await submitTogether(stack, takers);
    await relayer.waitForProxyToSee("eth_sendRawTransaction");
    await relayer.kill();
    proxy.allow();
    await relayer.start();
    const done = await expectBatchSettledOnce(relays);
    expect(done.every((relay) => relay.transactions.length === 1 && relay.tx_hash === done[0]!.tx_hash)).to.equal(true);
  });

  it("killed after broadcasting the batch, mined while it was down: the restarted relayer finds the receipt and ends each relay from its events", async () => {
    await setAutomine(false);
    const relays = await submitTogether(stack, takers);
    const pending = await Promise.all(relays.map(({ relayId }) => stack.waitFor(relayId, (relay) => relay.status === "submitted")));
    await relayer.kill();
    await mine(1);
    await setAutomine(true);
    await relayer.start();
    const done = await expectBatchSettledOnce(relays);
    expect(done.map((relay) => relay.tx_hash)).to.deep.equal(pending.map((relay) => relay.tx_hash));
    expect(new Set(done.map((relay) => relay.tx_hash)).size).to.equal(1);
  });
});
