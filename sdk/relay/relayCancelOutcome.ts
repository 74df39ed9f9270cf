/**
 * What `POST /gasless/cancel/{relay_id}` did, in its answer's `outcome`:
 *
 * - `cancelled`: nothing had been broadcast; the relay is `cancelled` (final) and is never sent.
 * - `cancelling`: the swap was pending; a zero-value self-transfer at the same nonce with bumped fees
 *   replaces it. The relay stays `submitted` until the chain decides: `cancelled` if the replacement
 *   is mined, `confirmed` if the swap was mined first.
 * - `already_mined`: the swap's nonce is already mined (the relay waits for its confirmations); it
 *   cannot be replaced and the relay ends as mined (`confirmed`, or `failed` if it reverted).
 *
 * A relay that is already final is not an outcome: the endpoint answers 409 `relay_final` with it.
 */
export const relayCancelOutcomes = ["cancelled", "cancelling", "already_mined"] as const;
export type RelayCancelOutcome = (typeof relayCancelOutcomes)[number];
