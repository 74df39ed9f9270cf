import { getAddress, isAddress, type Address } from "viem";
import { AddressInputError } from "../errors/client";

/**
 * An address as the caller holds it: viem's `0x${string}` or a plain string (ethers' `wallet.address`,
 * a config value). The client checks it once at its edge (checkedAddress) and uses the checksummed form.
 */
export type AddressInput = string;

/**
 * `value` as a checksummed address, or AddressInputError naming `field`: 0x and 40 hex digits, all
 * lowercase, all uppercase, or mixed case with a valid EIP-55 checksum (a wrong checksum is a typo).
 */
export function checkedAddress(field: string, value: unknown): Address {
  if (typeof value !== "string" || !isAddress(value, { strict: true })) throw new AddressInputError(field, value);
  return getAddress(value);
}

/** checkedAddress for an optional field: undefined stays undefined. */
export function optionalAddress(field: string, value: unknown): Address | undefined {
  return value === undefined ? undefined : checkedAddress(field, value);
}
