import type { Logger } from "pino";
import type { Address, PublicClient } from "viem";
import { acceptedRouters, Feature } from "../../sdk";
import { type ChainHead } from "../../sdk/chain/chainHead";
import { PollingLoop } from "../../sdk/scheduling/pollingLoop";

/** Re-read even without an event: the previous router's dwell window closes by time, with no log. */
const REREAD_MS = 60_000;

/**
 * The routers the signing policy lets the relayer call: the registry's current and previous gasless
 * (feature 3) routers, read from the chain at start and again whenever the registry emits anything
 * (a migration, a pause, a dwell change: one `eth_getLogs` on the registry per new block) and once a
 * minute (the dwell window's end). A failed read keeps the last known set and logs a warning.
 */
export class RegistryRouters {
  #routers: ReadonlySet<string> = new Set();
  #scanned: bigint | undefined;
  #readAt = 0;
  #loop: PollingLoop | undefined;

  constructor(
    private readonly client: PublicClient,
    /** The relayer's shared head (its queue and watcher read the same one): no block number read of its own. */
    private readonly head: ChainHead,
    private readonly registry: Address,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Lowercase addresses the relayer may call now. */
  get routers(): ReadonlySet<string> {
    return this.#routers;
  }

  /** The first read; throws if the registry cannot be read (the relayer does not start blind). */
  async load(): Promise<void> {
    this.#scanned = (await this.head.fresh()).number;
    await this.#read();
  }

  async #read(): Promise<void> {
    const routers = await acceptedRouters(this.client, this.registry, Feature.GaslessSwap);
    const next = new Set(routers.map((router) => router.toLowerCase()));
    const changed = next.size !== this.#routers.size || [...next].some((router) => !this.#routers.has(router));
    if (changed) this.logger.info({ routers }, "signing policy: the registry's gasless routers");
    this.#routers = next;
    this.#readAt = this.now();
  }

  /** One step: reads the registry's logs since the last block seen, and the routers when any appeared. */
  async follow(): Promise<void> {
    const head = (await this.head.read()).number;
    const from = this.#scanned === undefined ? head : this.#scanned + 1n;
    // A head below the last scan is a reorg or a reset chain: read again, whatever the logs say.
    const logs = from <= head ? await this.client.getLogs({ address: this.registry, fromBlock: from, toBlock: head }) : [];
    if (logs.length > 0 || from > head + 1n || this.now() - this.#readAt >= REREAD_MS) await this.#read();
    this.#scanned = head;
  }

  start(pollMs: number): void {
    if (this.#loop !== undefined) return;
    this.#loop = new PollingLoop(() => this.follow(), pollMs, (error) => this.logger.warn({ err: error }, "signing policy: could not re-read the registry's routers; keeping the last known ones"));
    this.#loop.start();
  }

  async stop(): Promise<void> {
    await this.#loop?.stop();
  }
}
