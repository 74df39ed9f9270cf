import { PostgresListener } from "../../../sdk/storage/postgresListener";
import type { CredentialCache } from "../sqlIntegrators";
import type { ApiKeyCredential } from "../store";

/** The channel the `api_credentials_changed` trigger (migration 4) notifies on every write to api_keys and every UPDATE or DELETE of integrators. */
export const CREDENTIALS_CHANNEL = "api_credentials";
/** A cached entry is read again after this long whatever happens: the bound should a notification still be missed. */
const MAX_ENTRY_AGE_MS = 60_000;

/**
 * An API instance's cache of credentials by key prefix, kept only while it listens for
 * `NOTIFY api_credentials`: any change to a key or a profile (revocation, suspension, new limits), by
 * any instance, the operator's CLI or plain SQL, fires the trigger at commit, and every listening
 * instance drops its whole cache when the notification arrives. Without a listening connection
 * nothing is cached (each request reads PostgreSQL, as before). A read that started before a
 * notification is not cached after it (a generation counter), so it cannot put a stale row back.
 *
 * Bound: a revocation or suspension holds on an instance from the moment PostgreSQL's notification
 * reaches it, sent at the commit (on loopback, well under a millisecond; a key is never served
 * stale once the instance has the notification), and in any case within MAX_ENTRY_AGE_MS: the
 * listener's heartbeat (sdk/storage/postgresListener) finds a dead connection within 10 s, and no
 * entry outlives a minute.
 */
export class PgCredentialCache implements CredentialCache {
  readonly #entries = new Map<string, { credentials: ApiKeyCredential[]; at: number }>();
  readonly #listener: PostgresListener;
  #generation = 0;
  #listening = false;
  #closed = false;

  constructor(url: string) {
    this.#listener = new PostgresListener(url, [CREDENTIALS_CHANNEL], "api-credentials-listener", {
      notification: () => this.#drop(),
      // Whatever changed before LISTEN took effect is not in the cache: it starts empty here.
      listening: () => {
        this.#drop();
        this.#listening = !this.#closed;
      },
      lost: () => {
        this.#drop();
        this.#listening = false;
      },
    });
  }

  /** Opens the listening connection; resolves once it listens (or failed: then it retries in the background). */
  start(): Promise<void> {
    return this.#listener.start();
  }

  /** The cached credentials of `prefix`, or reads them with `read` (and caches them while listening). */
  async get(prefix: string, read: () => Promise<ApiKeyCredential[]>): Promise<ApiKeyCredential[]> {
    const cached = this.#listening ? this.#entries.get(prefix) : undefined;
    if (cached !== undefined && Date.now() - cached.at < MAX_ENTRY_AGE_MS) return cached.credentials;
    const generation = this.#generation;
    const credentials = await read();
    // An unknown prefix is not cached: a flood of made-up keys must not fill the memory.
    if (this.#listening && generation === this.#generation && credentials.length > 0) this.#entries.set(prefix, { credentials, at: Date.now() });
    return credentials;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#listening = false;
    await this.#listener.close();
  }

  /** Drops every cached credential now: this instance's own writes hold at once, before their notification returns. */
  invalidate(): void {
    this.#drop();
  }

  #drop(): void {
    this.#generation++;
    this.#entries.clear();
  }
}
