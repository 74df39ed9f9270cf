import { randomBytes } from "node:crypto";
import type { Address } from "viem";
import { ApiError } from "../apiError";
import type { ChainContext } from "../chains/chainContext";
import { classifyDatabaseError } from "../store/databaseUnavailable";
import type { QuoteEngine, QuoteKind } from "./buildQuote";

/** Nonces tried per word against the other instances' reservations before the next word. */
const SHARED_NONCE_TRIES = 8;
/** Dense nonce words tried (cheap to fill) before a taker who used them all gets a random word. */
const DENSE_NONCE_WORDS = 4n;

/**
 * The taker's Permit2 nonce: the lowest free one in the dense first words, or, for a taker who used
 * them all, one in a random word far above them (its first use costs a fresh storage slot).
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
  const shared = engine.sharedNonces;
  const allocateIn = async (word: bigint) => {
    const bitmap = await reads.nonceBitmap(permit2, taker, word);
    if (kind === "indicative") return engine.nonces.peek(chain.chainId, taker, word, bitmap, nowMs);
    // With other instances, a nonce is ours only once the shared table agrees. One that another holds
    // stays reserved here until our quote's expiry (the allocator just reserved it), so the next try
    // picks another bit; a word where several tries fail is given up for the next.
    for (let attempt = 0; attempt < SHARED_NONCE_TRIES; attempt++) {
      const allocated = engine.nonces.allocate(chain.chainId, taker, word, bitmap, nowMs, expiresMs);
      if (allocated === undefined || shared === undefined) return allocated;
      const claimed = await shared.claim(chain.chainId, taker, allocated.nonce, expiresMs, nowMs).catch((cause: unknown) => {
        // The database, not the chain, failed: say so (the handler calls any other failure a chain
        // read's), and log what it said for the operator. An outage is the API-wide 503.
        const classified = classifyDatabaseError(cause);
        if (classified !== cause) throw classified;
        throw new ApiError(503, "quote_unavailable", "Permit2 nonce reservations could not be made right now (the API's database did not answer); retry shortly", { cause });
      });
      if (claimed) return allocated;
    }
    return undefined;
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
