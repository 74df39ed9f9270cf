import type Database from "better-sqlite3";
import type { CredentialCache } from "../sqlIntegrators";
import type { ApiKeyCredential } from "../store";
import { SqliteChangeMark } from "./sqliteChangeMark";

/** Prefixes whose credentials are remembered at once; a flood of made-up prefixes starts the memo over, never grows it. */
const MAX_REMEMBERED_PREFIXES = 1024;

/**
 * Every trading request authenticates, so SQLite's joined lookup is remembered; but only while the
 * database has not changed at all, by this connection or any other (`SqliteChangeMark`), so a
 * revocation, a suspension or a new key holds from the next request exactly as without the memo.
 */
export class SqliteCredentialMemo implements CredentialCache {
  readonly #changes: SqliteChangeMark;
  readonly #credentials = new Map<string, readonly ApiKeyCredential[]>();

  constructor(db: Database.Database) {
    this.#changes = new SqliteChangeMark(db);
  }

  async get(prefix: string, read: () => Promise<ApiKeyCredential[]>): Promise<ApiKeyCredential[]> {
    if (this.#changes.moved()) this.#credentials.clear();
    let credentials = this.#credentials.get(prefix);
    if (credentials === undefined) {
      credentials = (await read()).map(frozen);
      if (this.#credentials.size >= MAX_REMEMBERED_PREFIXES) this.#credentials.clear();
      this.#credentials.set(prefix, credentials);
    }
    return [...credentials];
  }

  invalidate(): void {
    this.#credentials.clear();
  }
}

/** Remembered credentials are handed to many requests: none of them may change one for the others. */
function frozen(credential: ApiKeyCredential): ApiKeyCredential {
  Object.freeze(credential.key.scopes);
  Object.freeze(credential.key);
  Object.freeze(credential.integrator);
  return Object.freeze(credential);
}
