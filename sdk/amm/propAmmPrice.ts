import { formatUnits, parseUnits } from "viem";

/** Scale of DevPropAmm's `price` (token1 base units per token0 base unit, times 1e18). */
export const PROPAMM_PRICE_DECIMALS = 18;

const DECIMAL = /^(0|[1-9][0-9]{0,35})(\.[0-9]{1,36})?$/;

/**
 * A price people write ("3000.5": whole token1 per whole token0) as DevPropAmm's on-chain price,
 * rounded down: price · 10^decimals1 / 10^decimals0 · 1e18. Refuses anything but a positive decimal.
 */
export function propAmmPriceFromDecimal(price: string, decimals0: number, decimals1: number): bigint {
  if (!DECIMAL.test(price)) throw new RangeError(`price must be a positive decimal such as 3000 or 0.25, got ${JSON.stringify(price)}`);
  const scaled = parseUnits(price, PROPAMM_PRICE_DECIMALS + decimals1) / 10n ** BigInt(decimals0);
  if (scaled === 0n) throw new RangeError(`price ${price} rounds to zero at these tokens' decimals`);
  return scaled;
}

/** The on-chain price as whole token1 per whole token0, for people. */
export function propAmmPriceToDecimal(price: bigint, decimals0: number, decimals1: number): string {
  return formatUnits(price * 10n ** BigInt(decimals0), PROPAMM_PRICE_DECIMALS + decimals1);
}
