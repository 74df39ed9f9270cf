/** What is known of one read endpoint: its head at the last probe and its recent requests. */
export type EndpointHealth = Readonly<{
  /** The head block number at its last answered probe; undefined before one. */
  head: bigint | undefined;
  /** Whether its last probe was answered. */
  answering: boolean;
  /** Its recent requests' latency, an exponentially weighted average in milliseconds. */
  latencyMs: number;
  /** The share of its recent requests that got no answer (0 to 1, exponentially weighted). */
  errorRate: number;
  /** It serves another chain than the configured one: never used. */
  wrongChain: boolean;
}>;

export type EndpointRanking = Readonly<{
  /** Blocks each endpoint's head is behind the highest head of the answering endpoints (undefined: unknown). */
  lag: readonly (bigint | undefined)[];
  /** Whether each endpoint is in rotation: answering, on the right chain, and at most `maxLagBlocks` behind. */
  usable: readonly boolean[];
  /** The endpoints to try, in order: the selected one first, then the other usable ones by score. */
  order: readonly number[];
  /** The endpoint reads go to (the first of `order`); undefined when no endpoint serves the chain. */
  selected: number | undefined;
}>;

/** A request that got no answer weighs as much as this many milliseconds of latency. */
export const ERROR_WEIGHT_MS = 1_000;

/**
 * Another endpoint takes over from the selected one only if its score is below this share of the
 * selected one's: latency jitters, and reads that hop between nodes see heads go back and forth.
 */
export const SWITCH_MARGIN = 0.75;

/** Lower is better: the latency, plus ERROR_WEIGHT_MS times the share of requests that got no answer. */
export function endpointScore(health: EndpointHealth): number {
  return health.latencyMs + health.errorRate * ERROR_WEIGHT_MS;
}

/**
 * Ranks read endpoints. The tip is the highest head among the endpoints that answer on the right chain;
 * an endpoint more than `maxLagBlocks` behind it, or not answering, is set aside. The usable ones are
 * ordered by score (ties by configured order); the `current` selection stays while it is usable and
 * no other scores below SWITCH_MARGIN of it. When none is usable, every endpoint on the right chain is
 * tried, answering ones first, so a read still has a chance rather than none.
 */
export function rankEndpoints(health: readonly EndpointHealth[], maxLagBlocks: number, current: number | undefined): EndpointRanking {
  const eligible = (entry: EndpointHealth) => entry.answering && !entry.wrongChain && entry.head !== undefined;
  let tip: bigint | undefined;
  for (const entry of health) if (eligible(entry) && (tip === undefined || entry.head! > tip)) tip = entry.head;
  const lag = health.map((entry) => (tip === undefined || entry.head === undefined || entry.wrongChain ? undefined : tip - entry.head));
  const usable = health.map((entry, index) => eligible(entry) && lag[index]! <= BigInt(maxLagBlocks));
  const byScore = (a: number, b: number) => endpointScore(health[a]!) - endpointScore(health[b]!) || a - b;
  const indexes = health.map((_, index) => index);
  let ranked = indexes.filter((index) => usable[index]).sort(byScore);
  if (ranked.length === 0) {
    ranked = indexes
      .filter((index) => !health[index]!.wrongChain)
      .sort((a, b) => Number(health[b]!.answering) - Number(health[a]!.answering) || byScore(a, b));
  }
  const best = ranked[0];
  const keep = current !== undefined && usable[current] === true && best !== undefined && endpointScore(health[best]!) >= SWITCH_MARGIN * endpointScore(health[current]!);
  const selected = keep ? current : best;
  const order = selected === undefined ? [] : [selected, ...ranked.filter((index) => index !== selected)];
  return { lag, usable, order, selected };
}
