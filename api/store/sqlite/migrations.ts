/**
 * Schema versions of the SQLite store, applied in order, each once, in its own transaction. Never
 * edit a released migration: add the next version instead.
 *
 * Times are milliseconds since the epoch; addresses are lowercase hex.
 */
export type Migration = { version: number; name: string; sql: string };

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
];
