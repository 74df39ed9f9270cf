import { expect } from "chai";
import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { zeroAddress } from "viem";
import { openSqliteStore } from "../../api/store/sqlite/sqliteStore";
import { migrations } from "../../api/store/sqlite/migrations";

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
