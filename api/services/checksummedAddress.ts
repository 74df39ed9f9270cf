import { getAddress, type Address } from "viem";

/** `0x` and 40 hex digits in any case: viem's `isAddress(value, { strict: false })`. */
const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
/** Addresses remembered before the memo starts over; far more than a process sees per second. */
const MAX_REMEMBERED = 4096;

const remembered = new Map<string, Address>();

/**
 * Address checks and checksums for the request path, without viem's LRU caches: viem moves an entry
 * on every hit (a Map delete and insert), which costs time proportional to the cache's size, and
 * reading a large market's pools fills those caches (8,192 entries, about 2 µs a hit; 0.1 µs when
 * small). This memo is a plain Map that is only read on a hit, and cleared when it grows too big.
 */
export function isHexAddress(value: string): boolean {
  return HEX_ADDRESS.test(value);
}

/** `getAddress(value)`: the EIP-55 form of an address in any case; throws like it for a non-address. */
export function checksummed(value: string): Address {
  const lower = value.toLowerCase();
  let address = remembered.get(lower);
  if (address === undefined) {
    address = getAddress(lower);
    if (remembered.size >= MAX_REMEMBERED) remembered.clear();
    remembered.set(lower, address);
  }
  return address;
}
