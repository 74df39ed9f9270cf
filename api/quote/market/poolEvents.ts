import { parseAbiItem, type Address, type PublicClient } from "viem";
import { chainOrder, logPosition, type LogPosition, type LogWindow } from "../../../sdk";

/** A V2 pair's reserves after every change: the only event a pool's price needs. */
export const syncEvent = parseAbiItem("event Sync(uint112 reserve0, uint112 reserve1)");
/** The V2 factory's announcement of a new pair. */
export const pairCreatedEvent = parseAbiItem("event PairCreated(address indexed token0, address indexed token1, address pair, uint256 allPairsLength)");

/** One event that changes what routing knows, in chain order. Addresses are lowercase. */
export type PoolEvent = Readonly<
  LogPosition & (
    | { kind: "sync"; pool: Address; reserve0: bigint; reserve1: bigint }
    | { kind: "pairCreated"; factory: Address; pair: Address; token0: Address; token1: Address }
  )
>;

/**
 * `Sync` events of `pools` and `PairCreated` events of `factory` in one `eth_getLogs`, sorted by
 * block and log index. Events from other contracts (a node may ignore the address filter) are dropped.
 */
export async function readPoolEvents(client: PublicClient, pools: readonly Address[], factory: Address | undefined, window: LogWindow): Promise<PoolEvent[]> {
  const addresses = factory === undefined ? [...pools] : [...pools, factory];
  if (addresses.length === 0) return [];
  const logs = await client.getLogs({ address: addresses, events: [syncEvent, pairCreatedEvent], strict: true, ...window });
  const factoryLower = factory?.toLowerCase() as Address | undefined;
  const known = new Set(pools);
  const events: PoolEvent[] = [];
  for (const log of logs) {
    const at = logPosition(log);
    if (at === undefined) continue;
    const address = log.address.toLowerCase() as Address;
    if (log.eventName === "Sync" && known.has(address)) {
      events.push({ ...at, kind: "sync", pool: address, reserve0: log.args.reserve0, reserve1: log.args.reserve1 });
    } else if (log.eventName === "PairCreated" && address === factoryLower) {
      const [token0, token1, pair] = [log.args.token0, log.args.token1, log.args.pair].map((value) => value.toLowerCase() as Address) as [Address, Address, Address];
      events.push({ ...at, kind: "pairCreated", factory: address, pair, token0, token1 });
    }
  }
  return events.sort(chainOrder);
}
