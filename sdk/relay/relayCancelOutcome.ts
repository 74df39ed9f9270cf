/**
 * What `POST /gasless/cancel/{relay_id}` did, in its answer's `outcome`:
 *
 * - `cancelled`: nothing had been broadcast (or nothing on record can fill any more); the relay is
 *   `cancelled` (final) and is never sent.
 * - `cancelling`: the swap was pending; a zero-value self-transfer at the same nonce with bumped fees
 *   replaces it. The relay stays `submitted` until the chain decides: `cancelled` if the replacement
 *   is mined, `confirmed` if the swap was mined first. A swap sent by a relayer that died, which no
 *   live relayer can replace, keeps it `submitted` until it fills (`confirmed`) or can no longer
 *   (`cancelled`, past the quote's deadline at the latest).
 * - `already_mined`: the swap's nonce is already mined, or the order filled (the relay waits for its
 *   confirmations); it cannot be replaced and the relay ends as mined (`confirmed`, or `failed` if it reverted).
 *
 * A relay that is already final is not an outcome: the endpoint answers 409 `relay_final` with it.
 */
export const relayCancelOutcomes = ["cancelled", "cancelling", "already_mined"] as const;
export type RelayCancelOutcome = (typeof relayCancelOutcomes)[number];
