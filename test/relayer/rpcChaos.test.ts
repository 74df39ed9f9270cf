import { expect } from "chai";
import hre from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { http, parseUnits, type Address } from "viem";
import { isFinalRelayStatus, type RelayJson } from "../../sdk";
import { startChainServer, type ChainServer } from "../../scripts/devnet/chainServer";
import { settlementsByQuote, submitTogether } from "../fixtures/batchRelays";
import { fundedTakers, gaslessReadyFixture, startGaslessStack, type GaslessStack } from "../fixtures/gaslessStack";
import { randomRpcFaults } from "../../scripts/devnet/rpcFaults";
import { startRpcProxy, type RpcProxy } from "../fixtures/rpcProxy";
import type { SettlementFixture } from "../fixtures/settlementFixture";

/** Block interval of the chain in this run (interval mining: a real mempool, where a nonce hole holds later transactions). */
const BLOCK_MS = 1_000;
/** How long the relayer's RPC client waits for an answer; a `timeout` fault holds the request longer. */
const RPC_TIMEOUT_MS = 1_000;
/** After the faults stop, no signer may have a transaction of ours waiting at an unmoving nonce for longer than this. */
const MAX_STALL_BLOCKS = 3;

/**
 * The relayer keeps its promises under a node that misbehaves: a proxy between the relayer and the
 * chain injects faults on about 10 % of requests (and each kind at least once, by schedule): sends
 * taken and their answer lost, timeouts, "nonce too low", "already known", "replacement transaction
 * underpriced" (true and false ones), 429 and 502, a head several blocks old, and once a node that
 * loses its mempool (our pending transactions dropped). 60 relays from 20
 * takers over 4 signers, handed off in quick waves: none lost, none doubled (one SwapSettled per
 * quote), each final, and once the faults stop no signer stays behind a nonce hole for more than 3
 * blocks: the nonce reconciliation (relayer/broadcast/nonceReconciler.ts) heals what the answers hid.
 */
describe("relayer under a faulty RPC: nonces heal (chaos run)", function () {
  this.timeout(300_000);
  let f: SettlementFixture;
  let chain: ChainServer;
  let proxy: RpcProxy;
  let stack: GaslessStack | undefined;
  beforeEach(async () => {
    f = await loadFixture(gaslessReadyFixture);
    chain = await startChainServer(hre, "127.0.0.1", 0);
    proxy = await startRpcProxy(chain.url);
  });
  afterEach(async () => {
    proxy.inject();
    await stack?.close();
    stack = undefined;
    await hre.network.provider.request({ method: "evm_setIntervalMining", params: [0] });
    await hre.network.provider.request({ method: "evm_setAutomine", params: [true] });
    await proxy.close();
    await chain.close();
  });

  it("60 relays on 4 signers with ~10 % of RPC calls faulted: 0 lost, 0 doubled, all final, no signer behind a gap for more than 3 blocks after the faults stop", async () => {
    const takers = await fundedTakers(f, 20);
    stack = await startGaslessStack(f, {
      signers: 4,
      relayerTransport: http(proxy.url, { retryCount: 0, timeout: RPC_TIMEOUT_MS }),
      // Batches of at most 4: enough transactions for every send fault to meet one.
      relayerEnv: { RELAYER_NONCE_RECONCILE_MS: "500", RELAYER_BATCH_MAX: "4" },
      api: { defaultQuoteRateLimitPerMinute: 1_000_000, defaultSwapRateLimitPerMinute: 1_000_000 },
    });
    const signers = stack.relayer!.context.pool.signers;
    await hre.network.provider.request({ method: "evm_setAutomine", params: [false] });
    await hre.network.provider.request({ method: "evm_setIntervalMining", params: [BLOCK_MS] });

    const faults = randomRpcFaults({ seed: 4663, rate: 0.1, holdMs: RPC_TIMEOUT_MS + 500, staleBlocks: 4 });
    proxy.inject(faults.decide);
    const relays: Awaited<ReturnType<typeof submitTogether>> = [];
    for (let wave = 0; wave < 3; wave++) relays.push(...(await submitTogether(stack, takers, parseUnits("20", 6))));
    expect(relays).to.have.length(60);
    // Faults go on while the relays are being sent, then stop.
    const finals = new Map<string, RelayJson>();
    const settle = async () => {
      for (const { relayId } of relays) {
        if (finals.has(relayId)) continue;
        const { body } = await stack!.status(relayId);
        if (isFinalRelayStatus((body as RelayJson).status)) finals.set(relayId, body as RelayJson);
      }
    };
    // At least 8 s, and until every kind of fault happened once (at most 60 s). Once in that window the
    // node loses its mempool, as a node restarted without its pool does: every pending transaction of
    // the signers is dropped.
    const faultsFrom = Date.now();
    const ours = new Set(signers.map((signer) => signer.address.toLowerCase()));
    let lostFromMempool = 0;
    while (Date.now() < faultsFrom + 8_000 || (faults.kinds.some((kind) => !faults.counts.has(kind)) && Date.now() < faultsFrom + 60_000)) {
      if (lostFromMempool === 0) {
        const pending = await f.publicClient.getBlock({ blockTag: "pending", includeTransactions: true });
        for (const transaction of pending.transactions.filter((transaction) => ours.has(transaction.from.toLowerCase()))) {
          // Mined meanwhile by the interval miner: nothing to drop.
          const dropped = await hre.network.provider.request({ method: "hardhat_dropTransaction", params: [transaction.hash] }).then(
            (result) => result === true,
            (error: unknown) => {
              if (/already mined/.test(String(error))) return false;
              throw error;
            },
          );
          if (dropped) lostFromMempool++;
        }
      }
      await settle();
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    proxy.inject();
    expect(lostFromMempool, "the node lost some of our pending transactions").to.be.greaterThan(0);
    const injected = { ...Object.fromEntries(faults.counts), "node:mempool-lost": lostFromMempool };
    expect(faults.kinds.filter((kind) => !faults.counts.has(kind)), `faults injected: ${JSON.stringify(injected)}`).to.deep.equal([]);

    // Each new block: a signer with nonces handed out that the chain has not mined, whose mined count did
    // not move since the last block, is stalled; it may stay so for at most MAX_STALL_BLOCKS blocks.
    const stalls = new Map<Address, { mined: number; blocks: number; worst: number }>();
    let block = await f.publicClient.getBlockNumber();
    const until = Date.now() + 120_000;
    while (finals.size < relays.length || signers.some((signer) => signer.nonces.inFlight > 0)) {
      expect(Date.now() < until, `not final after 120 s: ${relays.length - finals.size} relays; faults ${JSON.stringify(injected)}`).to.equal(true);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const now = await f.publicClient.getBlockNumber();
      if (now !== block) {
        block = now;
        for (const signer of signers) {
          const mined = await f.publicClient.getTransactionCount({ address: signer.address });
          const stall = stalls.get(signer.address) ?? { mined, blocks: 0, worst: 0 };
          stall.blocks = mined < signer.nonces.next && mined === stall.mined ? stall.blocks + 1 : 0;
          stall.mined = mined;
          stall.worst = Math.max(stall.worst, stall.blocks);
          stalls.set(signer.address, stall);
        }
      }
      await settle();
    }
    const worst = Math.max(0, ...[...stalls.values()].map((stall) => stall.worst));
    expect(worst, `a signer stayed behind a nonce for ${worst} blocks after the faults stopped`).to.be.at.most(MAX_STALL_BLOCKS);

    const statuses = [...finals.values()].filter((relay) => relay.status !== "confirmed").map((relay) => [relay.relay_id, relay.status, relay.error]);
    expect(statuses, "every relay confirmed").to.deep.equal([]);
    const settled = await settlementsByQuote(f);
    expect(relays.filter(({ onchainQuoteId }) => settled.get(onchainQuoteId) !== 1).map(({ relayId }) => relayId), "one SwapSettled per quote").to.deep.equal([]);
    // Nothing of ours is left behind at the node: each signer's mined count is its counter.
    for (const signer of signers) expect(await f.publicClient.getTransactionCount({ address: signer.address }), signer.address).to.equal(signer.nonces.next);
    const repairs = (await stack.relayer!.context.metrics!.nonceRepairs.get()).values.map((value) => `${value.labels.action}=${value.value}`);
    console.log(`      chaos run: faults ${JSON.stringify(injected)}; nonce repairs ${repairs.join(" ") || "none"}; worst stall after faults ${worst} blocks`);
  });
});
