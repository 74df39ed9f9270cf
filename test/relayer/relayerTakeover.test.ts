import { expect } from "chai";
import hre from "hardhat";
import { loadFixture, mine, time } from "@nomicfoundation/hardhat-network-helpers";
import { postgresRelayOwner, type RelayOwnerRow } from "../fixtures/relayOwnerRow";
import { parseEventLogs, type Hex } from "viem";
import { gaslessSwapRouterAbi } from "../../sdk";
import { startChainServer, type ChainServer } from "../../scripts/devnet/chainServer";
import type { SpawnedService } from "../../scripts/devnet/spawnService";
import { spawnChildRelayer } from "../fixtures/childRelayer";
import { gaslessReadyFixture, relayerAccounts, startGaslessStack, type GaslessStack } from "../fixtures/gaslessStack";
import { freePort } from "../../scripts/devnet/freePort";
import { createTestDatabase } from "../fixtures/postgresServer";
import { startRpcProxy, type RpcProxy } from "../fixtures/rpcProxy";
import type { SettlementFixture } from "../fixtures/settlementFixture";

const setAutomine = (on: boolean) => hre.network.provider.request({ method: "evm_setAutomine", params: [on] });

/**
 * Two relayer child processes, each with its own signer keys, share one PostgreSQL: the API hands
 * relays to either, and when the one working on a relay is killed with SIGKILL the other takes the
 * relay over once its lease runs out, without a second fill.
 */
describe("two relayers on one PostgreSQL: takeover after SIGKILL", function () {
  this.timeout(120_000);
  let f: SettlementFixture;
  let chain: ChainServer;
  let stack: GaslessStack;
  let databaseUrl: string;
  const relayers = new Map<string, SpawnedService>();
  /** Each relayer's own way to the chain, by its relayer id (RELAYER_ID's default: `relayer-<first signer>`). */
  const proxies = new Map<string, RpcProxy>();

  beforeEach(async () => {
    f = await loadFixture(gaslessReadyFixture);
    chain = await startChainServer(hre, "127.0.0.1", 0);
    databaseUrl = await createTestDatabase("takeover");
    const ports = [await freePort(), await freePort()];
    stack = await startGaslessStack(f, { relayerUrl: ports.map((port) => `http://127.0.0.1:${port}`).join(",") });
    const signers = relayerAccounts(4).signers;
    for (const [index, port] of ports.entries()) {
      const keys = signers.slice(index * 2, index * 2 + 2);
      const proxy = await startRpcProxy(chain.url);
      proxies.set(`relayer-${keys[0]!.address.toLowerCase()}`, proxy);
      const service = await spawnChildRelayer({
        keys,
        rpcUrl: proxy.url,
        directory: stack.directory,
        port,
        databaseUrl,
        env: { RELAYER_LEASE_SECONDS: "1", ...(process.env.TAKEOVER_ECHO ? { RELAYER_LOG_LEVEL: "info" } : {}) },
        ...(process.env.TAKEOVER_ECHO ? { echo: `relayer${index}` } : {}),
      });
      for (const key of keys) relayers.set(key.address.toLowerCase(), service);
    }
  });
  afterEach(async () => {
    await setAutomine(true);
    for (const service of new Set(relayers.values())) await service.stop("SIGKILL");
    relayers.clear();
    for (const proxy of proxies.values()) await proxy.close();
    proxies.clear();
    await stack.close();
    await chain.close();
  });

  async function submitAndKillItsRelayer() {
    const taker = f.signerOf(f.taker.account.address);
    const quote = (await stack.gaslessQuote(taker.address)).body;
    const response = await stack.submit({ quote_id: quote.quote_id, signature: await stack.sign(quote, taker) });
    expect(response.status, JSON.stringify(response.body)).to.equal(202);
    const relayId = response.body.relay_id as string;
    const pending = await stack.waitFor(relayId, (relay) => relay.status === "submitted");
    // "submitted" is written before the broadcast: wait until the node holds the transaction too.
    const until = Date.now() + 10_000;
    while ((await f.publicClient.getTransaction({ hash: pending.tx_hash as Hex }).catch(() => undefined)) === undefined) {
      if (Date.now() > until) throw new Error("the relayer never broadcast its transaction");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const owner = relayers.get(pending.transactions[0]!.signer.toLowerCase())!;
    await owner.stop("SIGKILL");
    return { relayId, pending, onchainQuoteId: quote.permit2.message.witness.quoteId as Hex, deadline: BigInt(quote.permit2.message.deadline as string) };
  }

  async function settled(onchainQuoteId: Hex) {
    const logs = await f.publicClient.getLogs({ address: f.contracts.gaslessSwapRouter, fromBlock: 0n, toBlock: "latest" });
    return parseEventLogs({ abi: gaslessSwapRouterAbi, logs, eventName: "SwapSettled" }).filter((log) => log.args.quoteId === onchainQuoteId);
  }

  it("a dead relayer's transaction that is mined later: the survivor records it as the fill and sends nothing", async () => {
    await setAutomine(false);
    const { relayId, pending, onchainQuoteId } = await submitAndKillItsRelayer();
    await mine(1);
    await setAutomine(true);
    const relay = await stack.waitFor(relayId);
    expect([relay.status, relay.tx_hash]).to.deep.equal(["confirmed", pending.tx_hash]);
    expect(relay.transactions.map((transaction) => [transaction.hash, transaction.mined])).to.deep.equal([[pending.tx_hash, true]]);
    expect(await settled(onchainQuoteId)).to.have.length(1);
  });

  it("a dead relayer's transaction still pending at the takeover: the survivor sends no second swap (it simulates as spent), then records it once mined", async () => {
    await setAutomine(false);
    const { relayId, pending, onchainQuoteId } = await submitAndKillItsRelayer();
    // Past the lease (1 s) and a few takeover passes, with the dead relayer's swap still in the mempool.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect((await stack.status(relayId)).body.transactions).to.have.length(1);
    await mine(1);
    await setAutomine(true);
    const relay = await stack.waitFor(relayId);
    expect([relay.status, relay.tx_hash]).to.deep.equal(["confirmed", pending.tx_hash]);
    expect(await settled(onchainQuoteId)).to.have.length(1);
  });

  it("a dead relayer's transaction that the node forgot: the survivor broadcasts the swap with its own signer, once", async () => {
    await setAutomine(false);
    const { relayId, pending, onchainQuoteId } = await submitAndKillItsRelayer();
    await hre.network.provider.request({ method: "hardhat_dropTransaction", params: [pending.tx_hash] });
    await setAutomine(true);
    const relay = await stack.waitFor(relayId);
    expect(relay.status).to.equal("confirmed");
    const fills = await settled(onchainQuoteId);
    expect(fills).to.have.length(1);
    expect(relay.tx_hash).to.equal(fills[0]!.transactionHash);
    expect(relay.tx_hash).to.not.equal(pending.tx_hash);
    const mined = relay.transactions.filter((transaction) => transaction.mined);
    expect(mined.map((transaction) => transaction.hash)).to.deep.equal([relay.tx_hash]);
    expect(mined[0]!.signer).to.not.equal(pending.transactions[0]!.signer);
  });
  /** The relay's owner in the shared database, and whether a signer holds it. */
  function ownerOf(relayId: string): Promise<RelayOwnerRow> {
    return postgresRelayOwner(databaseUrl, relayId);
  }

  /** Until `done` holds (20 s at most). */
  async function until(what: string, done: () => Promise<boolean> | boolean): Promise<void> {
    const end = Date.now() + 20_000;
    while (!(await done())) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** Until the relayer behind `proxy` has read the chain's logs again (it looks for the order's SwapSettled), or the relay ended. */
  async function lookedForTheFill(proxy: RpcProxy, relayId: string): Promise<void> {
    proxy.seen.length = 0;
    await until("the survivor to look for the order's fill", async () => proxy.seen.includes("eth_getLogs") || !["accepted", "submitted"].includes((await stack.status(relayId)).body.status));
  }

  it("a relay taken over from a dead relayer whose swap the node dropped, cancelled before the survivor broadcast it: cancelling (that swap may live in another mempool), cancelled only after a block past the deadline, and the survivor never sends it", async () => {
    await setAutomine(false);
    const { relayId, pending, onchainQuoteId, deadline } = await submitAndKillItsRelayer();
    const dead = (await ownerOf(relayId)).claimedBy!;
    // The node forgot the dead relayer's swap, so the survivor would broadcast its own; until the
    // cancellation, the survivor cannot reach the chain's eth_call (no nonce read, no simulation).
    await hre.network.provider.request({ method: "hardhat_dropTransaction", params: [pending.tx_hash] });
    const [survivorId, survivorProxy] = [...proxies.entries()].find(([id]) => id !== dead)!;
    survivorProxy.refuse("eth_call");
    const deadService = relayers.get(pending.transactions[0]!.signer.toLowerCase())!;
    const survivorSigners = [...relayers.entries()].filter(([, service]) => service !== deadService).map(([address]) => address as Hex);
    const noncesBefore = await Promise.all(survivorSigners.map((address) => f.publicClient.getTransactionCount({ address })));
    // Taken over: the survivor claimed it (after the dead one's 1 s lease) and let go of the dead relayer's signer.
    await until("the survivor's takeover", async () => {
      const owner = await ownerOf(relayId);
      return owner.claimedBy === survivorId && owner.signer === null;
    });
    // The dead relayer's swap is on record: in flight, whatever this node's mempool holds.
    const answer = await stack.api.request("POST", `/gasless/cancel/${relayId}`, { headers: { authorization: `Bearer ${stack.api.apiKey.secret}` } });
    expect([answer.status, answer.body.outcome, answer.body.relay?.status], JSON.stringify(answer.body)).to.deep.equal([200, "cancelling", "submitted"]);
    survivorProxy.allow();
    await setAutomine(true);
    // The survivor's queued attempt runs again after its backoff and finds the relay cancelling: it
    // sends nothing and waits on the chain, through a block mined before the deadline.
    await lookedForTheFill(survivorProxy, relayId);
    await mine(1);
    await lookedForTheFill(survivorProxy, relayId);
    expect((await stack.status(relayId)).body.status).to.equal("submitted");
    await time.increaseTo(deadline + 1n);
    const relay = await stack.waitFor(relayId);
    expect(relay.status).to.equal("cancelled");
    expect(relay.error).to.match(/deadline/);
    expect(relay.transactions.map((transaction) => [transaction.hash, transaction.mined])).to.deep.equal([[pending.tx_hash, false]]);
    expect(survivorProxy.seen).to.not.include("eth_sendRawTransaction");
    expect(await Promise.all(survivorSigners.map((address) => f.publicClient.getTransactionCount({ address })))).to.deep.equal(noncesBefore);
    expect(await settled(onchainQuoteId)).to.have.length(0);
  });

  it("a cancel that reaches the relay before the survivor adopted it (the dead relayer's signer still on it), then the dead relayer's swap mines: cancelling, then confirmed, never cancelled", async () => {
    // No relayer can read logs: the survivor claims the relay but cannot adopt it (adoption looks for a fill first).
    for (const proxy of proxies.values()) proxy.refuse("eth_getLogs");
    await setAutomine(false);
    const { relayId, pending, onchainQuoteId } = await submitAndKillItsRelayer();
    const dead = (await ownerOf(relayId)).claimedBy!;
    const [survivorId, survivorProxy] = [...proxies.entries()].find(([id]) => id !== dead)!;
    await until("the survivor's claim", async () => (await ownerOf(relayId)).claimedBy === survivorId);
    expect((await ownerOf(relayId)).signer).to.equal(pending.transactions[0]!.signer.toLowerCase());
    const answer = await stack.api.request("POST", `/gasless/cancel/${relayId}`, { headers: { authorization: `Bearer ${stack.api.apiKey.secret}` } });
    expect([answer.status, answer.body.outcome], JSON.stringify(answer.body)).to.deep.equal([200, "cancelling"]);
    // Adopted now: the dead relayer's signer let go, the relay back in the survivor's queue with its
    // cancellation asked; the dead relayer's swap is still in the mempool, so it waits on the chain.
    survivorProxy.allow();
    await until("the adoption", async () => (await ownerOf(relayId)).signer === null);
    await lookedForTheFill(survivorProxy, relayId);
    expect((await stack.status(relayId)).body.status).to.equal("submitted");
    await mine(1);
    await setAutomine(true);
    const relay = await stack.waitFor(relayId);
    expect([relay.status, relay.tx_hash]).to.deep.equal(["confirmed", pending.tx_hash]);
    expect(relay.cancel_requested_at).to.be.a("string");
    expect(await settled(onchainQuoteId)).to.have.length(1);
  });
});
