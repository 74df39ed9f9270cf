import { getAbiItem, zeroAddress, type Address, type Hex, type PublicClient } from "viem";
import { chainOrder, decodeFeatureState, encodeRegistryRead, logPosition, readRouterPropAmmAllowlist, readRouterV3Venues, readRouterV4Venue, type FeatureId, type LogPosition, type LogWindow } from "../../../sdk";
import { type BlockHead } from "../../../sdk/chain/chainHead";
import { propAmmAllowlistAbi } from "../../../sdk/abis/propAmmAllowlistAbi";
import { routerRegistryAbi } from "../../../sdk/abis/routerRegistryAbi";
import { BlockEventFollower } from "../market/blockEventFollower";
import { readPropAmmVenues, type PropAmmVenue } from "./propAmmPricing";

/**
 * What the registry's active routers can route through at one block. Routing offers a venue only
 * when every active router of the followed features can execute it, because one market serves every
 * feature's quotes: a V3 venue routes only at the same table index (same factory and init-code hash)
 * in every router, a propAMM only when every router's allowlist holds it with the same tokens. A
 * token any router refuses (a pair of any of their allowlists) is never routed.
 */
export type RouterVenueSet = Readonly<{
  /** The active routers (lowercase), one per followed feature that has one. */
  routers: readonly Address[];
  /** A V3 venue's name (the chain file's) → its index in every active router's V3 venue table. */
  v3Index: ReadonlyMap<string, number>;
  /** The propAMMs every active router may call. */
  propAmms: readonly PropAmmVenue[];
  /** Every address an active router refuses as a token: the pairs of all their allowlists (lowercase). */
  pairs: ReadonlySet<Address>;
  /**
   * The V4 PoolManager (lowercase) every active router executes SWAP_V4 through (`poolManager()`);
   * undefined when any router has none (it reverts or answers zero) or they name different ones: no V4.
   */
  v4PoolManager?: Address | undefined;
  /**
   * The lowest V4 venue revision among the active routers (`v4Revision()`, sdk readRouterV4Venue),
   * when they share `v4PoolManager`. Below V4_REVISION_EXACT_OUTPUT (or undefined), V4 pools are priced
   * for exact input only.
   */
  v4Revision?: number | undefined;
}>;

/** Something that tells the routers' venues at a block (ActiveRouterVenues; tests may hand a fixed set). */
export type RouterVenueSource = Readonly<{ at(client: PublicClient, head: BlockHead): Promise<RouterVenueSet> }>;

/** A V3 venue the chain file names: routing can follow its pools, so the routers' table may offer it. */
export type NamedV3Venue = Readonly<{ name: string; factory: Address; poolInitCodeHash: Hex }>;

export type ActiveRouterVenuesOptions = Readonly<{
  registry: Address;
  /** The registry features whose current routers quotes are built for. */
  features: readonly FeatureId[];
  v3Venues: readonly NamedV3Venue[];
  /** propAMM names by pair (the chain file's `propAmms`); others are "propamm". */
  propAmmNames: ReadonlyMap<Address, string>;
  historyDepth?: number;
  /** Told of each failed read (`fallback`: a V2-only set was served) and of each good one: logs and metrics (RouterVenuesOutage). */
  observer?: Readonly<{ failed(error: unknown, fallback: boolean): void; read(): void }>;
}>;

/** A router's venues: its V3 table (lowercase factory and hash per index) and its allowlist. */
type RouterTable = Readonly<{ router: Address; v3: readonly (string | undefined)[]; allowlist: Address | undefined; poolManager: Address | undefined; v4Revision: number }>;

type VenueEvent = LogPosition &
  ({ kind: "routers"; emitter: Address } | { kind: "added"; emitter: Address; venue: Omit<PropAmmVenue, "source"> } | { kind: "removed"; emitter: Address; pair: Address });

const lower = (address: Address) => address.toLowerCase() as Address;
const EVENTS = [getAbiItem({ abi: routerRegistryAbi, name: "RouterActivated" }), getAbiItem({ abi: propAmmAllowlistAbi, name: "PropAmmAdded" }), getAbiItem({ abi: propAmmAllowlistAbi, name: "PropAmmRemoved" })] as const;

/**
 * The active routers' venues, followed from events instead of read every block: the registry's
 * `RouterActivated` (a followed feature's router changed: every table is read again at that head) and
 * each allowlist's `PropAmmAdded` / `PropAmmRemoved` (applied as they come, with the tokens the event
 * carries). Each new head costs one `eth_getLogs`; reads happen only at the first head, after an
 * activation and after a reorg that touched the registry or an allowlist. The set keeps its identity
 * while nothing changes, so callers may cache what they derive from it.
 */
export class ActiveRouterVenues implements RouterVenueSource {
  readonly #options: ActiveRouterVenuesOptions;
  readonly #follower: BlockEventFollower<VenueEvent>;
  #state: { head: Hex; tables: readonly RouterTable[]; allowlists: Map<Address, Map<Address, Omit<PropAmmVenue, "source">>>; set: RouterVenueSet } | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  /** The V2-only set served while reads fail, kept per last good set so its identity holds. */
  #fallback: { from: RouterVenueSet; set: RouterVenueSet } | undefined;

  constructor(options: ActiveRouterVenuesOptions) {
    this.#options = options;
    this.#follower = new BlockEventFollower<VenueEvent>({
      readEvents: (client, window) => this.#readEvents(client, window),
      touches: (event) => [event.emitter],
      historyDepth: options.historyDepth,
    });
  }

  /**
   * The venues at exactly `head`; updates run one at a time, concurrent callers at one head share one.
   * A failed read falls back to V2 only: no V3 venue, no propAMM (what needs the routers' tables),
   * with the allowlisted pairs of the last good read still refused as tokens (a pair added since can
   * only make a quote fail its simulation, never move funds wrongly: the routers refuse it). Before any
   * good read it throws (nothing is assumed: not even which tokens are pairs). The next call reads again.
   */
  at(client: PublicClient, head: BlockHead): Promise<RouterVenueSet> {
    if (this.#state?.head === head.hash) return Promise.resolve(this.#state.set);
    const run = this.#queue.then(() => (this.#state?.head === head.hash ? this.#state.set : this.#advance(client, head)));
    this.#queue = run.catch(() => undefined);
    const observer = this.#options.observer;
    return run.then(
      (set) => {
        observer?.read();
        return set;
      },
      (error: unknown) => {
        const last = this.#state?.set;
        observer?.failed(error, last !== undefined);
        if (last === undefined) throw error;
        if (this.#fallback?.from !== last) this.#fallback = { from: last, set: { routers: last.routers, v3Index: new Map(), propAmms: [], pairs: last.pairs } };
        return this.#fallback.set;
      },
    );
  }

  async #advance(client: PublicClient, head: BlockHead): Promise<RouterVenueSet> {
    const state = this.#state;
    const plan = await this.#follower.plan(client, head);
    // A reorg that touched the registry or an allowlist, or a router activation: read everything at this head.
    if (state === undefined || plan.kind === "rebuild" || plan.reread.size > 0 || plan.events.some((event) => event.kind === "routers")) {
      const { tables, allowlists } = await this.#read(client, head);
      this.#follower.commit(head, plan);
      const set = this.#setOf(tables, allowlists, state?.set);
      this.#state = { head: head.hash, tables, allowlists, set };
      return set;
    }
    let changed = false;
    for (const event of plan.events) {
      const pairs = state.allowlists.get(event.emitter);
      if (pairs === undefined) continue;
      if (event.kind === "added") pairs.set(event.venue.pair, event.venue);
      else if (event.kind === "removed") pairs.delete(event.pair);
      changed = true;
    }
    this.#follower.commit(head, plan);
    const set = changed ? this.#setOf(state.tables, state.allowlists, state.set) : state.set;
    this.#state = { ...state, head: head.hash, set };
    return set;
  }

  async #readEvents(client: PublicClient, window: LogWindow): Promise<VenueEvent[]> {
    const registry = lower(this.#options.registry);
    const allowlists = [...(this.#state?.allowlists.keys() ?? [])];
    const features = new Set(this.#options.features);
    const logs = await client.getLogs({ address: [registry, ...allowlists], events: EVENTS, strict: true, ...window });
    const events: VenueEvent[] = [];
    for (const log of logs) {
      const at = logPosition(log);
      if (at === undefined) continue;
      const emitter = lower(log.address);
      if (log.eventName === "RouterActivated") {
        if (emitter === registry && features.has(log.args.featureId as FeatureId)) events.push({ ...at, kind: "routers", emitter });
      } else if (emitter !== registry) {
        const pair = lower(log.args.pair);
        if (log.eventName === "PropAmmAdded") events.push({ ...at, kind: "added", emitter, venue: { pair, token0: lower(log.args.token0), token1: lower(log.args.token1) } });
        else events.push({ ...at, kind: "removed", emitter, pair });
      }
    }
    return events.sort(chainOrder);
  }

  /** Every followed feature's current router, its V3 table and allowlist, and each allowlist's pairs, at `head`. */
  async #read(client: PublicClient, head: BlockHead) {
    const routers = await Promise.all(
      this.#options.features.map(async (feature) => {
        const { data } = await client.call({ to: this.#options.registry, data: encodeRegistryRead("getFeature", feature), blockNumber: head.number });
        return decodeFeatureState(data ?? "0x").current;
      }),
    );
    const active = [...new Set(routers.filter((router) => router !== zeroAddress).map(lower))];
    const tables = await Promise.all(
      active.map(async (router): Promise<RouterTable> => {
        const [v3, allowlist, { poolManager, revision: v4Revision }] = await Promise.all([
          readRouterV3Venues(client, router, head.number),
          readRouterPropAmmAllowlist(client, router, head.number),
          readRouterV4Venue(client, router, head.number),
        ]);
        return {
          router,
          v3: v3.venues.map((venue) => (venue === undefined ? undefined : `${lower(venue.factory)}:${venue.poolInitCodeHash.toLowerCase()}`)),
          allowlist: allowlist === undefined ? undefined : lower(allowlist),
          poolManager: poolManager === undefined ? undefined : lower(poolManager),
          v4Revision,
        };
      }),
    );
    const allowlists = new Map<Address, Map<Address, Omit<PropAmmVenue, "source">>>();
    const distinct = [...new Set(tables.flatMap((table) => (table.allowlist === undefined ? [] : [table.allowlist])))];
    await Promise.all(
      distinct.map(async (allowlist) => {
        const venues = await readPropAmmVenues(client, allowlist, { hash: head.hash, number: head.number });
        allowlists.set(allowlist, new Map(venues.map(({ pair, token0, token1 }) => [pair, { pair, token0, token1 }])));
      }),
    );
    return { tables, allowlists };
  }

  /** The consensus of the routers' tables (see RouterVenueSet); `previous` when it is the same, so its identity holds. */
  #setOf(tables: readonly RouterTable[], allowlists: ReadonlyMap<Address, ReadonlyMap<Address, Omit<PropAmmVenue, "source">>>, previous: RouterVenueSet | undefined): RouterVenueSet {
    const v3Index = new Map<string, number>();
    if (tables.length > 0) {
      for (const venue of this.#options.v3Venues) {
        const key = `${lower(venue.factory)}:${venue.poolInitCodeHash.toLowerCase()}`;
        const index = tables[0]!.v3.indexOf(key);
        if (index >= 0 && tables.every((table) => table.v3[index] === key)) v3Index.set(venue.name, index);
      }
    }
    const perRouter = tables.map((table) => (table.allowlist === undefined ? new Map<Address, Omit<PropAmmVenue, "source">>() : (allowlists.get(table.allowlist) ?? new Map<Address, Omit<PropAmmVenue, "source">>())));
    const pairs = new Set<Address>(perRouter.flatMap((venues) => [...venues.keys()]));
    const names = new Map([...this.#options.propAmmNames].map(([pair, name]) => [lower(pair), name]));
    const propAmms: PropAmmVenue[] = [];
    for (const venue of perRouter[0]?.values() ?? []) {
      const everywhere = perRouter.every((venues) => {
        const other = venues.get(venue.pair);
        return other !== undefined && other.token0 === venue.token0 && other.token1 === venue.token1;
      });
      if (everywhere) propAmms.push({ ...venue, source: names.get(venue.pair) ?? "propamm" });
    }
    // The allowlist's own order is not meaningful (swap and pop): a stable order keeps the ladder cache's key.
    propAmms.sort((a, b) => (a.pair < b.pair ? -1 : 1));
    // V4 routes only through the one PoolManager every active router names (a router without the V4 action names none).
    const poolManager = tables[0]?.poolManager;
    const v4PoolManager = poolManager !== undefined && tables.every((table) => table.poolManager === poolManager) ? poolManager : undefined;
    const v4Revision = v4PoolManager === undefined ? undefined : Math.min(...tables.map((table) => table.v4Revision));
    const set: RouterVenueSet = { routers: tables.map((table) => table.router), v3Index, propAmms, pairs, v4PoolManager, v4Revision };
    return previous !== undefined && sameSet(previous, set) ? previous : set;
  }
}

function sameSet(a: RouterVenueSet, b: RouterVenueSet): boolean {
  const venueKey = (set: RouterVenueSet) => set.propAmms.map((venue) => `${venue.source}:${venue.pair}:${venue.token0}:${venue.token1}`).join();
  return (
    a.routers.join() === b.routers.join() &&
    a.v4PoolManager === b.v4PoolManager &&
    a.v4Revision === b.v4Revision &&
    [...a.v3Index].join() === [...b.v3Index].join() &&
    venueKey(a) === venueKey(b) &&
    a.pairs.size === b.pairs.size &&
    [...a.pairs].every((pair) => b.pairs.has(pair))
  );
}
