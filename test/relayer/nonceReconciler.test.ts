import { expect } from "chai";
import hre from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import pino from "pino";
import { createPublicClient, createWalletClient, keccak256, parseGwei, type Hex, type PublicClient } from "viem";
import { ChainHead } from "../../sdk/chain/chainHead";
import { checkSent, NonceReconciler } from "../../relayer/broadcast/nonceReconciler";
import { NonceTracker } from "../../relayer/broadcast/nonceTracker";
import { SignerPool, type Signer } from "../../relayer/broadcast/signerPool";
import { SignerSpend } from "../../relayer/signing/signerSpend";
import { privateKeyToAccount } from "viem/accounts";
import { inProcessTransport, relayerAccounts } from "../fixtures/gaslessStack";

/** A fresh chain state for each test (mining is a setting, not state: each test turns automine off itself). */
async function freshChain() {
  return {};
}

/**
 * The nonce reconciliation on a real chain (Hardhat with a mempool): what it does when the node lost
 * a transaction of ours, when a nonce of ours was never sent, and when the key was used elsewhere;
 * and how an ambiguous answer is settled by asking the chain (checkSent).
 */
describe("relayer nonce reconciliation against the chain", function () {
  this.timeout(60_000);
  const account = relayerAccounts(1).signers[0]!;
  let client: PublicClient;
  let signer: Signer;
  let reconciler: NonceReconciler;

  beforeEach(async () => {
    await loadFixture(freshChain);
    // A mempool: a transaction can wait behind a hole, or be lost.
    await hre.network.provider.request({ method: "evm_setAutomine", params: [false] });
    client = createPublicClient({ transport: inProcessTransport() });
    const pending = await client.getTransactionCount({ address: account.address, blockTag: "pending" });
    const pool = new SignerPool([{ account: privateKeyToAccount(account.privateKey), nonces: new NonceTracker(pending, undefined), spend: new SignerSpend(undefined) }], 4);
    signer = pool.signers[0]!;
    reconciler = new NonceReconciler({
      client,
      pool,
      head: new ChainHead(client),
      logger: pino({ level: "silent" }),
      config: { chainId: 4663, priorityFeeWei: parseGwei("1"), maxFeeWei: parseGwei("500"), nonceReconcileMs: 60_000 },
    });
  });
  afterEach(async () => {
    await reconciler.stop();
    await hre.network.provider.request({ method: "evm_setAutomine", params: [true] });
  });

  /** A self-transfer of `signer` at `nonce`, signed (not sent). */
  const signedAt = (nonce: number): Promise<Hex> =>
    signer.account.signTransaction({ type: "eip1559", chainId: 4663, nonce, to: signer.address, value: 1n, gas: 21_000n, maxFeePerGas: parseGwei("50"), maxPriorityFeePerGas: parseGwei("1") });
  const mine = () => hre.network.provider.request({ method: "evm_mine", params: [] });
  const minedCount = () => client.getTransactionCount({ address: signer.address });

  it("sends again a transaction the node lost (its mempool dropped it), and it is mined", async () => {
    const nonce = signer.nonces.allocate();
    const raw = await signedAt(nonce);
    signer.nonces.signed(nonce, raw);
    await client.sendRawTransaction({ serializedTransaction: raw });
    await hre.network.provider.request({ method: "hardhat_dropTransaction", params: [keccak256(raw)] });
    expect(await checkSent(client, signer.address, keccak256(raw), nonce)).to.equal("absent");

    const done = await reconciler.reconcile(signer, "test");
    expect(done).to.include({ resent: 1, filled: 0, resynced: false });
    await mine();
    expect(await minedCount()).to.equal(nonce + 1);
    expect(await checkSent(client, signer.address, keccak256(raw), nonce)).to.equal("known");
    // Mined: the next pass lets the nonce go, and finds nothing to do.
    expect(await reconciler.reconcile(signer, "test")).to.include({ settled: 1, resent: 0, filled: 0 });
    expect(signer.nonces.inFlight).to.equal(0);
  });

  it("fills a nonce nothing of ours holds with a self-transfer, so the transaction queued behind it is mined", async () => {
    const hole = signer.nonces.allocate();
    const after = signer.nonces.allocate();
    signer.nonces.release(hole);
    const raw = await signedAt(after);
    signer.nonces.signed(after, raw);
    await client.sendRawTransaction({ serializedTransaction: raw });
    await mine();
    // Held behind the hole: the node mines nothing of the signer.
    expect(await minedCount()).to.equal(hole);

    expect(await reconciler.reconcile(signer, "test")).to.include({ filled: 1, resent: 1 });
    await mine();
    expect(await minedCount()).to.equal(after + 1);
    expect(await checkSent(client, signer.address, keccak256(raw), after)).to.equal("known");
  });

  it("moves the counter up when the key was used elsewhere, and says a nonce used by another transaction is taken", async () => {
    const nonce = signer.nonces.next;
    const ours = await signedAt(nonce);
    const wallet = createWalletClient({ account: signer.account, transport: inProcessTransport() });
    await wallet.sendTransaction({ chain: null, to: signer.address, value: 2n, nonce, gas: 21_000n, maxFeePerGas: parseGwei("50"), maxPriorityFeePerGas: parseGwei("1") });
    await wallet.sendTransaction({ chain: null, to: signer.address, value: 2n, nonce: nonce + 1, gas: 21_000n, maxFeePerGas: parseGwei("50"), maxPriorityFeePerGas: parseGwei("1") });
    expect(await checkSent(client, signer.address, keccak256(ours), nonce)).to.equal("taken");

    expect(await reconciler.reconcile(signer, "test")).to.include({ resynced: true, filled: 0, resent: 0 });
    expect(signer.nonces.next).to.equal(nonce + 2);
    expect(signer.nonces.allocate()).to.equal(nonce + 2);
  });

  it("leaves alone a held nonce it has no transaction for yet (being signed), and nonces the node already counts", async () => {
    const first = signer.nonces.allocate();
    const raw = await signedAt(first);
    signer.nonces.signed(first, raw);
    await client.sendRawTransaction({ serializedTransaction: raw });
    signer.nonces.allocate();
    expect(await reconciler.reconcile(signer, "test")).to.include({ resent: 0, filled: 0, resynced: false });
  });
});
