import { expect } from "chai";
import hre from "hardhat";
import { loadFixture, mine, time } from "@nomicfoundation/hardhat-network-helpers";
import Database from "better-sqlite3";
import { join } from "node:path";
import { postgresRelayOwner } from "../fixtures/relayOwnerRow";
import { parseEventLogs, type Address, type Hex } from "viem";
import { gaslessSwapRouterAbi, type RelayJson } from "../../sdk";
import { startChainServer, type ChainServer } from "../../scripts/devnet/chainServer";
import { freePort } from "../../scripts/devnet/freePort";
import type { SpawnedService } from "../../scripts/devnet/spawnService";
import { spawnChildRelayer } from "../fixtures/childRelayer";
import { gaslessReadyFixture, relayerAccounts, startGaslessStack, type GaslessStack } from "../fixtures/gaslessStack";
import { createTestDatabase } from "../fixtures/postgresServer";
import { startRpcProxy, type RpcProxy } from "../fixtures/rpcProxy";
import type { SettlementFixture } from "../fixtures/settlementFixture";

const setAutomine = (on: boolean) => hre.network.provider.request({ method: "evm_setAutomine", params: [on] });

/** The relayer that sent a relay's swap is killed (SIGKILL) while it is pending, and another relayer holds the relay now. */
type Takeover = {
  stack: GaslessStack;
  /** The way to the chain of the relayer that holds the relay after the takeover. */
  survivorProxy: () => RpcProxy;
  /** Signer addresses of that relayer (none of them sent the dead relayer's swap). */
  survivorSigners: () => Address[];
  /** Kills the relayer holding `signer` and has its relays taken over (restarted with other keys, or the other relayer). */
  kill: (signer: string) => Promise<void>;
  /** The relay's owner and signer in the relayer's database. */
  ownerOf: (relayId: string) => Promise<{ claimedBy: string | null; signer: string | null }>;
  close: () => Promise<void>;
};

/**
 * PostgreSQL: two relayer child processes with their own keys share one database; the one whose swap is
 * pending is killed and the other takes its relays over once its 1-s lease runs out.
 */
async function twoRelayersOnPostgres(f: SettlementFixture, chain: ChainServer): Promise<Takeover> {
  const databaseUrl = await createTestDatabase("taken_over_cancel");
  const ports = [await freePort(), await freePort()];
  const stack = await startGaslessStack(f, { relayerUrl: ports.map((port) => `http://127.0.0.1:${port}`).join(",") });
  const signers = relayerAccounts(4).signers;
  const relayers: { service: SpawnedService; proxy: RpcProxy; signers: Address[] }[] = [];
  for (const [index, port] of ports.entries()) {
    const keys = signers.slice(index * 2, index * 2 + 2);
    const proxy = await startRpcProxy(chain.url);
    const service = await spawnChildRelayer({ keys, rpcUrl: proxy.url, directory: stack.directory, port, databaseUrl, env: { RELAYER_LEASE_SECONDS: "1" } });
    relayers.push({ service, proxy, signers: keys.map((key) => key.address.toLowerCase() as Address) });
  }
  let survivor = relayers[0]!;
  return {
    stack,
    survivorProxy: () => survivor.proxy,
    survivorSigners: () => survivor.signers,
    kill: async (signer) => {
      const dead = relayers.find((relayer) => relayer.signers.includes(signer.toLowerCase() as Address))!;
      survivor = relayers.find((relayer) => relayer !== dead)!;
      await dead.service.stop("SIGKILL");
    },
    ownerOf: (relayId) => postgresRelayOwner(databaseUrl, relayId),
    close: async () => {
      for (const relayer of relayers) await relayer.service.stop("SIGKILL");
      for (const relayer of relayers) await relayer.proxy.close();
      await stack.close();
    },
  };
}

/**
 * SQLite: one relayer child process, killed while its swap is pending and restarted on the same
 * database under the same RELAYER_ID with other signer keys (rotated): its old signer is a dead one's.
 */
async function restartedOnSqlite(f: SettlementFixture, chain: ChainServer): Promise<Takeover> {
  const port = await freePort();
  const stack = await startGaslessStack(f, { relayerUrl: `http://127.0.0.1:${port}` });
  const proxy = await startRpcProxy(chain.url);
  const signers = relayerAccounts(4).signers;
  const start = (keys: typeof signers) => spawnChildRelayer({ keys, rpcUrl: proxy.url, directory: stack.directory, port, env: { RELAYER_ID: "relayer-rotated" } });
  let running = await start(signers.slice(0, 2));
  const rotated = signers.slice(2, 4);
  return {
    stack,
    survivorProxy: () => proxy,
    survivorSigners: () => rotated.map((key) => key.address.toLowerCase() as Address),
    kill: async () => {
      await running.stop("SIGKILL");
      running = await start(rotated);
    },
    ownerOf: async (relayId) => {
      const db = new Database(join(stack.directory, "relayer.sqlite"), { readonly: true, fileMustExist: true });
      try {
        const row = db.prepare("SELECT claimed_by, signer FROM relays WHERE id = ?").get(relayId) as { claimed_by: string | null; signer: string | null };
        return { claimedBy: row.claimed_by, signer: row.signer };
      } finally {
        db.close();
      }
    },
    close: async () => {
      await running.stop("SIGKILL");
      await proxy.close();
      await stack.close();
    },
  };
}

const engines = [
  { name: "two relayers on one PostgreSQL", setup: twoRelayersOnPostgres },
  { name: "one relayer on SQLite restarted with rotated keys", setup: restartedOnSqlite },
];

for (const engine of engines) {
  /**
   * A relay whose swap a relayer broadcast and then died (SIGKILL), taken over by a relayer that does
   * not hold that signer, then cancelled: the dead relayer's swap may still be in the mempool, so the
   * relay is `cancelling` until the chain decides. It ends `confirmed` if that swap mines, and
   * `cancelled` only once the quote's deadline has passed with no fill.
   */
  describe(`cancelling a relay taken over from a dead relayer (${engine.name})`, function () {
    this.timeout(120_000);
    let f: SettlementFixture;
    let chain: ChainServer;
    let takeover: Takeover;
    let stack: GaslessStack;

    beforeEach(async () => {
      f = await loadFixture(gaslessReadyFixture);
      chain = await startChainServer(hre, "127.0.0.1", 0);
      takeover = await engine.setup(f, chain);
      stack = takeover.stack;
    });
    afterEach(async () => {
      await setAutomine(true);
      takeover.survivorProxy().allow();
      await takeover.close();
      await chain.close();
    });

    const cancel = (relayId: string) => stack.api.request("POST", `/gasless/cancel/${relayId}`, { headers: { authorization: `Bearer ${stack.api.apiKey.secret}` } });

    async function settled(onchainQuoteId: Hex) {
      const logs = await f.publicClient.getLogs({ address: f.contracts.gaslessSwapRouter, fromBlock: 0n, toBlock: "latest" });
      return parseEventLogs({ abi: gaslessSwapRouterAbi, logs, eventName: "SwapSettled" }).filter((log) => log.args.quoteId === onchainQuoteId);
    }

    async function until(what: string, done: () => Promise<boolean> | boolean, timeoutMs = 20_000): Promise<void> {
      const end = Date.now() + timeoutMs;
      while (!(await done())) {
        if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    }

    /** A relay whose swap is in the mempool (automine off), its relayer killed, taken over: the survivor holds it with no signer. */
    async function pendingAndTakenOver() {
      await setAutomine(false);
      const taker = f.signerOf(f.taker.account.address);
      const quote = (await stack.gaslessQuote(taker.address)).body;
      const response = await stack.submit({ quote_id: quote.quote_id, signature: await stack.sign(quote, taker) });
      expect(response.status, JSON.stringify(response.body)).to.equal(202);
      const relayId = response.body.relay_id as string;
      const pending = await stack.waitFor(relayId, (relay) => relay.status === "submitted");
      // "submitted" is written before the broadcast: wait until the node holds the transaction too.
      await until("the swap in the node's mempool", async () => (await f.publicClient.getTransaction({ hash: pending.tx_hash as Hex }).catch(() => undefined)) !== undefined);
      const deadSigner = pending.transactions[0]!.signer;
      await takeover.kill(deadSigner);
      expect(takeover.survivorSigners()).to.not.include(deadSigner.toLowerCase());
      // Taken over: claimed by the survivor, and the dead relayer's signer let go (its swap stays on record).
      await until("the takeover", async () => (await takeover.ownerOf(relayId)).signer === null);
      const message = quote.permit2.message as { deadline: string; witness: { quoteId: Hex } };
      const noncesBefore = await Promise.all(takeover.survivorSigners().map((address) => f.publicClient.getTransactionCount({ address, blockTag: "pending" })));
      return { relayId, pending, onchainQuoteId: message.witness.quoteId, deadline: BigInt(message.deadline), noncesBefore };
    }

    /**
     * Until the survivor has looked at the chain for the cancelled relay again (it reads the order's
     * SwapSettled logs), or the relay ended (the assertion after it then says how).
     */
    async function survivorLooked(relayId: string): Promise<void> {
      const proxy = takeover.survivorProxy();
      proxy.seen.length = 0;
      await until("the survivor to look at the chain for the relay", async () => proxy.seen.includes("eth_getLogs") || !["accepted", "submitted"].includes((await stack.status(relayId)).body.status));
    }

    it("the dead relayer's swap mines after the cancel: the answer is cancelling, never cancelled, and the relay ends confirmed with that swap", async () => {
      const { relayId, pending, onchainQuoteId, noncesBefore } = await pendingAndTakenOver();
      const answer = await cancel(relayId);
      expect([answer.status, answer.body.outcome, (answer.body.relay as RelayJson | undefined)?.status], JSON.stringify(answer.body)).to.deep.equal([200, "cancelling", "submitted"]);
      // The survivor keeps waiting on the chain; the relay stays open (never `cancelled` first).
      await survivorLooked(relayId);
      expect((await stack.status(relayId)).body.status).to.equal("submitted");
      await mine(1);
      const relay = await stack.waitFor(relayId);
      expect([relay.status, relay.tx_hash]).to.deep.equal(["confirmed", pending.tx_hash]);
      expect(relay.transactions.map((transaction) => [transaction.hash, transaction.mined])).to.deep.equal([[pending.tx_hash, true]]);
      expect(await settled(onchainQuoteId)).to.have.length(1);
      // A repeated cancel now finds it final (the trade settled).
      const again = await cancel(relayId);
      expect([again.status, again.body.code, again.body.status]).to.deep.equal([409, "relay_final", "confirmed"]);
      // The survivor sent nothing of its own.
      expect(await Promise.all(takeover.survivorSigners().map((address) => f.publicClient.getTransactionCount({ address, blockTag: "pending" })))).to.deep.equal(noncesBefore);
    });

    it("the dead relayer's swap is dropped: the relay stays cancelling until a block past the quote's deadline, then ends cancelled, and the survivor never sends it", async () => {
      const { relayId, pending, onchainQuoteId, deadline, noncesBefore } = await pendingAndTakenOver();
      const answer = await cancel(relayId);
      expect([answer.status, answer.body.outcome], JSON.stringify(answer.body)).to.deep.equal([200, "cancelling"]);
      await hre.network.provider.request({ method: "hardhat_dropTransaction", params: [pending.tx_hash] });
      // The node forgot it, but a copy may live in another mempool: before the deadline it stays open.
      await survivorLooked(relayId);
      await mine(1);
      await survivorLooked(relayId);
      expect((await stack.status(relayId)).body.status).to.equal("submitted");
      // A block past the deadline: the router refuses that swap in it and in every later block.
      await time.increaseTo(deadline + 1n);
      const relay = await stack.waitFor(relayId);
      expect(relay.status).to.equal("cancelled");
      expect(relay.error).to.match(/deadline/);
      expect(relay.transactions.map((transaction) => [transaction.hash, transaction.mined])).to.deep.equal([[pending.tx_hash, false]]);
      expect(await settled(onchainQuoteId)).to.have.length(0);
      expect(takeover.survivorProxy().seen).to.not.include("eth_sendRawTransaction");
      expect(await Promise.all(takeover.survivorSigners().map((address) => f.publicClient.getTransactionCount({ address, blockTag: "pending" })))).to.deep.equal(noncesBefore);
    });

    it("the dead relayer's swap is dropped and the survivor sent its own, then the cancel: the survivor's self-transfer mines, but the relay stays cancelling until a block past the deadline (the dead relayer's swap may still mine), then ends cancelled", async () => {
      const { relayId, pending, onchainQuoteId, deadline } = await pendingAndTakenOver();
      await hre.network.provider.request({ method: "hardhat_dropTransaction", params: [pending.tx_hash] });
      // The node forgot the dead relayer's swap: the survivor broadcasts the relay with its own signer.
      const resent = await stack.waitFor(relayId, (relay) => relay.transactions.length === 2);
      const own = resent.transactions[1]!;
      expect(takeover.survivorSigners()).to.include(own.signer.toLowerCase());
      await until("the survivor's swap in the node's mempool", async () => (await f.publicClient.getTransaction({ hash: own.hash }).catch(() => undefined)) !== undefined);
      const answer = await cancel(relayId);
      expect([answer.status, answer.body.outcome], JSON.stringify(answer.body)).to.deep.equal([200, "cancelling"]);
      const withCancel = await stack.waitFor(relayId, (relay) => relay.transactions.some((transaction) => transaction.kind === "cancel"));
      const selfTransfer = withCancel.transactions.find((transaction) => transaction.kind === "cancel")!;
      await until("the self-transfer in the node's mempool", async () => (await f.publicClient.getTransaction({ hash: selfTransfer.hash }).catch(() => undefined)) !== undefined);
      await mine(1);
      expect((await f.publicClient.getTransactionReceipt({ hash: selfTransfer.hash })).status).to.equal("success");
      // Our self-transfer won our nonce; the dead relayer's swap is still signed at an unused nonce of its signer.
      await stack.waitFor(relayId, (relay) => relay.transactions.some((transaction) => transaction.hash === selfTransfer.hash && transaction.mined) || !["accepted", "submitted"].includes(relay.status));
      await survivorLooked(relayId);
      expect((await stack.status(relayId)).body.status).to.equal("submitted");
      await time.increaseTo(deadline + 1n);
      const relay = await stack.waitFor(relayId);
      expect(relay.status).to.equal("cancelled");
      expect(relay.transactions.map((transaction) => [transaction.hash, transaction.mined])).to.deep.equal([
        [pending.tx_hash, false],
        [own.hash, false],
        [selfTransfer.hash, true],
      ]);
      expect(await settled(onchainQuoteId)).to.have.length(0);
    });

    it("the taker spends the order's Permit2 nonce (the cancel answer's invalidate_nonce) while the dead relayer's swap is dropped: cancelled before the deadline, the order never fills", async () => {
      const { relayId, pending, onchainQuoteId, deadline } = await pendingAndTakenOver();
      const answer = await cancel(relayId);
      expect([answer.status, answer.body.outcome], JSON.stringify(answer.body)).to.deep.equal([200, "cancelling"]);
      await hre.network.provider.request({ method: "hardhat_dropTransaction", params: [pending.tx_hash] });
      const invalidation = answer.body.invalidate_nonce as { from: Address; to: Address; data: Hex };
      const taker = await hre.viem.getWalletClient(invalidation.from, { account: f.signerOf(invalidation.from) });
      const hash = await taker.sendTransaction({ to: invalidation.to, data: invalidation.data });
      await mine(1);
      expect((await f.publicClient.getTransactionReceipt({ hash })).status).to.equal("success");
      const relay = await stack.waitFor(relayId);
      expect([relay.status, relay.error]).to.deep.equal(["cancelled", "cancelled by the integrator; the taker's Permit2 nonce was spent without a fill"]);
      expect((await f.publicClient.getBlock()).timestamp <= deadline, "a block past the deadline").to.equal(true);
      expect(await settled(onchainQuoteId)).to.have.length(0);
    });

    it("the dead relayer's signer uses the swap's nonce for another transaction (its swap can never mine): cancelled before the deadline", async () => {
      const { relayId, pending, onchainQuoteId, deadline } = await pendingAndTakenOver();
      const answer = await cancel(relayId);
      expect([answer.status, answer.body.outcome], JSON.stringify(answer.body)).to.deep.equal([200, "cancelling"]);
      await hre.network.provider.request({ method: "hardhat_dropTransaction", params: [pending.tx_hash] });
      const swap = pending.transactions[0]!;
      const deadSigner = await hre.viem.getWalletClient(swap.signer, { account: f.signerOf(swap.signer) });
      const hash = await deadSigner.sendTransaction({ to: swap.signer, value: 0n, nonce: swap.nonce });
      await mine(1);
      expect((await f.publicClient.getTransactionReceipt({ hash })).status).to.equal("success");
      const relay = await stack.waitFor(relayId);
      expect([relay.status, relay.error]).to.deep.equal(["cancelled", "cancelled by the integrator; the nonce of every recorded transaction was used by another transaction"]);
      expect((await f.publicClient.getBlock()).timestamp <= deadline, "a block past the deadline").to.equal(true);
      expect(relay.transactions.map((transaction) => [transaction.hash, transaction.mined])).to.deep.equal([[pending.tx_hash, false]]);
      expect(await settled(onchainQuoteId)).to.have.length(0);
    });
  });
}
