import type { Address } from "viem";

/** One quote rejected because `token` is not supported. */
export type DemandObservation = Readonly<{ chainId: number; token: Address; integratorId: number; at: Date }>;

/**
 * Where the quote path reports unsupported-token demand. `record` must return at once (no I/O):
 * implementations aggregate in memory and flush in batches.
 */
export interface DemandRecorder {
  record(observation: DemandObservation): void;
}
