import type { PostgresMigration } from "../../sdk/storage/postgresPool";

/**
 * Schema of the relayer's tables on PostgreSQL, recorded in `relayer_schema_migrations` (the API's
 * tables may share the database). Same columns as the SQLite schema at its latest version, so one
 * row mapper reads both. Never edit a released migration; add the next version.
 */
export const postgresRelayMigrations: readonly PostgresMigration[] = [
  {
    version: 1,
    name: "relays with claims, every transaction broadcast for them, the chain run (the SQLite schema at its version 3)",
    sql: `
      CREATE TABLE relays (
        id                TEXT PRIMARY KEY,
        chain_id          INTEGER NOT NULL,
        quote_id          TEXT NOT NULL,
        onchain_quote_id  TEXT NOT NULL,
        integrator_id     INTEGER NOT NULL,
        api_key_id        INTEGER NOT NULL,
        idempotency_key   TEXT,
        taker             TEXT NOT NULL,
        router            TEXT NOT NULL,
        data              TEXT NOT NULL,
        signature         TEXT NOT NULL,
        permit2_nonce     TEXT NOT NULL,
        deadline          BIGINT NOT NULL,
        estimated_gas     INTEGER NOT NULL,
        accepted_block    BIGINT NOT NULL,
        status            TEXT NOT NULL CHECK (status IN ('accepted', 'submitted', 'confirmed', 'failed', 'expired', 'rejected')),
        reason            TEXT,
        error             TEXT,
        signer            TEXT,
        signer_nonce      INTEGER,
        cancelling        INTEGER NOT NULL DEFAULT 0,
        -- The relayer working on it (RELAYER_ID) and until when; another takes it over after that.
        claimed_by        TEXT,
        lease_until       BIGINT,
        created_at        BIGINT NOT NULL,
        updated_at        BIGINT NOT NULL,
        UNIQUE (chain_id, quote_id),
        UNIQUE (integrator_id, idempotency_key)
      );
      CREATE INDEX relays_open ON relays (created_at, id) WHERE status IN ('accepted', 'submitted');

      CREATE TABLE relay_transactions (
        seq                       BIGINT GENERATED ALWAYS AS IDENTITY,
        hash                      TEXT PRIMARY KEY,
        relay_id                  TEXT NOT NULL REFERENCES relays (id),
        kind                      TEXT NOT NULL CHECK (kind IN ('swap', 'cancel')),
        signer                    TEXT NOT NULL,
        nonce                     INTEGER NOT NULL,
        raw                       TEXT,
        max_fee_per_gas           TEXT NOT NULL,
        max_priority_fee_per_gas  TEXT NOT NULL,
        sent_at                   BIGINT NOT NULL,
        mined                     INTEGER NOT NULL DEFAULT 0
      );
      CREATE INDEX relay_transactions_relay ON relay_transactions (relay_id, sent_at);
      CREATE INDEX relay_transactions_signer_nonce ON relay_transactions (signer, nonce);

      CREATE TABLE relayer_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    `,
  },
  {
    version: 2,
    name: "the fee's worth in wei (loss check), reverted relays counted against takers and integrators, live signers (the SQLite schema at its version 4)",
    sql: `
      ALTER TABLE relays ADD COLUMN fee_wei TEXT;
      CREATE TABLE gasless_reverts (
        relay_id            TEXT PRIMARY KEY,
        taker               TEXT NOT NULL,
        integrator_id       INTEGER NOT NULL,
        reverted_at         BIGINT NOT NULL,
        cleared_taker       INTEGER NOT NULL DEFAULT 0,
        cleared_integrator  INTEGER NOT NULL DEFAULT 0
      );
      CREATE INDEX gasless_reverts_taker ON gasless_reverts (taker, reverted_at);
      CREATE INDEX gasless_reverts_integrator ON gasless_reverts (integrator_id, reverted_at);
      CREATE TABLE relayer_signers (
        signer      TEXT PRIMARY KEY,
        relayer_id  TEXT NOT NULL,
        live_until  BIGINT NOT NULL
      );
    `,
  },
  {
    version: 3,
    name: "relay cancellation: the cancelled status and when the integrator asked (the SQLite schema at its version 5)",
    sql: `
      ALTER TABLE relays DROP CONSTRAINT relays_status_check;
      ALTER TABLE relays ADD CONSTRAINT relays_status_check
        CHECK (status IN ('accepted', 'submitted', 'confirmed', 'failed', 'expired', 'rejected', 'cancelled'));
      ALTER TABLE relays ADD COLUMN cancel_requested_at BIGINT;
    `,
  },
  {
    version: 4,
    name: "batch transactions: one signed transaction on every relay it carries, with the relay's position in it (the SQLite schema at its version 6)",
    sql: `
      ALTER TABLE relay_transactions DROP CONSTRAINT relay_transactions_pkey;
      ALTER TABLE relay_transactions ADD PRIMARY KEY (hash, relay_id);
      ALTER TABLE relay_transactions ADD COLUMN batch_position INTEGER;
      ALTER TABLE relay_transactions ADD COLUMN batch_size INTEGER;
      CREATE INDEX relay_transactions_hash ON relay_transactions (hash);
    `,
  },
  {
    version: 5,
    name: "pushed status: relay events (the outbox), webhooks and their deliveries (the SQLite schema at its version 7)",
    sql: `
      CREATE TABLE relay_events (
        seq            BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        event_id       TEXT NOT NULL UNIQUE,
        relay_id       TEXT NOT NULL,
        integrator_id  INTEGER NOT NULL,
        status         TEXT NOT NULL,
        body           TEXT NOT NULL,
        created_at     BIGINT NOT NULL
      );
      CREATE INDEX relay_events_integrator ON relay_events (integrator_id, seq);
      CREATE INDEX relay_events_relay ON relay_events (relay_id, seq);
      CREATE INDEX relay_events_created ON relay_events (created_at);
      CREATE TABLE relay_webhooks (
        integrator_id  INTEGER PRIMARY KEY,
        url            TEXT NOT NULL,
        secret         TEXT NOT NULL,
        created_at     BIGINT NOT NULL,
        updated_at     BIGINT NOT NULL
      );
      CREATE TABLE relay_webhook_deliveries (
        event_seq        BIGINT PRIMARY KEY,
        relay_id         TEXT NOT NULL,
        integrator_id    INTEGER NOT NULL,
        state            TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'failed', 'dropped')),
        attempts         INTEGER NOT NULL DEFAULT 0,
        next_attempt_at  BIGINT,
        claimed_by       TEXT,
        lease_until      BIGINT,
        last_attempt_at  BIGINT,
        last_status      INTEGER,
        last_error       TEXT,
        delivered_at     BIGINT,
        created_at       BIGINT NOT NULL
      );
      CREATE INDEX relay_webhook_deliveries_due ON relay_webhook_deliveries (next_attempt_at, event_seq) WHERE state = 'pending';
      CREATE INDEX relay_webhook_deliveries_relay ON relay_webhook_deliveries (relay_id, event_seq) WHERE state = 'pending';
      CREATE INDEX relay_webhook_deliveries_integrator ON relay_webhook_deliveries (integrator_id, event_seq);
    `,
  },
  {
    version: 6,
    name: "the unpaid-gas ledger: every transaction's gas paid with no fee, its price and its cause (the SQLite schema at its version 8)",
    sql: `
      -- Gas the operator paid with no fee, per relay and transaction, and who caused it (relayer/ledger/unpaidGas.ts).
      CREATE TABLE unpaid_gas (
        seq                 BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        tx_hash             TEXT NOT NULL,
        relay_id            TEXT NOT NULL,
        kind                TEXT NOT NULL CHECK (kind IN ('reverted_swap', 'batch_skip', 'cancel_replacement', 'nonce_release', 'failed_retry')),
        cause               TEXT NOT NULL CHECK (cause IN ('taker', 'integrator', 'market', 'operator')),
        taker               TEXT NOT NULL,
        integrator_id       INTEGER NOT NULL,
        gas_used            BIGINT NOT NULL,
        -- The effective price per gas in wei, decimal text (gas x price may not fit 64 bits).
        gas_price           TEXT NOT NULL,
        charged_at          BIGINT NOT NULL,
        detail              TEXT NOT NULL,
        -- The operator cleared it (npm run integrators -- clear-reverts): kept, no longer counted.
        cleared_taker       INTEGER NOT NULL DEFAULT 0,
        cleared_integrator  INTEGER NOT NULL DEFAULT 0,
        -- One entry per transaction, relay and kind: a crash and a retry never count it twice.
        UNIQUE (tx_hash, relay_id, kind)
      );
      CREATE INDEX unpaid_gas_taker ON unpaid_gas (taker, charged_at);
      CREATE INDEX unpaid_gas_integrator ON unpaid_gas (integrator_id, charged_at);
      CREATE INDEX unpaid_gas_charged_at ON unpaid_gas (charged_at);
      -- The revert counts are carried over as ledger entries charged to their takers: the gas is the
      -- relay's estimate and the price the mined transaction's max fee (the receipts were not kept);
      -- a revert whose relay was forgotten with its chain run is carried with no gas (it blocked nobody
      -- on the new chain). Cleared flags stay as they were.
      INSERT INTO unpaid_gas (tx_hash, relay_id, kind, cause, taker, integrator_id, gas_used, gas_price, charged_at, detail, cleared_taker, cleared_integrator)
      SELECT COALESCE((SELECT t.hash FROM relay_transactions t WHERE t.relay_id = g.relay_id AND t.mined = 1 ORDER BY t.sent_at DESC LIMIT 1), '0x'),
        g.relay_id,
        CASE WHEN EXISTS (SELECT 1 FROM relay_transactions t WHERE t.relay_id = g.relay_id AND t.mined = 1 AND t.batch_position IS NOT NULL)
          THEN 'batch_skip' ELSE 'reverted_swap' END,
        'taker', g.taker, g.integrator_id,
        COALESCE((SELECT r.estimated_gas FROM relays r WHERE r.id = g.relay_id), 0),
        COALESCE((SELECT t.max_fee_per_gas FROM relay_transactions t WHERE t.relay_id = g.relay_id AND t.mined = 1 ORDER BY t.sent_at DESC LIMIT 1), '0'),
        g.reverted_at,
        'carried over from the count of reverted relays: gas is the relay''s estimate, the price its transaction''s max fee',
        g.cleared_taker, g.cleared_integrator
      FROM gasless_reverts g;
      DROP TABLE gasless_reverts;
    `,
  },
  {
    version: 7,
    name: "webhook circuit breaker per endpoint (consecutive failures, open until), coarse attempt errors",
    sql: `
      ALTER TABLE relay_webhooks ADD COLUMN consecutive_failures INTEGER NOT NULL DEFAULT 0;
      -- NULL: closed. In the future: open (nothing is claimed). Past: half-open (one probe at a time).
      ALTER TABLE relay_webhooks ADD COLUMN circuit_open_until BIGINT;
      -- Integrators see coarse attempt errors only (the socket's own error would map the relayer's network).
      UPDATE relay_webhook_deliveries SET last_error = CASE
          WHEN last_error LIKE 'answered %' THEN 'http_status'
          WHEN last_error LIKE '%TIMEOUT%' OR last_error LIKE '%imeout%' OR last_error LIKE '%aborted%' THEN 'timeout'
          WHEN last_error LIKE '%CERT%' OR last_error LIKE '%TLS%' OR last_error LIKE '%SSL%' THEN 'tls'
          ELSE 'unreachable' END
        WHERE last_error IS NOT NULL AND last_error NOT IN ('unreachable', 'timeout', 'tls', 'http_status');
    `,
  },
  {
    version: 8,
    name: "signer states: the operator's drain/resume decision per signer, and its relayer's last report (the SQLite schema at its version 10)",
    sql: `
      CREATE TABLE relayer_signer_states (
        signer            TEXT PRIMARY KEY,
        state             TEXT NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'drained')),
        state_changed_at  BIGINT,
        relayer_id        TEXT,
        backend           TEXT,
        balance_wei       TEXT,
        pending           INTEGER,
        daily_spend_wei   TEXT,
        reported_at       BIGINT
      );
    `,
  },
  {
    version: 9,
    name: "treasury top-ups: each transfer from the treasury key to a signer, recorded with its signed bytes before it is sent (the SQLite schema at its version 11)",
    sql: `
      CREATE TABLE relayer_topups (
        id          BIGSERIAL PRIMARY KEY,
        signer      TEXT NOT NULL,
        treasury    TEXT NOT NULL,
        amount_wei  TEXT NOT NULL,
        nonce       BIGINT NOT NULL,
        -- The signed transaction itself: after a crash the same bytes are sent again, never a second transfer.
        raw_tx      TEXT NOT NULL,
        tx_hash     TEXT NOT NULL UNIQUE,
        status      TEXT NOT NULL CHECK (status IN ('intent', 'sent', 'mined', 'failed')),
        created_at  BIGINT NOT NULL,
        updated_at  BIGINT NOT NULL
      );
      CREATE INDEX relayer_topups_created_at ON relayer_topups (created_at);
      CREATE INDEX relayer_topups_unfinished ON relayer_topups (status) WHERE status IN ('intent', 'sent');
    `,
  },
  {
    version: 10,
    name: "signers added and retired while relayers run: whether a drained signer is retired, the key entry an operator added, and the relayer meant to open it (the SQLite schema at its version 12)",
    // A retired signer is stored drained (a relayer from before this version reads it so) and marked retired.
    sql: `
      ALTER TABLE relayer_signer_states ADD COLUMN retired INTEGER NOT NULL DEFAULT 0;
      -- A RELAYER_SIGNERS entry (pkcs11: or keystore:, never a raw key) a running relayer opens.
      ALTER TABLE relayer_signer_states ADD COLUMN key_entry TEXT;
      ALTER TABLE relayer_signer_states ADD COLUMN key_relayer_id TEXT;
    `,
  },
];
