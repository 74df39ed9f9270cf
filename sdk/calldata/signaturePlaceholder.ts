import { hexToBigInt, size, type Hex } from "viem";

/** Signature length the routers accept: r, s and v. */
export const SIGNATURE_BYTES = 65;

/** What stands in the calldata until the taker's signature is patched in: 65 zero bytes. */
export const SIGNATURE_PLACEHOLDER: Hex = `0x${"00".repeat(SIGNATURE_BYTES)}`;

/**
 * The byte offset, inside ABI-encoded calldata, of the content of the `bytes` argument at head
 * position `argumentIndex`: 4 selector bytes + the argument's tail offset + the 32-byte length word.
 */
export function bytesArgumentOffset(data: Hex, argumentIndex: number): number {
  const headWord = 4 + argumentIndex * 32;
  if (size(data) < headWord + 32) throw new RangeError(`calldata has no argument ${argumentIndex}`);
  const tail = hexToBigInt(`0x${data.slice(2 + headWord * 2, 2 + (headWord + 32) * 2)}`);
  return 4 + Number(tail) + 32;
}
