import type { SchemaMigration } from "../../sdk/storage/schemaMigrations";

/**
 * The relayer's schema on both engines, one step per entry (sdk/storage/schemaMigrations.ts):
 * SQLite records these versions in `schema_migrations`; PostgreSQL records its own in
 * `relayer_schema_migrations` (the API's tables may share the database), `postgresVersion` for the
 * steps from before the lists were joined. Both reach the same tables and columns, so one row type
 * reads both (relaySchema.ts). Never edit a released step; add the next version, with one number on
 * both engines.
 */
export const relayMigrations: readonly SchemaMigration[] = [
  {
    version: 1,
    name: "relays and every transaction broadcast for them",
    sqlite: `
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
        deadline          INTEGER NOT NULL,
        estimated_gas     INTEGER NOT NULL,
        accepted_block    INTEGER NOT NULL,
        status            TEXT NOT NULL CHECK (status IN ('accepted', 'submitted', 'confirmed', 'failed', 'expired', 'rejected')),
        reason            TEXT,
        error             TEXT,
        signer            TEXT,
        signer_nonce      INTEGER,
        cancelling        INTEGER NOT NULL DEFAULT 0,
        created_at        INTEGER NOT NULL,
        updated_at        INTEGER NOT NULL,
        -- One relay per quote: a second hand-off of the same quote finds the first.
        UNIQUE (chain_id, quote_id),
        UNIQUE (integrator_id, idempotency_key)
      ) STRICT;
      CREATE INDEX relays_open ON relays (status) WHERE status IN ('accepted', 'submitted');

      -- Written before the broadcast: after a crash every hash that may be on chain is known here.
      CREATE TABLE relay_transactions (
        hash                      TEXT PRIMARY KEY,
        relay_id                  TEXT NOT NULL REFERENCES relays (id),
        kind                      TEXT NOT NULL CHECK (kind IN ('swap', 'cancel')),
        signer                    TEXT NOT NULL,
        nonce                     INTEGER NOT NULL,
        raw                       TEXT,
        max_fee_per_gas           TEXT NOT NULL,
        max_priority_fee_per_gas  TEXT NOT NULL,
        sent_at                   INTEGER NOT NULL,
        mined                     INTEGER NOT NULL DEFAULT 0
      ) STRICT;
      CREATE INDEX relay_transactions_relay ON relay_transactions (relay_id, sent_at);
      CREATE INDEX relay_transactions_signer_nonce ON relay_transactions (signer, nonce);
    `,
  },
  {
    version: 2,
    name: "the chain run (deploy block hash) the relays belong to",
    sqlite: `CREATE TABLE relayer_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;`,
  },
  {
    version: 3,
    name: "relay claims: the relayer working on a relay and until when its lease holds",
    sqlite: `
      ALTER TABLE relays ADD COLUMN claimed_by TEXT;
      ALTER TABLE relays ADD COLUMN lease_until INTEGER;
    `,
    // PostgreSQL's first step: every table of versions 1 to 3 at once.
    postgresVersion: 1,
    postgres: `
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
    version: 4,
    name: "the fee's worth in wei (loss check), reverted relays counted against takers and integrators, live signers",
    sqlite: `
      ALTER TABLE relays ADD COLUMN fee_wei TEXT;
      CREATE TABLE gasless_reverts (
        relay_id            TEXT PRIMARY KEY,
        taker               TEXT NOT NULL,
        integrator_id       INTEGER NOT NULL,
        reverted_at         INTEGER NOT NULL,
        -- The operator cleared it (npm run integrators -- clear-reverts): kept, no longer counted.
        cleared_taker       INTEGER NOT NULL DEFAULT 0,
        cleared_integrator  INTEGER NOT NULL DEFAULT 0
      ) STRICT;
      CREATE INDEX gasless_reverts_taker ON gasless_reverts (taker, reverted_at);
      CREATE INDEX gasless_reverts_integrator ON gasless_reverts (integrator_id, reverted_at);
      CREATE TABLE relayer_signers (
        signer      TEXT PRIMARY KEY,
        relayer_id  TEXT NOT NULL,
        live_until  INTEGER NOT NULL
      ) STRICT;
    `,
    postgresVersion: 2,
    postgres: `
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
    version: 5,
    name: "relay cancellation: the cancelled status and when the integrator asked",
    // SQLite cannot change a CHECK: the table is rebuilt (relay_transactions references it).
    rebuildsReferencedTable: true,
    sqlite: `
      CREATE TABLE relays_new (
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
        deadline          INTEGER NOT NULL,
        estimated_gas     INTEGER NOT NULL,
        accepted_block    INTEGER NOT NULL,
        status            TEXT NOT NULL CHECK (status IN ('accepted', 'submitted', 'confirmed', 'failed', 'expired', 'rejected', 'cancelled')),
        reason            TEXT,
        error             TEXT,
        signer            TEXT,
        signer_nonce      INTEGER,
        cancelling        INTEGER NOT NULL DEFAULT 0,
        created_at        INTEGER NOT NULL,
        updated_at        INTEGER NOT NULL,
        claimed_by        TEXT,
        lease_until       INTEGER,
        fee_wei           TEXT,
        cancel_requested_at INTEGER,
        UNIQUE (chain_id, quote_id),
        UNIQUE (integrator_id, idempotency_key)
      ) STRICT;
      INSERT INTO relays_new (id, chain_id, quote_id, onchain_quote_id, integrator_id, api_key_id, idempotency_key, taker, router, data,
        signature, permit2_nonce, deadline, estimated_gas, accepted_block, status, reason, error, signer, signer_nonce, cancelling,
        created_at, updated_at, claimed_by, lease_until, fee_wei)
      SELECT id, chain_id, quote_id, onchain_quote_id, integrator_id, api_key_id, idempotency_key, taker, router, data,
        signature, permit2_nonce, deadline, estimated_gas, accepted_block, status, reason, error, signer, signer_nonce, cancelling,
        created_at, updated_at, claimed_by, lease_until, fee_wei FROM relays;
      DROP TABLE relays;
      ALTER TABLE relays_new RENAME TO relays;
      CREATE INDEX relays_open ON relays (status) WHERE status IN ('accepted', 'submitted');
    `,
    postgresVersion: 3,
    postgres: `
      ALTER TABLE relays DROP CONSTRAINT relays_status_check;
      ALTER TABLE relays ADD CONSTRAINT relays_status_check
        CHECK (status IN ('accepted', 'submitted', 'confirmed', 'failed', 'expired', 'rejected', 'cancelled'));
      ALTER TABLE relays ADD COLUMN cancel_requested_at BIGINT;
    `,
  },
  {
    version: 6,
    name: "batch transactions: one signed transaction on every relay it carries, with the relay's position in it",
    sqlite: `
      CREATE TABLE relay_transactions_batched (
        hash                      TEXT NOT NULL,
        relay_id                  TEXT NOT NULL REFERENCES relays (id),
        kind                      TEXT NOT NULL CHECK (kind IN ('swap', 'cancel')),
        signer                    TEXT NOT NULL,
        nonce                     INTEGER NOT NULL,
        raw                       TEXT,
        max_fee_per_gas           TEXT NOT NULL,
        max_priority_fee_per_gas  TEXT NOT NULL,
        sent_at                   INTEGER NOT NULL,
        mined                     INTEGER NOT NULL DEFAULT 0,
        -- A batch transaction's rows (one per relay, same hash) are the batch record: signer, nonce, members and positions.
        batch_position            INTEGER,
        batch_size                INTEGER,
        PRIMARY KEY (hash, relay_id)
      ) STRICT;
      INSERT INTO relay_transactions_batched (hash, relay_id, kind, signer, nonce, raw, max_fee_per_gas, max_priority_fee_per_gas, sent_at, mined)
        SELECT hash, relay_id, kind, signer, nonce, raw, max_fee_per_gas, max_priority_fee_per_gas, sent_at, mined FROM relay_transactions ORDER BY rowid;
      DROP TABLE relay_transactions;
      ALTER TABLE relay_transactions_batched RENAME TO relay_transactions;
      CREATE INDEX relay_transactions_relay ON relay_transactions (relay_id, sent_at);
      CREATE INDEX relay_transactions_signer_nonce ON relay_transactions (signer, nonce);
      CREATE INDEX relay_transactions_hash ON relay_transactions (hash);
    `,
    postgresVersion: 4,
    postgres: `
      ALTER TABLE relay_transactions DROP CONSTRAINT relay_transactions_pkey;
      ALTER TABLE relay_transactions ADD PRIMARY KEY (hash, relay_id);
      ALTER TABLE relay_transactions ADD COLUMN batch_position INTEGER;
      ALTER TABLE relay_transactions ADD COLUMN batch_size INTEGER;
      CREATE INDEX relay_transactions_hash ON relay_transactions (hash);
    `,
  },
  {
    version: 7,
    name: "pushed status: relay events (the outbox, written with each status change), webhooks and their deliveries",
    sqlite: `
      CREATE TABLE relay_events (
        seq            INTEGER PRIMARY KEY AUTOINCREMENT,
        event_id       TEXT NOT NULL UNIQUE,
        relay_id       TEXT NOT NULL,
        integrator_id  INTEGER NOT NULL,
        status         TEXT NOT NULL,
        -- The JSON a webhook receives, fixed when the change happened.
        body           TEXT NOT NULL,
        created_at     INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX relay_events_integrator ON relay_events (integrator_id, seq);
      CREATE INDEX relay_events_relay ON relay_events (relay_id, seq);
      CREATE INDEX relay_events_created ON relay_events (created_at);
      -- The signing secret is kept as issued (HMAC needs it): this database is as secret as the signer keys' config.
      CREATE TABLE relay_webhooks (
        integrator_id  INTEGER PRIMARY KEY,
        url            TEXT NOT NULL,
        secret         TEXT NOT NULL,
        created_at     INTEGER NOT NULL,
        updated_at     INTEGER NOT NULL
      ) STRICT;
      CREATE TABLE relay_webhook_deliveries (
        event_seq        INTEGER PRIMARY KEY,
        relay_id         TEXT NOT NULL,
        integrator_id    INTEGER NOT NULL,
        state            TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'failed', 'dropped')),
        attempts         INTEGER NOT NULL DEFAULT 0,
        next_attempt_at  INTEGER,
        claimed_by       TEXT,
        lease_until      INTEGER,
        last_attempt_at  INTEGER,
        last_status      INTEGER,
        last_error       TEXT,
        delivered_at     INTEGER,
        created_at       INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX relay_webhook_deliveries_due ON relay_webhook_deliveries (next_attempt_at, event_seq) WHERE state = 'pending';
      CREATE INDEX relay_webhook_deliveries_relay ON relay_webhook_deliveries (relay_id, event_seq) WHERE state = 'pending';
      CREATE INDEX relay_webhook_deliveries_integrator ON relay_webhook_deliveries (integrator_id, event_seq);
    `,
    postgresVersion: 5,
    postgres: `
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
    version: 8,
    name: "the unpaid-gas ledger: every transaction's gas paid with no fee, its price and its cause (replaces the revert counts)",
    sqlite: `
      -- Gas the operator paid with no fee, per relay and transaction, and who caused it (relayer/ledger/unpaidGas.ts).
      CREATE TABLE unpaid_gas (
        seq                 INTEGER PRIMARY KEY AUTOINCREMENT,
        tx_hash             TEXT NOT NULL,
        relay_id            TEXT NOT NULL,
        kind                TEXT NOT NULL CHECK (kind IN ('reverted_swap', 'batch_skip', 'cancel_replacement', 'nonce_release', 'failed_retry')),
        cause               TEXT NOT NULL CHECK (cause IN ('taker', 'integrator', 'market', 'operator')),
        taker               TEXT NOT NULL,
        integrator_id       INTEGER NOT NULL,
        gas_used            INTEGER NOT NULL,
        -- The effective price per gas in wei, decimal text (gas x price may not fit 64 bits).
        gas_price           TEXT NOT NULL,
        charged_at          INTEGER NOT NULL,
        detail              TEXT NOT NULL,
        -- The operator cleared it (npm run integrators -- clear-reverts): kept, no longer counted.
        cleared_taker       INTEGER NOT NULL DEFAULT 0,
        cleared_integrator  INTEGER NOT NULL DEFAULT 0,
        -- One entry per transaction, relay and kind: a crash and a retry never count it twice.
        UNIQUE (tx_hash, relay_id, kind)
      ) STRICT;
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
    postgresVersion: 6,
    postgres: `
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
    version: 9,
    name: "webhook circuit breaker per endpoint (consecutive failures, open until), coarse attempt errors",
    sqlite: `
      ALTER TABLE relay_webhooks ADD COLUMN consecutive_failures INTEGER NOT NULL DEFAULT 0;
      -- NULL: closed. In the future: open (nothing is claimed). Past: half-open (one probe at a time).
      ALTER TABLE relay_webhooks ADD COLUMN circuit_open_until INTEGER;
      -- Integrators see coarse attempt errors only (the socket's own error would map the relayer's network).
      UPDATE relay_webhook_deliveries SET last_error = CASE
          WHEN last_error LIKE 'answered %' THEN 'http_status'
          WHEN last_error LIKE '%TIMEOUT%' OR last_error LIKE '%imeout%' OR last_error LIKE '%aborted%' THEN 'timeout'
          WHEN last_error LIKE '%CERT%' OR last_error LIKE '%TLS%' OR last_error LIKE '%SSL%' THEN 'tls'
          ELSE 'unreachable' END
        WHERE last_error IS NOT NULL AND last_error NOT IN ('unreachable', 'timeout', 'tls', 'http_status');
    `,
    postgresVersion: 7,
    postgres: `
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
    version: 10,
    name: "signer states: the operator's drain/resume decision per signer, and its relayer's last report",
    sqlite: `
      CREATE TABLE relayer_signer_states (
        signer            TEXT PRIMARY KEY,
        state             TEXT NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'drained')),
        state_changed_at  INTEGER,
        relayer_id        TEXT,
        backend           TEXT,
        balance_wei       TEXT,
        pending           INTEGER,
        daily_spend_wei   TEXT,
        reported_at       INTEGER
      ) STRICT;
    `,
    postgresVersion: 8,
    postgres: `
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
    version: 11,
    name: "treasury top-ups: each transfer from the treasury key to a signer, recorded with its signed bytes before it is sent",
    sqlite: `
      CREATE TABLE relayer_topups (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        signer      TEXT NOT NULL,
        treasury    TEXT NOT NULL,
        amount_wei  TEXT NOT NULL,
        nonce       INTEGER NOT NULL,
        -- The signed transaction itself: after a crash the same bytes are sent again, never a second transfer.
        raw_tx      TEXT NOT NULL,
        tx_hash     TEXT NOT NULL UNIQUE,
        status      TEXT NOT NULL CHECK (status IN ('intent', 'sent', 'mined', 'failed')),
        created_at  INTEGER NOT NULL,
        updated_at  INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX relayer_topups_created_at ON relayer_topups (created_at);
      CREATE INDEX relayer_topups_unfinished ON relayer_topups (status) WHERE status IN ('intent', 'sent');
    `,
    postgresVersion: 9,
    postgres: `
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
    version: 12,
    name: "signers added and retired while relayers run: whether a drained signer is retired, the key entry an operator added, and the relayer meant to open it",
    // A retired signer is stored drained (a relayer from before this version reads it so) and marked retired.
    postgresVersion: 10,
    sql: `
      ALTER TABLE relayer_signer_states ADD COLUMN retired INTEGER NOT NULL DEFAULT 0;
      -- A RELAYER_SIGNERS entry (pkcs11: or keystore:, never a raw key) a running relayer opens.
      ALTER TABLE relayer_signer_states ADD COLUMN key_entry TEXT;
      ALTER TABLE relayer_signer_states ADD COLUMN key_relayer_id TEXT;
    `,
  },
];
