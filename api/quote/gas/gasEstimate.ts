import type { Hex } from "viem";
import { SIGNATURE_BYTES } from "../../../sdk";

/** What the gas of a quote's transaction depends on, beyond its calldata. */
export type GasFactors = Readonly<{
  /** `gasless`: the permit path through the feature-3 router, which also pays the relayer's fee. */
  settlement: "permit2" | "allowance" | "native" | "gasless";
  /** Every hop of the route, across all legs of a split. */
  hops: number;
  /** Legs of a split route (2 or 3), or 0 for a single path. */
  splitLegs?: number;
  /** Hops through pairs whose price accumulators are still zero (ignored when `hopGas` is given: the V2 adapter counts them). */
  hopsStartingOracle: number;
  /**
   * The execution gas of every hop as its venue's adapter models it (venues/venueAdapter.ts `hopGas`);
   * when left out, every hop is a V2 hop (PER_HOP, plus ORACLE_START for those starting the oracle).
   */
  hopGas?: number;
  /** The route's WRAP and UNWRAP actions (a native V4 pool at a route's end needs neither). */
  wrap: boolean;
  unwrap: boolean;
  /** The recipient is paid native ETH (after an UNWRAP, or from a native V4 pool): an empty recipient is a new account. */
  buysNative: boolean;
  fee: boolean;
  /** The permit nonce lies in a bitmap word that is still zero (a fresh storage slot). */
  freshNonceWord: boolean;
  /** The recipient holds none of the buy token yet (its balance slot is fresh). */
  recipientEmpty: boolean;
  /** The fee recipient holds none of the buy token yet. */
  feeRecipientEmpty: boolean;
  /** Gasless: a relayer fee is paid to an address that holds none of the sell token yet. */
  relayerFeeRecipientEmpty?: boolean;
  /** An exact-output order: the route is priced backwards first (a reserve read per hop), and a native sell is refunded. */
  exactOutput?: boolean;
}>;

/**
 * Execution gas of each part, measured on the devnet's contracts (test/api/quote.test.ts checks
 * the estimate against gasUsed). Storage that goes from zero to non-zero costs 20,000 more than an
 * update, which is why the empty-balance and fresh-word factors matter.
 */
// Gasless adds a transfer into the router (its balance slot written and cleared) and the fee's transfer.
const EXECUTION_BASE = { permit2: 45_000, allowance: 42_000, native: 32_000, gasless: 70_000 } as const;
const PER_HOP = 44_000;
/** Two accumulator slots written from zero: 2 × (22,100 − 5,000). */
const ORACLE_START = 34_200;
/** A V2 hop's gas model (venues/v2Adapter.ts): constant, plus the oracle's first write. */
export const V2_HOP_GAS = { perHop: PER_HOP, oracleStart: ORACLE_START } as const;
/**
 * A split takes the sell token into the router (instead of straight into the first pair), checks its
 * layout, and moves each leg's part on: calibrated on the devnet market (test/api/quote.test.ts) as 10,000 plus 5,000 per leg.
 */
const SPLIT_BASE = 10_000;
const SPLIT_PER_LEG = 5_000;
/** The gas a split adds over one path, and what each extra leg's hops cost: how split routes are priced. */
export const SPLIT_GAS = { base: SPLIT_BASE, perLeg: SPLIT_PER_LEG, perHop: PER_HOP } as const;
const WRAP = 9_000;
const UNWRAP = 14_000;
/** What a WRAP and an UNWRAP cost: routing weighs a WETH route with them against a native V4 pool's without (routePlan.ts). */
export const WRAP_GAS = { wrap: WRAP, unwrap: UNWRAP } as const;
const FEE = 12_000;
const FRESH_SLOT = 20_000;
const NEW_ACCOUNT = 25_000;
const INTRINSIC = 21_000;
/**
 * A route with no swap (a bare wrap or unwrap) skips the pool-side bookkeeping the base costs
 * include, and pays the recipient with one transfer from the router, whose first write of the
 * recipient's balance measured cheaper than a pair's.
 */
const SWAPLESS_SAVING = 8_000;
const FRESH_SLOT_SWAPLESS = 13_700;

/**
 * Exact output: the backward pass reads each hop's reserves (a call to the pair, cold here, warm when
 * the forward pass swaps) and does the arithmetic; a native sell's refund is a call with value to the
 * taker. Calibrated against gasUsed on the devnet (test/api/exactOutputQuote.test.ts).
 */
const EXACT_OUTPUT_BASE = 4_000;
const EXACT_OUTPUT_PER_HOP = 5_000;
const EXACT_OUTPUT_REFUND = 9_000;

const ZERO_DIGIT = "0".charCodeAt(0);

/** EIP-2028 calldata cost; the signature placeholder counts as the non-zero bytes it will become. */
function calldataGas(data: Hex, signatureOffset: number | undefined): number {
  let gas = 0;
  // Character codes, not slices: a quote's calldata is over a thousand bytes, and a string per byte
  // was a tenth of what a quote allocated.
  for (let index = 2; index < data.length; index += 2) gas += data.charCodeAt(index) === ZERO_DIGIT && data.charCodeAt(index + 1) === ZERO_DIGIT ? 4 : 16;
  if (signatureOffset !== undefined) gas += SIGNATURE_BYTES * 12;
  return gas;
}

/** A backend estimate of the transaction's gas; wallets should still estimate for themselves. */
export function estimateGas(data: Hex, signatureOffset: number | undefined, factors: GasFactors): number {
  let gas = INTRINSIC + calldataGas(data, signatureOffset) + EXECUTION_BASE[factors.settlement];
  gas += factors.hopGas ?? PER_HOP * factors.hops + ORACLE_START * factors.hopsStartingOracle;
  const legs = factors.splitLegs ?? 0;
  if (legs > 1) gas += SPLIT_BASE + SPLIT_PER_LEG * legs;
  if (factors.wrap) gas += WRAP;
  if (factors.unwrap) gas += UNWRAP;
  if (factors.fee) gas += FEE;
  if (factors.freshNonceWord) gas += FRESH_SLOT;
  const swapless = factors.hops === 0;
  if (swapless) gas -= SWAPLESS_SAVING;
  if (factors.recipientEmpty) gas += factors.buysNative ? NEW_ACCOUNT : swapless ? FRESH_SLOT_SWAPLESS : FRESH_SLOT;
  if (factors.fee && factors.feeRecipientEmpty) gas += factors.buysNative ? NEW_ACCOUNT : FRESH_SLOT;
  if (factors.relayerFeeRecipientEmpty === true) gas += FRESH_SLOT;
  if (factors.exactOutput === true) {
    gas += EXACT_OUTPUT_BASE + EXACT_OUTPUT_PER_HOP * factors.hops;
    if (factors.settlement === "native") gas += EXACT_OUTPUT_REFUND;
  }
  return gas;
}
