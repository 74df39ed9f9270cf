import { PostgresListener } from "../../sdk/storage/postgresListener";
import { step, type SqlDatabase, type Statement } from "../../sdk/storage/sqlDatabase";
import type { RelayEventNotice } from "./pushedStatusStore";
import type { RelaySchema } from "./relaySchema";

/** NOTIFY'd at the commit of every event write, `<seq>:<integrator id>`: what wakes the streams' reads instead of a poll. */
export const RELAY_EVENTS_CHANNEL = "relay_events";

/**
 * How a written relay event reaches the streams waiting for it: the engine's `notifications`
 * capability, and the one part of pushed status that differs between the engines.
 */
export interface RelayEventSignal {
  /** Announces an event from inside the transaction that writes it (a waiter may also hear of one that rolled back). */
  announce(notice: { seq: number; integratorId: number }): Generator<Statement, void, unknown>;
  /** See `PushedStatusStore.watchRelayEvents`. */
  watch(listener: (notice: RelayEventNotice) => void): () => void;
  close(): Promise<void>;
}

/** Listeners of this process, called after the writing transaction (SQLite: one writer process per file). */
class LocalRelayEventSignal implements RelayEventSignal {
  readonly #watchers = new Set<(notice: RelayEventNotice) => void>();

  *announce(notice: { seq: number; integratorId: number }): Generator<Statement, void, unknown> {
    // better-sqlite3's transactions are synchronous: by the microtask, the writing transaction has
    // committed (or rolled back: a waiter then reads nothing new).
    if (this.#watchers.size > 0) queueMicrotask(() => notify(this.#watchers, notice));
  }

  watch(listener: (notice: RelayEventNotice) => void): () => void {
    this.#watchers.add(listener);
    return () => this.#watchers.delete(listener);
  }

  async close(): Promise<void> {}
}

/** `NOTIFY` at the writer's commit, heard by every relayer and API instance on the database through one LISTEN connection each. */
class PostgresRelayEventSignal implements RelayEventSignal {
  readonly #watchers = new Set<(notice: RelayEventNotice) => void>();
  #listener: PostgresListener | undefined;

  constructor(
    private readonly db: SqlDatabase<RelaySchema>,
    private readonly url: string,
  ) {}

  *announce(notice: { seq: number; integratorId: number }): Generator<Statement, void, unknown> {
    yield* step.rows(this.db.named("SELECT pg_notify(@channel, @payload)", { channel: RELAY_EVENTS_CHANNEL, payload: `${notice.seq}:${notice.integratorId}` }));
  }

  watch(listener: (notice: RelayEventNotice) => void): () => void {
    this.#watchers.add(listener);
    // Opened by the first watcher: every relayer's writes reach it.
    this.#listener ??= this.#listen();
    return () => this.#watchers.delete(listener);
  }

  async close(): Promise<void> {
    await this.#listener?.close();
  }

  #listen(): PostgresListener {
    const everyone = () => notify(this.#watchers, { seq: undefined, integratorId: undefined });
    const listener = new PostgresListener(this.url, [RELAY_EVENTS_CHANNEL], "relayer-events-listener", {
      notification: (_channel, payload) => {
        const [seq, integratorId] = payload.split(":").map(Number);
        notify(this.#watchers, Number.isInteger(seq) && Number.isInteger(integratorId) ? { seq, integratorId } : { seq: undefined, integratorId: undefined });
      },
      // Back after a loss: events written meanwhile were not notified, so every waiter reads.
      listening: everyone,
      lost: () => undefined,
    });
    void listener.start();
    return listener;
  }
}

function notify(watchers: ReadonlySet<(notice: RelayEventNotice) => void>, notice: RelayEventNotice): void {
  for (const watcher of watchers) watcher(notice);
}

/** The signal the database's engine gives: NOTIFY where it has `notifications` (`url` is then its address), else this process's listeners. */
export function relayEventSignal(db: SqlDatabase<RelaySchema>, url: string | undefined): RelayEventSignal {
  if (!db.capabilities.notifications) return new LocalRelayEventSignal();
  if (url === undefined) throw new Error("relay events on a database with notifications need its URL to listen on");
  return new PostgresRelayEventSignal(db, url);
}
