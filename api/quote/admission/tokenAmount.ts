import { ApiError } from "../../../sdk/server/apiError";

const MAX_UINT256 = (1n << 256n) - 1n;

/**
 * A decimal amount of whole tokens (`1.5`) in base units, exactly: the fraction is scaled by the
 * token's decimals, never rounded, so more fraction digits than the token has is a 400 rather than a
 * silently different amount. `parameter` names the field in messages.
 */
export function tokenAmountToBaseUnits(text: string, decimals: number, symbol: string, parameter: string): bigint {
  const match = /^([0-9]+)(?:\.([0-9]+))?$/.exec(text);
  if (match === null) throw new ApiError("invalid_request", `${parameter} must be a decimal number of tokens such as 1.5`);
  const whole = match[1]!;
  const fraction = (match[2] ?? "").replace(/0+$/, "");
  if (fraction.length > decimals) {
    throw new ApiError("invalid_request", `${parameter} ${text} has ${fraction.length} decimals, but ${symbol} has ${decimals}`);
  }
  const value = BigInt(whole) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, "0") || "0");
  if (value === 0n) throw new ApiError("invalid_request", `${parameter} must be greater than zero`);
  if (value > MAX_UINT256) throw new ApiError("invalid_request", `${parameter} must be at most 2^256-1 base units`);
  return value;
}
