import { expect } from "chai";
import hre from "hardhat";
import pino from "pino";
import { createWalletClient, custom, formatEther, keccak256, parseEther, toHex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { Signer } from "../../relayer/broadcast/signerPool";
import { runRelayerAdminCommand } from "../../scripts/relayerAdmin";
import { openRelayStore } from "../../relayer/store/openRelayStore";
import { gaslessSuite, startGaslessStack } from "../fixtures/gaslessStack";
import { createTestDatabase } from "../fixtures/postgresServer";

/** Waits (bounded) for a condition the relayer's own polling makes true. */
async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const setBalance = (address: string, wei: bigint) => hre.network.provider.request({ method: "hardhat_setBalance", params: [address, toHex(wei)] });

describe("the treasury key", function () {
  this.timeout(120_000);
  const suite = gaslessSuite();

  async function start(cap: string, env: Record<string, string> = {}) {
    const key = generatePrivateKey();
    const treasury = privateKeyToAccount(key);
    await setBalance(treasury.address, parseEther("100"));
    const lines: { msg: string; level: number; signer?: string }[] = [];
    const logger = pino({ level: "info" }, { write: (line: string) => void lines.push(JSON.parse(line) as { msg: string; level: number }) });
    suite.stack = await startGaslessStack(suite.f, {
      signers: 2,
      relayerLogger: logger,
      relayerEnv: { RELAYER_MIN_SIGNER_BALANCE_ETH: "5", RELAYER_TREASURY_SIGNER: `unsafe:${key}`, RELAYER_TOPUP_TARGET_ETH: "8", RELAYER_TREASURY_DAILY_CAP_ETH: cap, RELAYER_MAX_VALUE_PER_TX_ETH: "10", ...env },
    });
    const relayer = suite.stack.relayer!;
    const treasuryBalance = () => relayer.context.client.getBalance({ address: treasury.address });
    return { key, treasury, lines, relayer, treasuryBalance, signers: relayer.context.pool.signers as Signer[] };
  }

  it("tops a signer below the floor up to the target, records it mined and the CLI lists it", async () => {
    const { relayer, signers, treasury, treasuryBalance } = await start("20");
    const low = signers[0]!;
    await setBalance(low.address, parseEther("1"));
    await until(async () => (await relayer.context.store.topUps()).some((topUp) => topUp.status === "mined"), "the top-up being mined");
    const [topUp, ...others] = await relayer.context.store.topUps();
    expect(others).to.have.length(0);
    expect(topUp).to.deep.include({ signer: low.address, treasury: treasury.address, amountWei: parseEther("7"), status: "mined" });
    expect(await relayer.context.client.getBalance({ address: low.address })).to.equal(parseEther("8"));
    const left = await treasuryBalance();
    expect(left < parseEther("93") && left > parseEther("92.99"), `treasury has ${formatEther(left)} ETH`).to.equal(true);
    await until(() => low.funded, "the signer taking relays again");

    const printed: string[] = [];
    const context = { open: async () => relayer.context.store, print: (line: string) => void printed.push(line), now: new Date() };
    // The CLI closes what it opens: hand it a store whose close leaves the relayer's open.
    const shared = Object.assign(Object.create(relayer.context.store) as typeof relayer.context.store, { close: async () => undefined });
    expect(await runRelayerAdminCommand(["topups", "list"], { ...context, open: async () => shared })).to.equal(0);
    expect(printed.join("\n")).to.include(low.address).and.include("7").and.include("mined").and.include(topUp!.txHash);
    printed.length = 0;
    expect(await runRelayerAdminCommand(["topups", "list", "--json"], { ...context, open: async () => shared })).to.equal(0);
    const rows = JSON.parse(printed.join("\n")) as { signer: string; amount_eth: string; status: string; tx_hash: string }[];
    expect(rows).to.deep.equal([{ ...rows[0], signer: low.address, amount_eth: "7", status: "mined", tx_hash: topUp!.txHash }]);
    expect(await (await fetch(`${relayer.metricsUrl}/metrics`)).text()).to.include('relayer_treasury_topups_total{status="mined"} 1');
  });

  it("never funds a drained signer (retired, or its key suspect): the other signer below the floor is topped up, the drained one is not", async () => {
    const { relayer, signers } = await start("20", { RELAYER_SIGNER_STATE_POLL_MS: "50" });
    const [drained, other] = signers as [Signer, Signer];
    const shared = Object.assign(Object.create(relayer.context.store) as typeof relayer.context.store, { close: async () => undefined });
    expect(await runRelayerAdminCommand(["signers", "drain", drained.address], { open: async () => shared, print: () => undefined, now: new Date() })).to.equal(0);
    await until(() => drained.drained, "the relayer seeing the drain");
    await setBalance(drained.address, parseEther("1"));
    await setBalance(other.address, parseEther("1"));
    await until(async () => (await relayer.context.store.topUps()).some((topUp) => topUp.status === "mined"), "the other signer's top-up being mined");
    expect((await relayer.context.store.topUps()).map((topUp) => topUp.signer)).to.deep.equal([other.address]);
    expect(await relayer.context.client.getBalance({ address: drained.address })).to.equal(parseEther("1"));
  });

  it("stops at its daily cap and says so at warn", async () => {
    const { relayer, signers, lines } = await start("4");
    await setBalance(signers[0]!.address, parseEther("1"));
    await until(async () => (await relayer.context.store.topUps()).some((topUp) => topUp.status === "mined"), "the first top-up being mined");
    // Capped at 4 ETH: the first signer got 4 of its 7; the second gets nothing.
    expect(await relayer.context.client.getBalance({ address: signers[0]!.address })).to.equal(parseEther("5"));
    await setBalance(signers[1]!.address, parseEther("1"));
    await until(() => lines.some((line) => line.msg.startsWith("treasury daily cap") && line.signer === signers[1]!.address), "the cap's warn");
    expect(lines.find((line) => line.msg.startsWith("treasury daily cap"))!.level).to.equal(40);
    expect(await relayer.context.client.getBalance({ address: signers[1]!.address })).to.equal(parseEther("1"));
    expect(await relayer.context.store.topUps()).to.have.length(1);
  });

  it("after a crash between recording and sending, sends the same signed transfer once: the treasury pays once", async () => {
    const { key, treasury, relayer, treasuryBalance } = await start("5");
    const target = relayer.context.pool.signers[1]!.address;
    // What a relayer that crashed right after recording left: an intent with its signed bytes, never sent.
    const wallet = createWalletClient({ account: privateKeyToAccount(key), transport: custom(hre.network.provider) });
    const nonce = await relayer.context.client.getTransactionCount({ address: treasury.address, blockTag: "pending" });
    const fees = await relayer.context.client.estimateFeesPerGas();
    const rawTx = await wallet.account.signTransaction({ chainId: relayer.context.config.chainId, type: "eip1559", to: target, value: parseEther("2"), gas: 21_000n, nonce, ...fees });
    await relayer.context.store.recordTopUp({ signer: target, treasury: treasury.address, amountWei: parseEther("2"), nonce, rawTx, txHash: keccak256(rawTx) }, new Date());
    const before = await treasuryBalance();
    const signerBefore = await relayer.context.client.getBalance({ address: target });

    // The restart's reconciliation, then more checks: the same bytes go out, once, and are marked mined.
    await relayer.context.treasury!.settle();
    await relayer.context.treasury!.settle();
    await relayer.context.treasury!.settle();
    const [topUp] = await relayer.context.store.topUps();
    expect(topUp).to.deep.include({ status: "mined", nonce, txHash: keccak256(rawTx) });
    expect(await relayer.context.client.getBalance({ address: target })).to.equal(signerBefore + parseEther("2"));
    const paid = before - (await treasuryBalance());
    expect(paid > parseEther("2") && paid < parseEther("2.01"), `treasury paid ${formatEther(paid)}`).to.equal(true);
    expect(await relayer.context.client.getTransactionCount({ address: treasury.address })).to.equal(nonce + 1);
  });
});

describe("the top-up ledger on PostgreSQL (migration v9)", function () {
  this.timeout(120_000);

  it("records an intent with its signed bytes, moves it to sent and mined, lists it newest first and the unfinished apart", async () => {
    const store = await openRelayStore({ dbPath: "unused.sqlite", databaseUrl: await createTestDatabase("treasury_topups") });
    try {
      const signer = privateKeyToAccount(generatePrivateKey()).address;
      const treasury = privateKeyToAccount(generatePrivateKey()).address;
      const first = await store.recordTopUp({ signer, treasury, amountWei: parseEther("1.5"), nonce: 7, rawTx: "0x02aa", txHash: keccak256("0x02aa") }, new Date(1_000));
      const second = await store.recordTopUp({ signer, treasury, amountWei: parseEther("2"), nonce: 8, rawTx: "0x02bb", txHash: keccak256("0x02bb") }, new Date(2_000));
      await store.setTopUpStatus(first, "sent", new Date(1_500));
      await store.setTopUpStatus(first, "mined", new Date(1_600));
      const listed = await store.topUps();
      expect(listed.map((topUp) => [topUp.id, topUp.status])).to.deep.equal([[second, "intent"], [first, "mined"]]);
      expect(listed[1]).to.deep.include({ signer, treasury, amountWei: parseEther("1.5"), nonce: 7, rawTx: "0x02aa", updatedAt: new Date(1_600) });
      expect((await store.unfinishedTopUps()).map((topUp) => topUp.id)).to.deep.equal([second]);
      expect((await store.topUps({ since: new Date(1_500) })).map((topUp) => topUp.id)).to.deep.equal([second]);
    } finally {
      await store.close();
    }
  });
});
