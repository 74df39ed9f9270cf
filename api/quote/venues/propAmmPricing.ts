import { getAddress, type Address, type Hex, type PublicClient } from "viem";
import { propAmmAbi } from "../../../sdk/abis/propAmmAbi";
import { propAmmAllowlistAbi } from "../../../sdk/abis/propAmmAllowlistAbi";

/**
 * propAMM pricing for the quote API. A propAMM prices from its operator's oracle, not from reserves
 * the API could follow, so its only price is `getAmountOut` at the quoted block. Two reads, each one
 * `eth_call` per block (a deployless Multicall3: no contract needs to be deployed on the chain):
 *
 * - `ladders`: per (pair, direction), `getAmountOut` at a fixed ladder of input sizes, read once per
 *   block for every allowlisted propAMM. Route search prices a hop from it synchronously
 *   (`ladderAmountOut`), as it prices a V2 hop from reserves.
 * - `exactQuotes`: `getAmountOut` at exact amounts (the chosen route's legs), once per block per
 *   (pair, direction, amount), requests made in the same tick sharing one call.
 *
 * A propAMM that reverts, returns garbage or cannot fill quotes 0n: no hop.
 */

/**
 * Execution gas of one SWAP_PROPAMM hop through the devnet's reference propAMM, as route ranking
 * charges it: what a hop adds to a settled quote (test/api/mixedVenueQuote.test.ts: ~45-46k either
 * direction, the allowlist read, the approval, the venue's swap, two balance reads) plus a small
 * margin; a propAMM that does more work (an oracle read, a signed price) needs its own figure.
 * `furtherHop` is the p90 of what each further propAMM hop adds to a route (test/contracts/propAmm.test.ts,
 * through a harness: 67.3k, a second venue's cold reads included); route ranking charges every hop the
 * first hop's figure, so it underestimates routes of several propAMM hops.
 */
export const PROPAMM_HOP_GAS = { measuredP90: 46_000, margin: 4_000, furtherHop: 68_000 } as const;

/**
 * The most propAMM pairs whose ladders one block reads: each pair costs 2 × 36 `getAmountOut` calls in
 * the block's one eth_call, so the read is bounded whatever the allowlist holds. Pairs past the cap (in
 * the order given, the allowlist's) are left out of routing; the operator's allowlist is expected to
 * stay far below it.
 */
export const MAX_PROPAMM_PAIRS = 16;

/** An allowlisted propAMM with its configured tokens (IPropAmm: zeroForOne sells token0). Addresses lowercase. */
export type PropAmmVenue = Readonly<{ source: string; pair: Address; token0: Address; token1: Address }>;

/** Which block the quote is at: its hash keys the caches (a reorg reuses numbers), its number the reads. */
export type QuotedBlock = Readonly<{ hash: Hex; number: bigint }>;

/** `getAmountOut(zeroForOne, amounts[i]) = amountsOut[i]`, amounts increasing. */
export type PropAmmLadder = Readonly<{ amounts: readonly bigint[]; amountsOut: readonly bigint[] }>;

/** A propAMM's ladders at one block, per direction. */
export type PropAmmQuotes = Readonly<{ venue: PropAmmVenue; zeroForOne: PropAmmLadder; oneForZero: PropAmmLadder }>;

export type PropAmmQuoteRequest = Readonly<{ pair: Address; zeroForOne: boolean; amountIn: bigint }>;

/**
 * The ladder's input sizes for a token of `decimals`: 1, 2 and 5 times each power of ten from 10^-4 to
 * 10^7 whole tokens (36 sizes), so that any order size lies within a factor of 2.5 of two rungs.
 */
export function ladderAmounts(decimals: number): bigint[] {
  const amounts: bigint[] = [];
  for (let exponent = -4; exponent <= 7; exponent++) {
    for (const step of [1n, 2n, 5n]) {
      const scale = decimals + exponent;
      if (scale >= 0) amounts.push(step * 10n ** BigInt(scale));
    }
  }
  return amounts;
}

/**
 * The output for `amountIn` read off a ladder: exact on a rung, linear between two rungs less one unit
 * (under a price that falls with size a chord lies below the curve, and the unit covers the venue's
 * own rounding down, so this never promises more than the venue pays), from zero below the first
 * rung, and 0n past the last rung or where the venue stopped filling. The final route is quoted exactly (`exactQuotes`) before it is offered.
 */
export function ladderAmountOut(ladder: PropAmmLadder, amountIn: bigint): bigint {
  const { amounts, amountsOut } = ladder;
  if (amountIn <= 0n) return 0n;
  let previousIn = 0n;
  let previousOut = 0n;
  for (let index = 0; index < amounts.length; index++) {
    const rungIn = amounts[index]!;
    const rungOut = amountsOut[index]!;
    if (rungOut === 0n) return 0n;
    if (amountIn === rungIn) return rungOut;
    if (amountIn < rungIn) {
      const chord = previousOut + ((rungOut - previousOut) * (amountIn - previousIn)) / (rungIn - previousIn);
      return chord > 0n ? chord - 1n : 0n;
    }
    previousIn = rungIn;
    previousOut = rungOut;
  }
  return 0n;
}

/** The direction of a hop through `venue`, or undefined when (tokenIn, tokenOut) is not its pair (lowercase addresses). */
export function propAmmDirection(venue: PropAmmVenue, tokenIn: Address, tokenOut: Address): boolean | undefined {
  if (tokenIn === venue.token0 && tokenOut === venue.token1) return true;
  if (tokenIn === venue.token1 && tokenOut === venue.token0) return false;
  return undefined;
}

/**
 * The propAMMs on `allowlist` at `block` with their configured tokens. `names` gives each pair its
 * source name (the manifest's `propAmms`); others are called "propamm".
 */
export async function readPropAmmVenues(
  client: PublicClient,
  allowlist: Address,
  block: QuotedBlock,
  names: ReadonlyMap<Address, string> = new Map(),
): Promise<PropAmmVenue[]> {
  const pairs = await client.readContract({ address: allowlist, abi: propAmmAllowlistAbi, functionName: "pairs", blockNumber: block.number });
  if (pairs.length === 0) return [];
  const selector = await client.readContract({ address: allowlist, abi: propAmmAllowlistAbi, functionName: "SWAP_SELECTOR", blockNumber: block.number });
  const tokens = await client.multicall({
    contracts: pairs.map((pair) => ({ address: allowlist, abi: propAmmAllowlistAbi, functionName: "tokensOf", args: [pair, selector] }) as const),
    allowFailure: false,
    deployless: true,
    batchSize: 0,
    blockNumber: block.number,
  });
  const byLowercase = new Map([...names].map(([pair, name]) => [pair.toLowerCase(), name]));
  return pairs.map((pair, index) => {
    const [token0, token1] = tokens[index]!;
    const address = pair.toLowerCase() as Address;
    return { source: byLowercase.get(address) ?? "propamm", pair: address, token0: token0.toLowerCase() as Address, token1: token1.toLowerCase() as Address };
  });
}

/** Reads propAMM quotes at a block, one eth_call per batch; see the file's comment. */
export class PropAmmPricing {
  #block: Hex | undefined;
  #ladders = new Map<string, Promise<PropAmmQuotes[]>>();
  #exact = new Map<string, Promise<bigint>>();
  #pending: { block: QuotedBlock; request: PropAmmQuoteRequest; settle: (amount: bigint) => void; fail: (error: unknown) => void }[] = [];

  constructor(
    private readonly client: PublicClient,
    /** Decimals of each token (lowercase address): the ladder's sizes follow them. */
    private readonly decimalsOf: (token: Address) => number,
  ) {}

  /** Every venue's ladders at `block` (the first MAX_PROPAMM_PAIRS), read once per block and venue set (concurrent callers share the read). */
  ladders(block: QuotedBlock, all: readonly PropAmmVenue[]): Promise<PropAmmQuotes[]> {
    this.#atBlock(block);
    const venues = all.length > MAX_PROPAMM_PAIRS ? all.slice(0, MAX_PROPAMM_PAIRS) : all;
    const key = venues.map((venue) => `${venue.pair}:${venue.token0}:${venue.token1}`).join(",");
    let ladders = this.#ladders.get(key);
    if (ladders === undefined) {
      ladders = this.#readLadders(block, venues);
      this.#ladders.set(key, ladders);
      const cache = this.#ladders;
      // A failed read must not poison the block: the next quote retries it.
      ladders.catch(() => cache.get(key) === ladders && cache.delete(key));
    }
    return ladders;
  }

  /** `getAmountOut` at exact amounts, once per block per (pair, direction, amount); same-tick requests share one call. */
  exactQuotes(block: QuotedBlock, requests: readonly PropAmmQuoteRequest[]): Promise<bigint[]> {
    this.#atBlock(block);
    return Promise.all(
      requests.map((request) => {
        const key = `${request.pair.toLowerCase()}:${request.zeroForOne}:${request.amountIn}`;
        let quote = this.#exact.get(key);
        if (quote === undefined) {
          quote = new Promise<bigint>((settle, fail) => {
            if (this.#pending.length === 0) queueMicrotask(() => void this.#flush());
            this.#pending.push({ block, request, settle, fail });
          });
          this.#exact.set(key, quote);
          const cache = this.#exact;
          // A failed read must not poison the block: the next quote retries it.
          quote.catch(() => cache.get(key) === quote && cache.delete(key));
        }
        return quote;
      }),
    );
  }

  #atBlock(block: QuotedBlock): void {
    if (block.hash === this.#block) return;
    this.#block = block.hash;
    this.#ladders = new Map();
    this.#exact = new Map();
  }

  async #flush(): Promise<void> {
    const batch = this.#pending;
    this.#pending = [];
    // Requests are grouped by block: a new block can arrive between two requests of one tick.
    const blocks = new Map<Hex, typeof batch>();
    for (const entry of batch) blocks.set(entry.block.hash, [...(blocks.get(entry.block.hash) ?? []), entry]);
    for (const entries of blocks.values()) {
      try {
        const amounts = await this.#getAmountsOut(entries[0]!.block, entries.map((entry) => entry.request));
        entries.forEach((entry, index) => entry.settle(amounts[index]!));
      } catch (error) {
        for (const entry of entries) entry.fail(error);
      }
    }
  }

  async #readLadders(block: QuotedBlock, venues: readonly PropAmmVenue[]): Promise<PropAmmQuotes[]> {
    const plan = venues.map((venue) => ({ venue, zeroForOne: ladderAmounts(this.decimalsOf(venue.token0)), oneForZero: ladderAmounts(this.decimalsOf(venue.token1)) }));
    const requests = plan.flatMap(({ venue, zeroForOne, oneForZero }) => [
      ...zeroForOne.map((amountIn) => ({ pair: venue.pair, zeroForOne: true, amountIn })),
      ...oneForZero.map((amountIn) => ({ pair: venue.pair, zeroForOne: false, amountIn })),
    ]);
    const amountsOut = await this.#getAmountsOut(block, requests);
    let cursor = 0;
    const take = (amounts: readonly bigint[]): PropAmmLadder => ({ amounts, amountsOut: amountsOut.slice(cursor, (cursor += amounts.length)) });
    return plan.map(({ venue, zeroForOne, oneForZero }) => ({ venue, zeroForOne: take(zeroForOne), oneForZero: take(oneForZero) }));
  }

  /** One eth_call at `block` running every `getAmountOut`; a failing one reads 0n. */
  async #getAmountsOut(block: QuotedBlock, requests: readonly PropAmmQuoteRequest[]): Promise<bigint[]> {
    if (requests.length === 0) return [];
    const results = await this.client.multicall({
      contracts: requests.map(({ pair, zeroForOne, amountIn }) => ({ address: getAddress(pair), abi: propAmmAbi, functionName: "getAmountOut", args: [zeroForOne, amountIn] }) as const),
      allowFailure: true,
      deployless: true,
      batchSize: 0,
      blockNumber: block.number,
    });
    return results.map((result) => (result.status === "success" ? result.result : 0n));
  }
}
