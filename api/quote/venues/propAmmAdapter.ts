import type { Address } from "viem";
import type { VenuePool } from "./pricedPool";
import { ladderAmountOut, PROPAMM_HOP_GAS, type PropAmmLadder, type PropAmmQuotes } from "./propAmmPricing";
import type { VenueAdapter } from "./venueAdapter";

/** A propAMM as routing holds it: its `getAmountOut` ladders at the quoted block, both directions. */
export type PropAmmRoutedPool = VenuePool & Readonly<{ kind: "propamm"; state: PropAmmQuotes }>;

function ladderFor(pool: PropAmmRoutedPool, tokenIn: Address): PropAmmLadder | undefined {
  if (tokenIn === pool.token0) return pool.state.zeroForOne;
  if (tokenIn === pool.token1) return pool.state.oneForZero;
  return undefined;
}

/** The marginal price (out per in) between the ladder's rungs around `amountIn`; 0 where it stops filling. */
function marginalPrice(ladder: PropAmmLadder, amountIn: bigint): number {
  const { amounts, amountsOut } = ladder;
  let previousIn = 0n;
  let previousOut = 0n;
  for (let index = 0; index < amounts.length; index++) {
    if (amountsOut[index]! === 0n) return 0;
    if (amountIn < amounts[index]!) return Number(amountsOut[index]! - previousOut) / Number(amounts[index]! - previousIn);
    previousIn = amounts[index]!;
    previousOut = amountsOut[index]!;
  }
  return 0;
}

/**
 * propAMMs (the live service's standard interface): priced by their own `getAmountOut` at the quoted
 * block, read as ladders (propAmmPricing.ts), which never promise more than the venue pays. Exact
 * input only: they are left out of exact-output routes. Their fee is inside their price (`feePips` 0).
 */
export const propAmmAdapter: VenueAdapter<PropAmmRoutedPool> = {
  kind: "propamm",
  exactOutput: false,
  exactCurve: false,
  amountOut(pool, tokenIn, amountIn) {
    const ladder = ladderFor(pool, tokenIn);
    return ladder === undefined ? 0n : ladderAmountOut(ladder, amountIn);
  },
  amountIn() {
    return undefined;
  },
  spotPrice(pool, tokenIn) {
    const ladder = ladderFor(pool, tokenIn);
    const [amount, amountOut] = [ladder?.amounts[0], ladder?.amountsOut[0]];
    if (amount === undefined || amountOut === undefined || amountOut === 0n) return undefined;
    return [amountOut, amount];
  },
  curve(pool, tokenIn, amountIn) {
    // A propAMM's price falls with size as its spread widens or its inventory thins: the local curve
    // p·d / (1 + q·d) matches its marginal price at zero (p0) and at `amountIn` (p1 = p0 / (1 + q·x)²).
    const ladder = ladderFor(pool, tokenIn);
    if (ladder === undefined) return undefined;
    const p0 = marginalPrice(ladder, 0n);
    const p1 = marginalPrice(ladder, amountIn);
    if (!(p0 > 0) || !(p1 > 0)) return undefined;
    const scale = Number(ladder.amounts.at(-1) ?? 1n);
    const q = amountIn > 0n && p1 < p0 ? (Math.sqrt(p0 / p1) - 1) / Number(amountIn) : 1 / scale;
    return { p: p1, q };
  },
  hopGas() {
    return PROPAMM_HOP_GAS.measuredP90 + PROPAMM_HOP_GAS.margin;
  },
  action(pool, tokenOut) {
    return { type: "swapPropAmm", pair: pool.address, tokenOut };
  },
  feePips() {
    return 0;
  },
};
