import { expect } from "chai";
import hre from "hardhat";
import pino from "pino";
import { createWalletClient, custom, formatEther, keccak256, parseEther, toHex, type Address, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { Signer } from "../../relayer/broadcast/signerPool";
import { runRelayerAdminCommand } from "../../scripts/relayerAdmin";
import { openRelayStore } from "../../relayer/store/openRelayStore";
import { gaslessSuite, RELAYER_TOKEN, startGaslessStack } from "../fixtures/gaslessStack";
import { Treasury } from "../../relayer/broadcast/treasury";
import type { KeyBackend } from "../../relayer/signing/keyBackend";
import { localKeyBackend } from "../../relayer/signing/localKeyBackend";
import { policedAccount } from "../../relayer/signing/policedAccount";
import { SignerSpend } from "../../relayer/signing/signerSpend";
import { SIGNING_PROBE_DIGEST, SigningHealth } from "../../relayer/signing/signingHealth";
import { SigningPolicy } from "../../relayer/signing/signingPolicy";
import { createTestDatabase } from "../fixtures/postgresServer";
import { recordTopUpId } from "../fixtures/recordTopUp";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { until } from "../fixtures/waitUntil";


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
    const page = await (await fetch(`${relayer.metricsUrl}/metrics`)).text();
    expect(page).to.include('relayer_treasury_topups_total{status="mined"} 1');
    // What the treasury alerts compare: its balance at the last check, the day's top-ups and the cap.
    expect(page).to.match(/^relayer_treasury_daily_cap_wei 20000000000000000000$/m).and.match(/^relayer_treasury_daily_spend_wei 7000000000000000000$/m);
    const gauge = Number(/^relayer_treasury_balance_wei (\S+)$/m.exec(page)?.[1]);
    expect(gauge > 92.99e18 && gauge <= 100e18, `relayer_treasury_balance_wei ${gauge}`).to.equal(true);
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

  it("a treasury key whose backend fails to sign tries no top-up, says so once at warn, degrades /ready (still 200) and its gauge; once it signs again a probe clears it and the top-up goes", async () => {
    const { relayer, signers, lines } = await start("20");
    const { context } = relayer;
    // The treasury key behind a backend that can be switched off, as an HSM that went away.
    const inner = localKeyBackend(generatePrivateKey(), "unsafe", "test treasury");
    let failure: string | undefined;
    const key = { asked: [] as Hex[] };
    const backend: KeyBackend = {
      ...inner,
      signDigest: async (digest) => {
        key.asked.push(digest);
        return failure === undefined ? inner.signDigest(digest) : Promise.reject(new Error(failure));
      },
    };
    await setBalance(backend.address, parseEther("100"));
    const { config } = context;
    const policy = new SigningPolicy({ chainId: config.chainId, maxFeePerGas: config.maxFeeWei, maxValue: config.maxValuePerTxWei }, () => new Set(), signers.map((signer) => signer.address), pino({ level: "silent" }));
    const signing = new SigningHealth((digest) => backend.signDigest(digest));
    const account = policedAccount(backend, policy, { nextNonce: () => 0, spend: new SignerSpend(undefined), health: signing });
    Object.assign(context, { treasury: new Treasury(context, account, { targetWei: parseEther("8"), dailyCapWei: parseEther("20") }, signing) });
    const ready = async () => {
      const response = await fetch(`${relayer.url}/ready`, { headers: { authorization: `Bearer ${RELAYER_TOKEN}` } });
      return { status: response.status, body: (await response.json()) as { treasury?: { address: string; signing: string }; degraded?: { treasury_signing?: string } } };
    };
    const gauge = async () => Number(/^relayer_treasury_signing_failing (\S+)$/m.exec(await (await fetch(`${relayer.metricsUrl}/metrics`)).text())?.[1]);
    expect((await ready()).body.treasury).to.deep.equal({ address: backend.address, signing: "ok" });

    failure = "CKR_DEVICE_REMOVED";
    await setBalance(signers[0]!.address, parseEther("1"));
    const failing = (line: { msg: string }) => line.msg.startsWith("treasury key's backend fails to sign");
    await until(() => lines.some(failing), "the treasury's signing failure being logged");
    expect(lines.find(failing)!.level).to.equal(40);
    const down = await ready();
    expect(down.status).to.equal(200);
    expect(down.body.treasury!.signing).to.match(/^fails since \S+: CKR_DEVICE_REMOVED$/);
    expect(down.body.degraded?.treasury_signing).to.include("treasury key");
    expect(await gauge()).to.equal(1);
    // More checks while it fails: each probes, none tries a top-up (nothing asked of the backend but the
    // probe's digest), nothing is written, and no second warn.
    const asked = key.asked.length;
    await context.treasury!.settle();
    await context.treasury!.topUp(signers[0]!.address, parseEther("1"));
    await context.treasury!.settle();
    expect(key.asked.slice(asked).every((digest) => digest === SIGNING_PROBE_DIGEST)).to.equal(true);
    expect(await context.store.topUps()).to.have.length(0);
    expect(lines.filter(failing)).to.have.length(1);
    expect(lines.filter((line) => line.msg.startsWith("treasury top-up not signed"))).to.have.length(0);

    failure = undefined;
    await until(async () => (await context.store.topUps()).some((topUp) => topUp.status === "mined"), "the top-up being mined once the key signs");
    expect(lines.some((line) => line.msg.startsWith("treasury key's backend signs again"))).to.equal(true);
    expect((await ready()).body.treasury!.signing).to.equal("ok");
    expect((await ready()).body.degraded).to.equal(undefined);
    expect(await gauge()).to.equal(0);
    expect(await context.client.getBalance({ address: signers[0]!.address })).to.equal(parseEther("8"));
  });

  it("after a crash between recording and sending, sends the same signed transfer once: the treasury pays once", async () => {
    const { key, treasury, relayer, treasuryBalance } = await start("5");
    const target = relayer.context.pool.signers[1]!.address;
    // What a relayer that crashed right after recording left: an intent with its signed bytes, never sent.
    const wallet = createWalletClient({ account: privateKeyToAccount(key), transport: custom(hre.network.provider) });
    const nonce = await relayer.context.client.getTransactionCount({ address: treasury.address, blockTag: "pending" });
    const fees = await relayer.context.client.estimateFeesPerGas();
    const rawTx = await wallet.account.signTransaction({ chainId: relayer.context.config.chainId, type: "eip1559", to: target, value: parseEther("2"), gas: 21_000n, nonce, ...fees });
    await recordTopUpId(relayer.context.store, { signer: target, treasury: treasury.address, amountWei: parseEther("2"), nonce, rawTx, txHash: keccak256(rawTx) }, new Date());
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

describe("the top-up ledger (migration v9), shared by every relayer of a database", function () {
  this.timeout(120_000);
  const address = () => privateKeyToAccount(generatePrivateKey()).address;
  const intent = (signer: Address, treasury: Address, amountWei: bigint, nonce: number) => {
    const rawTx = `0x02${nonce.toString(16).padStart(4, "0")}${signer.slice(2, 10)}` as Hex;
    return { signer, treasury, amountWei, nonce, rawTx, txHash: keccak256(rawTx) };
  };

  it("records an intent with its signed bytes, moves it to sent and mined, lists it newest first and the unfinished apart", async () => {
    const store = await openRelayStore({ dbPath: "unused.sqlite", databaseUrl: await createTestDatabase("treasury_topups") });
    try {
      const [signer, other, treasury] = [address(), address(), address()];
      const first = await recordTopUpId(store, { ...intent(signer, treasury, parseEther("1.5"), 7), rawTx: "0x02aa", txHash: keccak256("0x02aa") }, new Date(1_000));
      const second = await recordTopUpId(store, intent(other, treasury, parseEther("2"), 8), new Date(2_000));
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

  for (const engine of ["SQLite", "PostgreSQL"] as const)
  it(`writes nothing for a signer with a top-up unfinished, a treasury nonce an unfinished one holds, or an amount past the cap over the window (failed ones and another treasury's not counted), on ${engine}`, async () => {
    const directory = mkdtempSync(join(tmpdir(), "topups-"));
    const store = await openRelayStore(engine === "SQLite" ? { dbPath: join(directory, "relayer.sqlite"), databaseUrl: undefined } : { dbPath: "unused.sqlite", databaseUrl: await createTestDatabase("treasury_topup_refusals") });
    try {
      const [signer, other, third, treasury, elsewhere] = [address(), address(), address(), address(), address()];
      const cap = { capWei: parseEther("5"), since: new Date(10_000) };
      await recordTopUpId(store, intent(signer, treasury, parseEther("9"), 1), new Date(5_000)).then((id) => store.setTopUpStatus(id, "mined", new Date(5_000)));
      const failed = await store.recordTopUp(intent(other, treasury, parseEther("4"), 2), new Date(11_000), cap);
      await store.setTopUpStatus((failed as { id: number }).id, "failed", new Date(11_000));
      await recordTopUpId(store, intent(third, elsewhere, parseEther("4"), 2), new Date(11_000));
      const open = await store.recordTopUp(intent(signer, treasury, parseEther("3"), 3), new Date(12_000), cap);
      expect(open).to.have.property("id");
      expect(await store.recordTopUp(intent(signer, treasury, parseEther("1"), 4), new Date(13_000), cap)).to.deep.equal({ refused: "unfinished" });
      expect(await store.recordTopUp(intent(other, treasury, parseEther("1"), 3), new Date(13_000), cap)).to.deep.equal({ refused: "nonce" });
      expect(await store.recordTopUp(intent(other, treasury, parseEther("2.5"), 4), new Date(13_000), cap)).to.deep.equal({ refused: "cap", spentWei: parseEther("3") });
      expect(await store.recordTopUp(intent(other, treasury, parseEther("2"), 4), new Date(13_000), cap)).to.have.property("id");
      expect(await store.topUps({ since: new Date(12_500) })).to.have.length(1);
    } finally {
      await store.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it("two relayers sharing one treasury, racing on one database, record top-ups that together stay within the cap", async () => {
    const url = await createTestDatabase("treasury_topup_race");
    const stores = await Promise.all([openRelayStore({ dbPath: "unused.sqlite", databaseUrl: url }), openRelayStore({ dbPath: "unused.sqlite", databaseUrl: url })]);
    try {
      const treasury = address();
      const cap = { capWei: parseEther("10"), since: new Date(0) };
      // Twelve signers at 3 ETH each, six asked by each relayer at once, the nonces each relayer read apart: three fit.
      const signers = Array.from({ length: 12 }, address);
      const outcomes = await Promise.all(signers.map((signer, index) => stores[index % 2]!.recordTopUp(intent(signer, treasury, parseEther("3"), 100 + index), new Date(1_000), cap)));
      expect(outcomes.filter((outcome) => "id" in outcome)).to.have.length(3);
      expect(outcomes.filter((outcome) => "refused" in outcome && outcome.refused === "cap")).to.have.length(9);
      const total = (await stores[0]!.topUps()).reduce((sum, topUp) => sum + topUp.amountWei, 0n);
      expect(total).to.equal(parseEther("9"));
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  });
});
