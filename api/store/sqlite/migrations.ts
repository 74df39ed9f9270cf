/**
 * Schema versions of the SQLite store, applied in order, each once, in its own transaction. Never
 * edit a released migration: add the next version instead.
 *
 * Times are milliseconds since the epoch; addresses are lowercase hex.
 */
import type { Migration } from "../../../sdk/storage/sqliteMigrations";

export const migrations: readonly Migration[] = [
  {
    version: 1,
    name: "onboarding: challenges, integrators, api keys",
    sql: `
      CREATE TABLE challenges (
        nonce         TEXT PRIMARY KEY,
        wallet        TEXT NOT NULL,
        action        TEXT NOT NULL,
        chain_id      INTEGER NOT NULL,
        payload_hash  TEXT,
        message       TEXT NOT NULL,
        issued_at     INTEGER NOT NULL,
        expires_at    INTEGER NOT NULL,
        used_at       INTEGER
      ) STRICT;
      CREATE INDEX challenges_expires_at ON challenges (expires_at);

      CREATE TABLE integrators (
        id               INTEGER PRIMARY KEY AUTOINCREMENT,
        slug             TEXT NOT NULL UNIQUE,
        owner_wallet     TEXT NOT NULL,
        display_name     TEXT NOT NULL,
        contact_email    TEXT,
        telegram_handle  TEXT,
        app_url          TEXT,
        fee_recipient    TEXT NOT NULL,
        max_fee_bps      INTEGER NOT NULL,
        chain_id         INTEGER,
        status           TEXT NOT NULL CHECK (status IN ('pending', 'active')),
        created_at       INTEGER NOT NULL,
        approved_at      INTEGER
      ) STRICT;
      CREATE INDEX integrators_owner_wallet ON integrators (owner_wallet);

      CREATE TABLE api_keys (
        id                           INTEGER PRIMARY KEY AUTOINCREMENT,
        integrator_id                INTEGER NOT NULL REFERENCES integrators (id),
        label                        TEXT NOT NULL,
        prefix                       TEXT NOT NULL,
        last_four                    TEXT NOT NULL,
        secret_hash                  TEXT NOT NULL UNIQUE,
        scopes                       TEXT NOT NULL,
        quote_rate_limit_per_minute  INTEGER NOT NULL,
        swap_rate_limit_per_minute   INTEGER NOT NULL,
        created_at                   INTEGER NOT NULL,
        revoked_at                   INTEGER
      ) STRICT;
      CREATE INDEX api_keys_prefix ON api_keys (prefix);
      CREATE INDEX api_keys_integrator_id ON api_keys (integrator_id);
    `,
  },
  {
    version: 2,
    name: "supported tokens: unsupported-token demand, operator and promotion decisions",
    sql: `
      -- One row per (chain, token, integrator): repeated probes of one integrator count once.
      CREATE TABLE token_demand (
        chain_id       INTEGER NOT NULL,
        token          TEXT NOT NULL,
        integrator_id  INTEGER NOT NULL,
        first_seen     INTEGER NOT NULL,
        last_seen      INTEGER NOT NULL,
        PRIMARY KEY (chain_id, token, integrator_id)
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX token_demand_last_seen ON token_demand (chain_id, last_seen);

      CREATE TABLE token_overrides (
        chain_id      INTEGER NOT NULL,
        token         TEXT NOT NULL,
        status        TEXT NOT NULL CHECK (status IN ('enabled', 'promoted', 'disabled')),
        source        TEXT NOT NULL CHECK (source IN ('operator', 'demand')),
        symbol        TEXT,
        decimals      INTEGER,
        pool_address  TEXT,
        pool_token0   TEXT,
        pool_token1   TEXT,
        pool_fee_bps  INTEGER,
        reason        TEXT,
        created_at    INTEGER NOT NULL,
        updated_at    INTEGER NOT NULL,
        PRIMARY KEY (chain_id, token),
        -- A token added to the set needs what routing and resolution read.
        CHECK (status = 'disabled' OR (symbol IS NOT NULL AND decimals IS NOT NULL AND pool_address IS NOT NULL
               AND pool_token0 IS NOT NULL AND pool_token1 IS NOT NULL AND pool_fee_bps IS NOT NULL))
      ) STRICT;
    `,
  },
  {
    version: 3,
    name: "quotes: the server's bytes32 quote id of every quote, so a fill's SwapSettled event maps back to its UUID",
    sql: `
      -- Rows are appended in rowid order (cheap on the quote path); fills are looked up by what their
      -- event reports, the chain and the bytes32 id.
      CREATE TABLE quotes (
        id               INTEGER PRIMARY KEY,
        chain_id         INTEGER NOT NULL,
        onchain_id       TEXT NOT NULL,
        quote_id         TEXT NOT NULL,
        api_key_id       INTEGER NOT NULL,
        integrator_id    INTEGER NOT NULL,
        taker            TEXT NOT NULL,
        recipient        TEXT NOT NULL,
        sell_token       TEXT NOT NULL,
        buy_token        TEXT NOT NULL,
        sell_amount      TEXT NOT NULL,
        buy_amount       TEXT NOT NULL,
        min_buy_amount   TEXT NOT NULL,
        fee_amount       TEXT NOT NULL,
        settlement       TEXT NOT NULL CHECK (settlement IN ('permit2', 'allowance')),
        router           TEXT NOT NULL,
        block_number     INTEGER NOT NULL,
        expires_at       INTEGER NOT NULL,
        created_at       INTEGER NOT NULL,
        UNIQUE (chain_id, onchain_id)
      ) STRICT;
    `,
  },
  {
    version: 4,
    name: "token decisions belong to one chain run (the manifest's deploy block hash)",
    sql: `
      -- A restarted devnet is a new chain with the same id: decisions of another run (NULL for those
      -- stored before this version) no longer apply, and the next decision on the token replaces them.
      ALTER TABLE token_overrides ADD COLUMN chain_run TEXT;
    `,
  },
  {
    version: 5,
    name: "integrator lifecycle: rejected and suspended profiles, operator limits, audit trail",
    rebuildsReferencedTable: true,
    sql: `
      -- SQLite cannot widen a CHECK: the table is rebuilt (api_keys references it by name).
      CREATE TABLE integrators_v5 (
        id                           INTEGER PRIMARY KEY AUTOINCREMENT,
        slug                         TEXT NOT NULL UNIQUE,
        owner_wallet                 TEXT NOT NULL,
        display_name                 TEXT NOT NULL,
        contact_email                TEXT,
        telegram_handle              TEXT,
        app_url                      TEXT,
        fee_recipient                TEXT NOT NULL,
        max_fee_bps                  INTEGER NOT NULL,
        chain_id                     INTEGER,
        status                       TEXT NOT NULL CHECK (status IN ('pending', 'active', 'rejected', 'suspended')),
        created_at                   INTEGER NOT NULL,
        approved_at                  INTEGER,
        -- Limits the operator set for the profile's keys (new keys too); NULL: the configured defaults.
        quote_rate_limit_per_minute  INTEGER,
        swap_rate_limit_per_minute   INTEGER
      ) STRICT;
      INSERT INTO integrators_v5 (id, slug, owner_wallet, display_name, contact_email, telegram_handle, app_url,
        fee_recipient, max_fee_bps, chain_id, status, created_at, approved_at)
        SELECT id, slug, owner_wallet, display_name, contact_email, telegram_handle, app_url, fee_recipient,
          max_fee_bps, chain_id, status, created_at, approved_at FROM integrators;
      DROP TABLE integrators;
      ALTER TABLE integrators_v5 RENAME TO integrators;
      CREATE INDEX integrators_owner_wallet ON integrators (owner_wallet);

      -- A key's own fee cap, below its profile's; NULL: the profile's.
      ALTER TABLE api_keys ADD COLUMN max_fee_bps INTEGER;

      -- Who changed what and when, for integrators show.
      CREATE TABLE integrator_audit (
        id             INTEGER PRIMARY KEY,
        integrator_id  INTEGER NOT NULL REFERENCES integrators (id),
        key_id         INTEGER REFERENCES api_keys (id),
        action         TEXT NOT NULL,
        detail         TEXT NOT NULL,
        actor          TEXT NOT NULL,
        at             INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX integrator_audit_integrator ON integrator_audit (integrator_id, id);
    `,
  },
  {
    version: 6,
    name: "quotes: the signed terms of gasless quotes, found by their UUID when submitted",
    sql: `
      ALTER TABLE quotes ADD COLUMN gasless TEXT;
      CREATE INDEX quotes_quote_id ON quotes (quote_id);
    `,
  },
  {
    version: 7,
    name: "challenges: signature verifications that failed (or are running), so a nonce serves at most a few",
    sql: `
      ALTER TABLE challenges ADD COLUMN failed_verifications INTEGER NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 8,
    name: "integrators: when an operator approved or confirmed the profile (only those count toward token promotion)",
    sql: `
      -- Auto-approved profiles are active with approved_at = created_at and no operator behind them;
      -- one approved later than created was approved by an operator.
      ALTER TABLE integrators ADD COLUMN operator_approved_at INTEGER;
      UPDATE integrators SET operator_approved_at = approved_at WHERE approved_at IS NOT NULL AND approved_at > created_at;
    `,
  },
  {
    version: 9,
    name: "token_overrides: the transfer taxes measured when a token was promoted or enabled",
    sql: `
      -- NULL on decisions stored before taxes were measured, and on disabled tokens.
      ALTER TABLE token_overrides ADD COLUMN buy_tax_bps INTEGER CHECK (buy_tax_bps BETWEEN 0 AND 10000);
      ALTER TABLE token_overrides ADD COLUMN sell_tax_bps INTEGER CHECK (sell_tax_bps BETWEEN 0 AND 10000);
      ALTER TABLE token_overrides ADD COLUMN transfer_tax_bps INTEGER CHECK (transfer_tax_bps BETWEEN 0 AND 10000);
    `,
  },
];
