import { randomBytes } from "node:crypto";
import type { Address } from "viem";
import { ApiError } from "../../../sdk/server/apiError";
import type { ChainContext } from "../../chains/chainContext";
import { classifyDatabaseError } from "../../store/databaseUnavailable";
import type { QuoteEngine, QuoteKind } from "../response/buildQuote";
import { DENSE_NONCE_WORDS } from "./nonceRanges";

/**
 * The taker's Permit2 nonce: the lowest free one in the dense first words, or, for a taker who used
 * them all, one in a random word far above them (its first use costs a fresh storage slot). With
 * several instances (`engine.nonceRanges`), from a range this instance leased (see nonceRanges.ts).
 */
export async function allocateNonce(
  engine: QuoteEngine,
  reads: Readonly<{ nonceBitmap(permit2: Address, owner: Address, word: bigint): Promise<bigint> }>,
  chain: ChainContext,
  taker: Address,
  nowMs: number,
  expiresMs: number,
  kind: QuoteKind,
): Promise<{ nonce: bigint; freshWord: boolean }> {
  const permit2 = chain.manifest.contracts.permit2;
  const bitmapOf = (word: bigint) => reads.nonceBitmap(permit2, taker, word);
  if (kind === "firm" && engine.nonceRanges !== undefined) {
    return engine.nonceRanges.allocate(chain.chainId, taker, nowMs, expiresMs, bitmapOf).catch((cause: unknown) => {
      // The database, not the chain, failed: say so (the handler calls any other failure a chain
      // read's), and log what it said for the operator. An outage is the API-wide 503.
      const classified = classifyDatabaseError(cause);
      if (classified !== cause) throw classified;
      throw new ApiError("quote_unavailable", "Permit2 nonce reservations could not be made right now (the API's database did not answer); retry shortly", { cause });
    });
  }
  const allocateIn = async (word: bigint) => {
    const bitmap = await bitmapOf(word);
    if (kind === "indicative") return engine.nonces.peek(chain.chainId, taker, word, bitmap, nowMs);
    return engine.nonces.allocate(chain.chainId, taker, word, bitmap, nowMs, expiresMs);
  };
  for (let word = 0n; word < DENSE_NONCE_WORDS; word++) {
    const allocated = await allocateIn(word);
    if (allocated !== undefined) return allocated;
  }
  for (;;) {
    const allocated = await allocateIn(DENSE_NONCE_WORDS + BigInt(`0x${randomBytes(8).toString("hex")}`));
    if (allocated !== undefined) return allocated;
  }
}
