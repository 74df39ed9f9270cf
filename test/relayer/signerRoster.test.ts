import { expect } from "chai";
import Database from "better-sqlite3";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import hre from "hardhat";
import pino from "pino";
import { getAddress, parseEther, type Address } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { Signer } from "../../relayer/broadcast/signerPool";
import { startRelayer } from "../../relayer/startRelayer";
import { openPostgresRelayStore, openRelayStore, openSqliteRelayStore } from "../../relayer/store/openRelayStore";
import { relayMigrations } from "../../relayer/store/relayMigrations";
import type { RelayStore } from "../../relayer/store/relayStore";
import { applyPostgresMigrations, openPostgresPool } from "../../sdk/storage/postgresPool";
import { encryptKeystore, writeKeystoreFile } from "../../sdk";
import { gaslessSuite, inProcessTransport, relayerAccounts, startGaslessStack, testRelayerConfig, type GaslessStack } from "../fixtures/gaslessStack";
import { createTestDatabase } from "../fixtures/postgresServer";
import { admin, listed, pendingRelay, relayOnce, sender, until } from "../fixtures/signerAdmin";
import type { SettlementFixture } from "../fixtures/settlementFixture";
import { withOldRelayDatabase } from "../fixtures/oldRelayDatabase";

/** A fresh key in an encrypted keystore (cheap scrypt: a throwaway), funded with 10 ETH; its RELAYER_SIGNERS entry. */
async function fundedKeystore(f: SettlementFixture, directory: string, name: string): Promise<{ address: Address; entry: string }> {
  const key = generatePrivateKey();
  const address = privateKeyToAccount(key).address;
  writeKeystoreFile(directory, name, await encryptKeystore(key, "added signer", { scrypt: { n: 1024, r: 8, p: 1 } }));
  const passwordFile = join(directory, `${name}.password`);
  writeFileSync(passwordFile, "added signer\n", { mode: 0o600 });
  const [funder] = await hre.viem.getWalletClients();
  await f.publicClient.waitForTransactionReceipt({ hash: await funder!.sendTransaction({ to: address, value: parseEther("10") }) });
  return { address, entry: `keystore:${name}?password-file=${passwordFile}&dir=${directory}` };
}

const signerOf = (stack: GaslessStack, address: Address): Signer | undefined => stack.relayer!.context.pool.bySigner(address);

describe("relayer-admin signers add and retire: keys opened and let go while the relayer runs", function () {
  this.timeout(180_000);
  const suite = gaslessSuite();
  let keys: string;
  beforeEach(() => {
    keys = mkdtempSync(join(tmpdir(), "added-signers-"));
  });
  afterEach(() => rmSync(keys, { recursive: true, force: true }));

  for (const engine of ["SQLite", "PostgreSQL"] as const) {
    it(`${engine}: an added keystore key takes relays within a poll; retired, its key is closed and its address released; resumed, it is opened again`, async () => {
      const databaseEnv = engine === "PostgreSQL" ? { DATABASE_URL: await createTestDatabase("signer_roster") } : {};
      suite.stack = await startGaslessStack(suite.f, { signers: 1, relayerEnv: { ...databaseEnv, RELAYER_SIGNER_STATE_POLL_MS: "50" } });
      const stack = suite.stack;
      const [original] = stack.relayer!.context.pool.signers;
      const added = await fundedKeystore(suite.f, keys, "added-1");

      const add = await admin(stack, "signers", "add", added.entry);
      expect(add.code, add.output).to.equal(0);
      expect(add.output).to.include(`${added.address} added (keystore added-1)`);
      await until(() => signerOf(stack, added.address) !== undefined, "the relayer opening the added key");
      expect(signerOf(stack, added.address)!.backend).to.equal("keystore");
      expect((await admin(stack, "signers", "add", added.entry)).output).to.match(/already added/);

      // The original drained: the added key signs the next relay.
      expect((await admin(stack, "signers", "drain", original!.address)).code).to.equal(0);
      await until(() => original!.drained, "the drain");
      expect(await sender(stack, suite, (await relayOnce(stack, suite)).relayId)).to.equal(added.address);
      const row = (await listed(stack)).find((signer) => signer.address === added.address)!;
      expect([row.backend, row.state, row.relayer_id, row.added_entry, row.added_for_relayer]).to.deep.equal(["keystore", "active", stack.relayer!.context.config.relayerId, added.entry, null]);

      // Retired: out of the pool once idle, its address free for another relayer, reported with nothing pending.
      expect((await admin(stack, "signers", "resume", original!.address)).code).to.equal(0);
      const retire = await admin(stack, "signers", "retire", added.address);
      expect(retire.code).to.equal(0);
      expect(retire.output).to.match(/retired: it takes no new relays; once its pending ones are final its relayer closes its key/);
      await until(() => signerOf(stack, added.address) === undefined, "the retired signer let go");
      expect(await sender(stack, suite, (await relayOnce(stack, suite)).relayId)).to.equal(original!.address);
      const { dbPath, databaseUrl } = stack.relayer!.context.config;
      const store = await openRelayStore({ dbPath, databaseUrl });
      try {
        const now = new Date();
        expect(await store.claimSigners({ relayerId: "another-relayer", signers: [added.address], until: new Date(now.getTime() + 60_000), now })).to.deep.equal([]);
        await store.releaseSigners("another-relayer");
      } finally {
        await store.close();
      }
      await until(async () => (await listed(stack)).find((signer) => signer.address === added.address)?.pending === 0, "the last report of the retired signer");
      expect((await listed(stack)).find((signer) => signer.address === added.address)!.state).to.equal("retired");
      const metrics = await (await fetch(`${stack.relayer!.metricsUrl}/metrics`)).text();
      expect(metrics).to.not.include(`relayer_signer_drained{signer="${added.address}"}`);

      // Resumed: opened again from its entry, and it signs.
      expect((await admin(stack, "signers", "resume", added.address)).code).to.equal(0);
      await until(() => signerOf(stack, added.address) !== undefined, "the resumed key opened again");
      expect((await admin(stack, "signers", "drain", original!.address)).code).to.equal(0);
      await until(() => original!.drained, "the second drain");
      expect(await sender(stack, suite, (await relayOnce(stack, suite)).relayId)).to.equal(added.address);
    });
  }

  it("PostgreSQL, two relayers: a key added for any relayer is opened by exactly one; when that one stops, the other opens it", async () => {
    const databaseUrl = await createTestDatabase("signer_roster_two");
    const env = { DATABASE_URL: databaseUrl, RELAYER_SIGNER_STATE_POLL_MS: "50", RELAYER_LEASE_SECONDS: "1" };
    suite.stack = await startGaslessStack(suite.f, { signers: 1, relayerEnv: env });
    const stack = suite.stack;
    const second = await fundedKeystore(suite.f, keys, "second-relayer");
    const other = await startRelayer(
      testRelayerConfig(stack.directory, { ...env, RELAYER_ID: "relayer-two", RELAYER_SIGNERS: second.entry }),
      pino({ level: "silent" }),
      inProcessTransport(),
    );
    let otherRunning = true;
    try {
      const added = await fundedKeystore(suite.f, keys, "shared");
      expect((await admin(stack, "signers", "add", added.entry)).code).to.equal(0);
      const holders = () => [stack.relayer!, other].filter((relayer) => relayer.context.pool.bySigner(added.address) !== undefined);
      await until(() => holders().length > 0, "a relayer opening the added key");
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(holders()).to.have.length(1);
      // The holder stops cleanly (its address released); the other opens the key at its next poll after the holder's last report ages past the lease.
      const [holder] = holders();
      const survivor = holder === other ? stack.relayer! : other;
      await holder!.close();
      if (holder === other) otherRunning = false;
      await until(() => survivor.context.pool.bySigner(added.address) !== undefined, "the other relayer opening the key after the holder stopped", 10_000);
      if (holder === stack.relayer) {
        // The stack's relayer is closed already: only the API and the folder are left to close.
        await stack.api.close();
        rmSync(stack.directory, { recursive: true, force: true });
        suite.stack = undefined;
      }
    } finally {
      if (otherRunning) await other.close();
    }
  });

  it("a retired signer with a swap pending keeps its key until the swap is mined, then lets it go; a key of RELAYER_SIGNERS retired and resumed opens again", async () => {
    suite.stack = await startGaslessStack(suite.f, { signers: 2, relayerEnv: { RELAYER_SIGNER_STATE_POLL_MS: "50" } });
    const stack = suite.stack;
    const pool = stack.relayer!.context.pool;
    const { relayId, busy, mineAndAutomine } = await pendingRelay(stack, suite);
    expect((await admin(stack, "signers", "retire", busy.address)).code).to.equal(0);
    await until(() => busy.drained, "the retirement reaching the relayer");
    // Several polls later it is still there: its nonce is in flight.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(pool.bySigner(busy.address)).to.equal(busy);
    await mineAndAutomine();
    expect(await sender(stack, suite, relayId)).to.equal(busy.address);
    await until(() => pool.bySigner(busy.address) === undefined, "the retired signer let go once its swap was mined");
    expect(pool.signers).to.have.length(1);

    expect((await admin(stack, "signers", "resume", busy.address)).code).to.equal(0);
    await until(() => pool.bySigner(busy.address) !== undefined, "the RELAYER_SIGNERS key opened again");
    expect(pool.signers).to.have.length(2);
  });

  it("a retired signer whose swap is mined but not yet confirmed keeps its key until the relay is final; once let go its key signs nothing more (signer_let_go)", async () => {
    suite.stack = await startGaslessStack(suite.f, { signers: 2, relayerEnv: { RELAYER_SIGNER_STATE_POLL_MS: "50", RELAYER_CONFIRMATIONS: "3" } });
    const stack = suite.stack;
    const pool = stack.relayer!.context.pool;
    const { relayId } = await relayOnce(stack, suite);
    // Mined at once (automine), so no nonce is in flight; the relay waits for two more blocks.
    const submitted = await stack.waitFor(relayId, (relay) => relay.status === "submitted" && relay.tx_hash !== null);
    const { from } = await suite.f.publicClient.getTransaction({ hash: submitted.tx_hash as `0x${string}` });
    const busy = pool.bySigner(from)!;
    await until(() => busy.nonces.inFlight === 0, "the mined nonce settled");
    expect((await admin(stack, "signers", "retire", busy.address)).code).to.equal(0);
    await until(() => busy.drained, "the retirement reaching the relayer");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(pool.bySigner(busy.address), "kept while its relay is open").to.equal(busy);
    await hre.network.provider.request({ method: "hardhat_mine", params: ["0x3"] });
    expect((await stack.waitFor(relayId)).status).to.equal("confirmed");
    await until(() => pool.bySigner(busy.address) === undefined, "the retired signer let go once its relay was final");
    let refusal: unknown;
    await busy.account.signTransaction({ type: "eip1559", chainId: 4663, nonce: busy.nonces.next, to: busy.address, value: 0n, gas: 21_000n, maxFeePerGas: 2n, maxPriorityFeePerGas: 1n }).catch((error: unknown) => (refusal = error));
    expect(String(refusal)).to.match(/signer_let_go|retired and let go/);
  });

  it("a signer whose address another relayer claimed after this one's registration lapsed gets no new relays here and is let go", async () => {
    const lines: string[] = [];
    suite.stack = await startGaslessStack(suite.f, { signers: 2, relayerEnv: { RELAYER_SIGNER_STATE_POLL_MS: "50" }, relayerLogger: pino({ level: "error" }, { write: (line: string) => void lines.push(line) }) });
    const stack = suite.stack;
    const pool = stack.relayer!.context.pool;
    const [taken, kept] = pool.signers;
    const { dbPath, databaseUrl, relayerId } = stack.relayer!.context.config;
    const store = await openRelayStore({ dbPath, databaseUrl });
    try {
      // As after an outage longer than the lease: the registration is gone and another relayer claims the address.
      await store.releaseSigners(relayerId, [taken!.address]);
      const now = new Date();
      expect(await store.claimSigners({ relayerId: "relayer-elsewhere", signers: [taken!.address], until: new Date(now.getTime() + 60_000), now })).to.deep.equal([]);
    } finally {
      await store.close();
    }
    await until(() => pool.bySigner(taken!.address) === undefined, "the lost signer let go");
    expect(lines.join("\n")).to.include("another relayer holds this signer's address now");
    expect(await sender(stack, suite, (await relayOnce(stack, suite)).relayId)).to.equal(kept!.address);
    // The other relayer's to report from now on: this one's last report of it stops advancing.
    const reportedAt = async () => (await listed(stack)).find((row) => row.address === taken!.address)?.reported_at;
    const last = await reportedAt();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await reportedAt()).to.equal(last);
  });

  it("a restarted relayer opens the keys added for it at start; one meant for another relayer it leaves alone", async () => {
    suite.stack = await startGaslessStack(suite.f, { signers: 1, relayerEnv: { RELAYER_SIGNER_STATE_POLL_MS: "50" } });
    const stack = suite.stack;
    const config = stack.relayer!.context.config;
    const mine = await fundedKeystore(suite.f, keys, "mine");
    const theirs = await fundedKeystore(suite.f, keys, "theirs");
    expect((await admin(stack, "signers", "add", mine.entry, "--relayer", config.relayerId)).code).to.equal(0);
    expect((await admin(stack, "signers", "add", theirs.entry, "--relayer", "relayer-elsewhere")).output).to.include("relayer relayer-elsewhere opens it");
    await until(() => signerOf(stack, mine.address) !== undefined, "the key added for this relayer");
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(signerOf(stack, theirs.address)).to.equal(undefined);
    const table = (await admin(stack, "signers", "list")).output;
    expect(table).to.match(new RegExp(`${theirs.address}\\s+keystore \\(added, not opened yet\\)\\s+active`));

    await stack.relayer!.close();
    const restarted = await startRelayer(config, pino({ level: "silent" }), inProcessTransport());
    try {
      expect(restarted.signers.map((signer) => signer.address)).to.include(mine.address).and.not.include(theirs.address);
    } finally {
      await restarted.close();
    }
    // The stack's own relayer is closed already: only the API and the folder are left to close.
    await stack.api.close();
    rmSync(stack.directory, { recursive: true, force: true });
    suite.stack = undefined;
  });

  it("refuses an entry it cannot add, and says what to do: a raw key, a broken entry, a key that does not open, a key of RELAYER_SIGNERS, a drained address", async () => {
    suite.stack = await startGaslessStack(suite.f, { signers: 1, relayerEnv: { RELAYER_SIGNER_STATE_POLL_MS: "50" } });
    const stack = suite.stack;
    const [original] = stack.relayer!.context.pool.signers;
    const raw = await admin(stack, "signers", "add", `unsafe:0x${"11".repeat(32)}`);
    expect(raw.code).to.equal(2);
    expect(raw.output).to.include("stored in the database in clear").and.include("npm run keystore -- import").and.not.include("11".repeat(32));
    const broken = await admin(stack, "signers", "add", "keystore:relayer-1");
    expect(broken.code).to.equal(2);
    expect(broken.output).to.match(/password-file/);
    expect((await admin(stack, "signers", "add")).output).to.match(/signers add needs a key entry/);
    expect((await admin(stack, "signers", "list", "--relayer", "x")).output).to.match(/--relayer applies to signers add only/);
    const missing = await admin(stack, "signers", "add", `keystore:absent?password-file=${join(keys, "none")}&dir=${keys}`);
    expect(missing.code).to.equal(1);
    expect(missing.output).to.match(/cannot open keystore absent/).and.include("must work here too");

    // The relayer's own key, encrypted into a keystore: already its signer from RELAYER_SIGNERS.
    const ownKeystore = join(keys, "own");
    const ownKey = relayerAccounts(1).signers[0]!.privateKey;
    writeKeystoreFile(keys, "own", await encryptKeystore(ownKey, "pw", { scrypt: { n: 1024, r: 8, p: 1 } }));
    writeFileSync(`${ownKeystore}.password`, "pw");
    await until(async () => (await listed(stack)).some((row) => row.address === original!.address), "the relayer's first report");
    const own = await admin(stack, "signers", "add", `keystore:own?password-file=${ownKeystore}.password&dir=${keys}`);
    expect(own.code).to.equal(1);
    expect(own.output).to.include(`${getAddress(original!.address)} is already a signer of relayer ${stack.relayer!.context.config.relayerId}`);

    const drained = await fundedKeystore(suite.f, keys, "drained");
    expect((await admin(stack, "signers", "drain", drained.address, "--force")).code).to.equal(0);
    const refused = await admin(stack, "signers", "add", drained.entry);
    expect(refused.code).to.equal(1);
    expect(refused.output).to.include(`${drained.address} is drained`).and.include(`signers resume ${drained.address}`);
    expect(stack.relayer!.context.pool.signers).to.have.length(1);
  });
});

describe("the signer-states migration (SQLite 12, PostgreSQL 10) of an existing database", function () {
  this.timeout(60_000);
  const drained = getAddress("0x00000000000000000000000000000000000000e1");
  const reported = getAddress("0x00000000000000000000000000000000000000e2");
  const OLD_ROWS = [
    [drained.toLowerCase(), "drained", 1_000, null, null, null, null, null, null],
    [reported.toLowerCase(), "active", null, "relayer-a", "pkcs11", "5", 2, "7", 2_000],
  ] as const;
  const COLUMNS = "signer, state, state_changed_at, relayer_id, backend, balance_wei, pending, daily_spend_wei, reported_at";

  /** The old rows read back as they were, then the new state and an added key are taken. */
  async function expectCarriedOver(store: RelayStore): Promise<void> {
    const records = await store.signerStates();
    expect(records.map((record) => [record.signer, record.state, record.stateChangedAt?.getTime(), record.added, record.report?.relayerId, record.report?.pending])).to.deep.equal([
      [drained, "drained", 1_000, undefined, undefined, undefined],
      [reported, "active", undefined, undefined, "relayer-a", 2],
    ]);
    await store.setSignerState(reported, "retired", new Date(3_000));
    await store.addSignerKey(drained, { entry: "keystore:k?password-file=/p", relayerId: "relayer-b" }, new Date(4_000));
    expect((await store.signerStates()).map((record) => [record.state, record.added?.entry, record.added?.relayerId, record.report?.backend])).to.deep.equal([
      ["active", "keystore:k?password-file=/p", "relayer-b", undefined],
      ["retired", undefined, undefined, "pkcs11"],
    ]);
  }

  it("SQLite: a version-11 database keeps its drain decisions and reports, and takes retired states (stored drained, flagged) and added keys", async () => {
    await withOldRelayDatabase(11, (old) => {
      const insert = old.prepare(`INSERT INTO relayer_signer_states (${COLUMNS}) VALUES (${Array(9).fill("?").join(", ")})`);
      for (const row of OLD_ROWS) insert.run(...row);
    }, async (path) => {
      const store = openSqliteRelayStore(path);
      try {
        await expectCarriedOver(store);
      } finally {
        await store.close();
      }
      // Stored as a relayer from before retirement reads it: drained (the column's CHECK is unchanged), flagged retired.
      const check = new Database(path, { readonly: true });
      try {
        expect(check.prepare("SELECT state, retired FROM relayer_signer_states WHERE signer = ?").get(reported.toLowerCase())).to.deep.equal({ state: "drained", retired: 1 });
      } finally {
        check.close();
      }
    });
  });

  it("PostgreSQL: a schema at step 11 (its version 9) keeps its drain decisions and reports, and takes retired states (stored drained, flagged) and added keys", async () => {
    const databaseUrl = await createTestDatabase("signer_states_migrate");
    const pool = openPostgresPool(databaseUrl, { max: 1, applicationName: "migration-test" });
    try {
      await applyPostgresMigrations(pool, "relayer_schema_migrations", relayMigrations.filter((migration) => migration.version <= 11));
      for (const row of OLD_ROWS) await pool.query(`INSERT INTO relayer_signer_states (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, [...row]);
    } finally {
      await pool.end();
    }
    const store = await openPostgresRelayStore(databaseUrl);
    try {
      await expectCarriedOver(store);
      // Stored drained and flagged, as on SQLite; the column's CHECK is unchanged.
      const raw = openPostgresPool(databaseUrl, { max: 1, applicationName: "migration-test" });
      try {
        let refusal: unknown;
        expect((await raw.query("SELECT state, retired FROM relayer_signer_states WHERE signer = $1", [reported.toLowerCase()])).rows).to.deep.equal([{ state: "drained", retired: 1 }]);
        await raw.query("UPDATE relayer_signer_states SET state = 'retired'").catch((error: unknown) => (refusal = error));
        expect(String(refusal)).to.match(/relayer_signer_states_state_check/);
      } finally {
        await raw.end();
      }
    } finally {
      await store.close();
    }
  });
});
