import { randomBytes } from "node:crypto";
import type { Hex } from "viem";

/** Random bytes drawn at once: one CSPRNG call serves 256 quote ids (the profile of bench:api showed a call per quote costing ~10 µs). */
const POOL_BYTES = 4096;
const ID_BYTES = 16;

let pool = Buffer.alloc(0);
let used = 0;

/**
 * The server's bytes32 quote id: 16 random bytes, none zero (a zero byte is made 1, about 0.1 bit of
 * the 128 lost), so the calldata's gas does not vary with the draw: a price and the quote after it at
 * the same block estimate exactly the same gas. The bytes come from a pool drawn from the CSPRNG in
 * one call and each used once (as node's randomUUID does), so ids are as unpredictable as before.
 */
export function randomQuoteId(): Hex {
  if (used + ID_BYTES > pool.length) {
    pool = randomBytes(POOL_BYTES);
    used = 0;
  }
  const bytes = pool.subarray(used, (used += ID_BYTES));
  for (let index = 0; index < ID_BYTES; index++) if (bytes[index] === 0) bytes[index] = 1;
  return `0x${"00".repeat(16)}${bytes.toString("hex")}`;
}
