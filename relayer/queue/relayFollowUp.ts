import type { RelayReason, RelayStatus } from "../../sdk";
import type { RelayRecord } from "../store/relayStore";
import type { RelayHold } from "./relayHold";

/**
 * What becomes of a relay an attempt did not see through, a batch's (batchDispatcher.ts) or a single
 * send's (sentSwapFollowUp.ts): the queue that owns the relays acts on each (relayQueue.ts `#follow`),
 * in order, once the attempt is over.
 */
export type RelayFollowUp =
  /** Broadcast (or possibly broadcast): the receipt watcher follows it, sending it again when `resend`. */
  | { then: "track"; relayId: string; resend: boolean }
  /** Goes out on its own from now on (its batch would revert as a whole, or left it out), queued now. */
  | { then: "alone"; relayId: string }
  /** Left out of the batch: waits for `hold` to pass (the single path's bound), as a relay of its own would. */
  | { then: "hold"; relayId: string; hold: RelayHold }
  /** Waits, with the queue's growing pauses, and is tried again (a lapsed lease, a refused tip). */
  | { then: "wait"; relayId: string; details: Record<string, unknown>; message: string }
  /** Queued again after `delayMs` (its signer was given back). */
  | { then: "requeue"; relayId: string; delayMs: number }
  /** Its attempt failed (the node, the database): tried again later, with backoff. */
  | { then: "retry"; relayId: string; error: unknown }
  /** Its Permit2 nonce is spent: someone else's fill is recorded, or it ends. */
  | { then: "settledWithoutUs"; relay: RelayRecord }
  /** Ends now with this status and reason (the node refused it for good). */
  | { then: "end"; relay: RelayRecord; status: RelayStatus; reason: RelayReason; error: string };
