import { ApiError, SnapshotFormatError } from "../errors/client";
import { snapshotJsonSchema, type SnapshotJson } from "../wire/snapshotJson";
import type { ApiTransport } from "./apiTransport";
import type { ClientLogger } from "./clientLogger";

/** One chain's current supported-token set, as the client holds it. */
export type TokenSnapshot = Readonly<{
  chainId: number;
  snapshotId: string;
  etag: string | undefined;
  /** The parsed set: lowercase addresses, for `has`. */
  addresses: ReadonlySet<string>;
  fetchedAt: Date;
  /** The body as GET /tokens/supported-tokens served it (its documented wire shape), verified. */
  json: SnapshotJson;
}>;

/** What one refresh did: a new set (200), the same set (304), or kept the old one after a failure. */
export type SnapshotRefresh = "replaced" | "unchanged" | "kept";

const SUPPORTED_SCHEMA_VERSION = 1;
const MIN_POLL_MS = 15_000;
const MAX_POLL_MS = 60_000;

/**
 * The spec's recommended snapshot client: one shared full snapshot per chain, fetched on first use,
 * verified (chain_id, schema_version, count) and replaced atomically only after parsing succeeded,
 * then polled with If-None-Match every 15 to 60 s. A 304 or a transient failure keeps the current set.
 */
export class SnapshotCache {
  readonly #transport: ApiTransport;
  readonly #logger: ClientLogger;
  readonly #pollMs: number;
  readonly #snapshots = new Map<number, TokenSnapshot>();
  readonly #loading = new Map<number, Promise<TokenSnapshot>>();
  readonly #timers = new Map<number, ReturnType<typeof setInterval>>();

  constructor(transport: ApiTransport, logger: ClientLogger, pollIntervalMs = 30_000) {
    this.#transport = transport;
    this.#logger = logger;
    this.#pollMs = Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, pollIntervalMs));
  }

  /** The current snapshot of `chainId`, fetching it (once, shared by concurrent callers) on first use. */
  async get(chainId: number): Promise<TokenSnapshot> {
    const current = this.#snapshots.get(chainId);
    if (current !== undefined) return current;
    let loading = this.#loading.get(chainId);
    if (loading === undefined) {
      loading = this.#fetch(chainId, undefined).then((snapshot) => {
        this.#snapshots.set(chainId, snapshot);
        this.#startPolling(chainId);
        return snapshot;
      });
      loading.finally(() => this.#loading.delete(chainId)).catch(() => undefined);
      this.#loading.set(chainId, loading);
    }
    return loading;
  }

  /** The snapshot held now, without fetching; undefined before the first successful fetch. */
  peek(chainId: number): TokenSnapshot | undefined {
    return this.#snapshots.get(chainId);
  }

  /** Whether `token` (any case) is in the chain's snapshot; fetches the snapshot on first use. */
  async isSupported(chainId: number, token: string): Promise<boolean> {
    return (await this.get(chainId)).addresses.has(token.toLowerCase());
  }

  /**
   * One conditional poll now (what the timer does). A failure is logged and keeps the current set;
   * only the very first fetch of a chain rejects.
   */
  async refresh(chainId: number): Promise<SnapshotRefresh> {
    const current = this.#snapshots.get(chainId);
    if (current === undefined) {
      await this.get(chainId);
      return "replaced";
    }
    try {
      const next = await this.#fetch(chainId, current);
      if (next === current) return "unchanged";
      this.#snapshots.set(chainId, next);
      return "replaced";
    } catch (error) {
      this.#logger.warn?.(`snapshot refresh for chain ${chainId} failed, keeping ${current.snapshotId}: ${(error as Error).message.split("\n")[0]}`);
      return "kept";
    }
  }

  /** Stops every poll timer (timers never keep a process alive, but a long-lived app may call this). */
  close(): void {
    for (const timer of this.#timers.values()) clearInterval(timer);
    this.#timers.clear();
  }

  #startPolling(chainId: number): void {
    if (this.#timers.has(chainId)) return;
    const timer = setInterval(() => void this.refresh(chainId), this.#pollMs);
    timer.unref?.();
    this.#timers.set(chainId, timer);
  }

  async #fetch(chainId: number, current: TokenSnapshot | undefined): Promise<TokenSnapshot> {
    const path = `/tokens/supported-tokens?chain_id=${chainId}`;
    const response = await this.#transport.request({
      method: "GET",
      path,
      retry: current === undefined,
      headers: current?.etag === undefined ? {} : { "if-none-match": current.etag },
    });
    if (response.status === 304) {
      if (current === undefined) throw new ApiError({ method: "GET", path, status: 304, code: "unexpected_not_modified", message: "304 without a cached snapshot" });
      return current;
    }
    const parsed = snapshotJsonSchema.safeParse(response.body);
    if (!parsed.success) throw new SnapshotFormatError(`the body is not a snapshot (${parsed.error.issues[0]?.path.join(".") ?? "?"}: ${parsed.error.issues[0]?.message ?? "?"})`);
    const body = parsed.data;
    if (body.schema_version !== SUPPORTED_SCHEMA_VERSION) throw new SnapshotFormatError(`schema_version ${body.schema_version}, this client reads ${SUPPORTED_SCHEMA_VERSION}`);
    if (body.chain_id !== chainId) throw new SnapshotFormatError(`chain_id ${body.chain_id}, asked for ${chainId}`);
    const addresses = new Set(body.addresses.map((address) => address.toLowerCase()));
    if (body.count !== body.addresses.length || addresses.size !== body.count) {
      throw new SnapshotFormatError(`count ${body.count} but ${body.addresses.length} addresses (${addresses.size} distinct)`);
    }
    this.#logger.debug?.(`snapshot ${body.snapshot_id} for chain ${chainId}: ${body.count} tokens`);
    return { chainId, snapshotId: body.snapshot_id, etag: response.headers.get("etag") ?? undefined, addresses, fetchedAt: new Date(), json: body };
  }
}
