import { expect } from "chai";
import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { zeroAddress } from "viem";
import { openSqliteStore } from "../../api/store/sqlite/sqliteStore";
import { apiMigrations } from "../../api/store/apiMigrations";
import { engineMigrations } from "../../sdk/storage/schemaMigrations";

const migrations = engineMigrations(apiMigrations, "sqlite");

describe("sqlite store", () => {
  let directory: string;
  let path: string;
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), "api-store-"));
    path = join(directory, "nested", "api.sqlite");
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  const inspect = <T>(read: (db: Database.Database) => T): T => {
    const db = new Database(path, { readonly: true });
    try {
      return read(db);
    } finally {
      db.close();
    }
  };

  it("migrates a database with profiles and keys to the integrator lifecycle schema, keeping every row and its foreign keys", async () => {
    const owner = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";
    {
      const { mkdirSync } = await import("node:fs");
      mkdirSync(join(directory, "nested"), { recursive: true });
      const db = new Database(path);
      db.pragma("foreign_keys = ON");
      db.exec("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT");
      for (const migration of migrations.filter((candidate) => candidate.version <= 4)) {
        db.exec(migration.sql);
        db.prepare("INSERT INTO schema_migrations VALUES (?, ?, 0)").run(migration.version, migration.name);
      }
      db.exec(`INSERT INTO integrators (slug, owner_wallet, display_name, fee_recipient, max_fee_bps, status, created_at)
        VALUES ('old-profile', '${owner}', 'Old', '${owner}', 25, 'active', 1)`);
      db.exec(`INSERT INTO api_keys (integrator_id, label, prefix, last_four, secret_hash, scopes, quote_rate_limit_per_minute,
        swap_rate_limit_per_minute, created_at) VALUES (1, 'k', 'tsk_0000', 'ffff', 'hash', '["quote:read"]', 60, 10, 2)`);
      db.close();
    }
    const store = openSqliteStore(path);
    try {
      const [profile] = await store.listIntegrators();
      expect(profile).to.deep.include({ slug: "old-profile", status: "active", maxFeeBps: 25, quoteRateLimitPerMinute: undefined });
      const [key] = await store.listApiKeys([1]);
      expect(key).to.deep.include({ label: "k", quoteRateLimitPerMinute: 60, maxFeeBps: undefined });
    } finally {
      await store.close();
    }
    expect(inspect((db) => db.pragma("foreign_key_check"))).to.deep.equal([]);
    expect(inspect((db) => (db.prepare("SELECT sql FROM sqlite_master WHERE name = 'integrators'").get() as { sql: string }).sql)).to.contain("'suspended'");
  });

  it("creates the file and its folder, in WAL mode, with every migration recorded once across reopenings", async () => {
    await openSqliteStore(path).close();
    await openSqliteStore(path).close();
    const versions = inspect((db) => db.prepare("SELECT version FROM schema_migrations ORDER BY version").all());
    expect(versions).to.deep.equal(migrations.map((migration) => ({ version: migration.version })));
    expect(inspect((db) => db.pragma("journal_mode", { simple: true }))).to.equal("wal");
  });

  it("refuses a database whose schema is newer than this build", async () => {
    await openSqliteStore(path).close();
    const db = new Database(path);
    db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'future', 0)").run();
    db.close();
    expect(() => openSqliteStore(path)).to.throw(/schema version 999 is newer/);
  });

  it("spends a challenge once: consumed, then used; an expired one is never spent", async () => {
    const store = openSqliteStore(path);
    try {
      const issuedAt = new Date("2026-01-01T00:00:00.000Z");
      const expiresAt = new Date("2026-01-01T00:10:00.000Z");
      const challenge = { wallet: zeroAddress, action: "view_integrator_profile", chainId: 4663, payloadHash: undefined, message: "m", issuedAt, expiresAt } as const;
      await store.saveChallenge({ ...challenge, nonce: "aaaaaaaa" });
      await store.saveChallenge({ ...challenge, nonce: "bbbbbbbb" });
      const during = new Date("2026-01-01T00:05:00.000Z");
      expect(await store.consumeChallenge({ nonce: "aaaaaaaa", at: during })).to.equal("consumed");
      expect(await store.consumeChallenge({ nonce: "aaaaaaaa", at: during })).to.equal("used");
      expect((await store.findChallenge("aaaaaaaa"))?.usedAt).to.deep.equal(during);
      expect(await store.consumeChallenge({ nonce: "bbbbbbbb", at: expiresAt })).to.equal("expired");
      expect((await store.findChallenge("bbbbbbbb"))?.usedAt).to.equal(undefined);
    } finally {
      await store.close();
    }
  });
});
