/**
 * Why a relay waits instead of going out now: the fee ceiling, or a fee below its gas cost
 * (`belowCost`: a relay still below cost at its deadline ends `fee_below_cost`). Decided by the queue
 * (relayQueue.ts `#holdReason`) for a relay alone and for each member of a batch.
 */
export type RelayHold = { belowCost: boolean; details: Record<string, unknown>; message: string };
