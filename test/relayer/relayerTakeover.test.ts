import { expect } from "chai";
import hre from "hardhat";
import { loadFixture, mine } from "@nomicfoundation/hardhat-network-helpers";
import pg from "pg";
import { parseEventLogs, type Hex } from "viem";
import { gaslessSwapRouterAbi, type RelayJson } from "../../sdk";
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
    return { relayId, pending, onchainQuoteId: quote.permit2.message.witness.quoteId as Hex };
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
  async function ownerOf(relayId: string): Promise<{ claimedBy: string | null; signer: string | null }> {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ claimed_by: string | null; signer: string | null }>("SELECT claimed_by, signer FROM relays WHERE id = $1", [relayId]);
      return { claimedBy: rows[0]!.claimed_by, signer: rows[0]!.signer };
    } finally {
      await client.end();
    }
  }

  it("a relay taken over from a dead relayer and cancelled before the survivor broadcast it ends cancelled, and the survivor never sends it", async () => {
    await setAutomine(false);
    const { relayId, pending, onchainQuoteId } = await submitAndKillItsRelayer();
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
    const until = Date.now() + 20_000;
    for (;;) {
      const owner = await ownerOf(relayId);
      if (owner.claimedBy === survivorId && owner.signer === null) break;
      if (Date.now() > until) throw new Error(`the survivor did not take the relay over: ${JSON.stringify(owner)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const answer = await stack.api.request("POST", `/gasless/cancel/${relayId}`, { headers: { authorization: `Bearer ${stack.api.apiKey.secret}` } });
    expect([answer.status, answer.body.outcome], JSON.stringify(answer.body)).to.deep.equal([200, "cancelled"]);
    survivorProxy.allow();
    await setAutomine(true);
    // The survivor's queued attempt runs again after its backoff (a few refused reads: at most 6.4 s)
    // and finds the relay ended; a window past it shows it never sends the swap.
    survivorProxy.seen.length = 0;
    await new Promise((resolve) => setTimeout(resolve, 8_000));
    expect(survivorProxy.seen, "the survivor kept following the chain").to.include("eth_getBlockByNumber");
    const relay = (await stack.status(relayId)).body as RelayJson;
    expect(relay.status).to.equal("cancelled");
    expect(relay.transactions.map((transaction) => [transaction.hash, transaction.mined])).to.deep.equal([[pending.tx_hash, false]]);
    expect(survivorProxy.seen).to.not.include("eth_sendRawTransaction");
    expect(await Promise.all(survivorSigners.map((address) => f.publicClient.getTransactionCount({ address })))).to.deep.equal(noncesBefore);
    expect(await settled(onchainQuoteId)).to.have.length(0);
  });
});
