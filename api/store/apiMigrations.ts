import type { SchemaMigration } from "../../sdk/storage/schemaMigrations";

/**
 * The API's schema on both engines, one step per entry (sdk/storage/schemaMigrations.ts): SQLite
 * records these versions in `schema_migrations`; PostgreSQL records its own in
 * `api_schema_migrations`, `postgresVersion` for the steps from before the lists were joined. Both
 * reach the same tables and columns, so one row type reads both (apiSchema.ts). Never edit a released
 * step; add the next version, with one number on both engines.
 *
 * Times are milliseconds since the epoch (BIGINT on PostgreSQL); addresses are lowercase hex; amounts decimal text.
 */
export const apiMigrations: readonly SchemaMigration[] = [
  {
    version: 1,
    name: "onboarding: challenges, integrators, api keys",
    sqlite: `
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
    sqlite: `
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
    sqlite: `
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
    sqlite: `
      -- A restarted devnet is a new chain with the same id: decisions of another run (NULL for those
      -- stored before this version) no longer apply, and the next decision on the token replaces them.
      ALTER TABLE token_overrides ADD COLUMN chain_run TEXT;
    `,
  },
  {
    version: 5,
    name: "integrator lifecycle: rejected and suspended profiles, operator limits, audit trail",
    rebuildsReferencedTable: true,
    sqlite: `
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
    sqlite: `
      ALTER TABLE quotes ADD COLUMN gasless TEXT;
      CREATE INDEX quotes_quote_id ON quotes (quote_id);
    `,
    // PostgreSQL's first step: every table of versions 1 to 6 at once.
    postgresVersion: 1,
    postgres: `
      CREATE TABLE challenges (
        nonce         TEXT PRIMARY KEY,
        wallet        TEXT NOT NULL,
        action        TEXT NOT NULL,
        chain_id      INTEGER NOT NULL,
        payload_hash  TEXT,
        message       TEXT NOT NULL,
        issued_at     BIGINT NOT NULL,
        expires_at    BIGINT NOT NULL,
        used_at       BIGINT
      );
      CREATE INDEX challenges_expires_at ON challenges (expires_at);

      CREATE TABLE integrators (
        id                           INTEGER GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
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
        created_at                   BIGINT NOT NULL,
        approved_at                  BIGINT,
        quote_rate_limit_per_minute  INTEGER,
        swap_rate_limit_per_minute   INTEGER
      );
      CREATE INDEX integrators_owner_wallet ON integrators (owner_wallet);

      CREATE TABLE api_keys (
        id                           INTEGER GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        integrator_id                INTEGER NOT NULL REFERENCES integrators (id),
        label                        TEXT NOT NULL,
        prefix                       TEXT NOT NULL,
        last_four                    TEXT NOT NULL,
        secret_hash                  TEXT NOT NULL UNIQUE,
        scopes                       TEXT NOT NULL,
        quote_rate_limit_per_minute  INTEGER NOT NULL,
        swap_rate_limit_per_minute   INTEGER NOT NULL,
        created_at                   BIGINT NOT NULL,
        revoked_at                   BIGINT,
        max_fee_bps                  INTEGER
      );
      CREATE INDEX api_keys_prefix ON api_keys (prefix);
      CREATE INDEX api_keys_integrator_id ON api_keys (integrator_id);

      CREATE TABLE integrator_audit (
        id             INTEGER GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        integrator_id  INTEGER NOT NULL REFERENCES integrators (id),
        key_id         INTEGER REFERENCES api_keys (id),
        action         TEXT NOT NULL,
        detail         TEXT NOT NULL,
        actor          TEXT NOT NULL,
        at             BIGINT NOT NULL
      );
      CREATE INDEX integrator_audit_integrator ON integrator_audit (integrator_id, id);

      CREATE TABLE token_demand (
        chain_id       INTEGER NOT NULL,
        token          TEXT NOT NULL,
        integrator_id  INTEGER NOT NULL,
        first_seen     BIGINT NOT NULL,
        last_seen      BIGINT NOT NULL,
        PRIMARY KEY (chain_id, token, integrator_id)
      );
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
        created_at    BIGINT NOT NULL,
        updated_at    BIGINT NOT NULL,
        chain_run     TEXT,
        PRIMARY KEY (chain_id, token),
        CHECK (status = 'disabled' OR (symbol IS NOT NULL AND decimals IS NOT NULL AND pool_address IS NOT NULL
               AND pool_token0 IS NOT NULL AND pool_token1 IS NOT NULL AND pool_fee_bps IS NOT NULL))
      );

      CREATE TABLE quotes (
        id               BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
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
        block_number     BIGINT NOT NULL,
        expires_at       BIGINT NOT NULL,
        created_at       BIGINT NOT NULL,
        gasless          TEXT,
        UNIQUE (chain_id, onchain_id)
      );
      CREATE INDEX quotes_quote_id ON quotes (quote_id);
    `,
  },
  {
    version: 7,
    name: "challenges: signature verifications that failed (or are running), so a nonce serves at most a few",
    postgresVersion: 2,
    sql: `
      ALTER TABLE challenges ADD COLUMN failed_verifications INTEGER NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 8,
    name: "integrators: when an operator approved or confirmed the profile (only those count toward token promotion)",
    sqlite: `
      -- Auto-approved profiles are active with approved_at = created_at and no operator behind them;
      -- one approved later than created was approved by an operator.
      ALTER TABLE integrators ADD COLUMN operator_approved_at INTEGER;
      UPDATE integrators SET operator_approved_at = approved_at WHERE approved_at IS NOT NULL AND approved_at > created_at;
    `,
    postgresVersion: 3,
    postgres: `
      ALTER TABLE integrators ADD COLUMN operator_approved_at BIGINT;
      UPDATE integrators SET operator_approved_at = approved_at WHERE approved_at IS NOT NULL AND approved_at > created_at;
    `,
  },
  {
    version: 9,
    name: "token_overrides: the transfer taxes measured when a token was promoted or enabled",
    postgresVersion: 4,
    sql: `
      -- NULL on decisions stored before taxes were measured, and on disabled tokens.
      ALTER TABLE token_overrides ADD COLUMN buy_tax_bps INTEGER CHECK (buy_tax_bps BETWEEN 0 AND 10000);
      ALTER TABLE token_overrides ADD COLUMN sell_tax_bps INTEGER CHECK (sell_tax_bps BETWEEN 0 AND 10000);
      ALTER TABLE token_overrides ADD COLUMN transfer_tax_bps INTEGER CHECK (transfer_tax_bps BETWEEN 0 AND 10000);
    `,
  },
  {
    version: 10,
    name: "api_credentials_changed: every new or changed key and every changed profile is announced (NOTIFY api_credentials), so API instances drop cached credentials",
    postgresVersion: 5,
    postgres: `
      CREATE FUNCTION api_credentials_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('api_credentials', TG_TABLE_NAME);
        RETURN NULL;
      END $$;
      CREATE TRIGGER api_keys_credentials_changed AFTER INSERT OR UPDATE OR DELETE ON api_keys FOR EACH STATEMENT EXECUTE FUNCTION api_credentials_changed();
      CREATE TRIGGER integrators_credentials_changed AFTER UPDATE OR DELETE ON integrators FOR EACH STATEMENT EXECUTE FUNCTION api_credentials_changed();
    `,
  },
];
