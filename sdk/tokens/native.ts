import type { Address } from "viem";

/** The native-asset placeholder: forty `e` hex digits, as the spec writes it (checksummed here). */
export const NATIVE_TOKEN: Address = "0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE";

/** The placeholder in lowercase, as snapshots and quote responses write addresses. */
export const NATIVE_TOKEN_LOWERCASE = NATIVE_TOKEN.toLowerCase() as Address;

/** Whether `token` is the native placeholder, in any letter case. */
export function isNativeToken(token: string): boolean {
  return token.toLowerCase() === NATIVE_TOKEN.toLowerCase();
}
