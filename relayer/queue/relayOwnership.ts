import type { RelayerConfig } from "../config";
import type { RelayRecord } from "../store/relayStore";

/**
 * Whether this relayer may sign for `relay` now. `ours`: it holds the claim and the lease has at
 * least a third of its length left (renewals run every third, so a live relayer never gets close).
 * `lapsed`: the claim is ours but the lease ran out or nearly (renewals failing, a database outage):
 * another relayer may claim it at any moment, so nothing is signed until a renewal succeeds.
 * `theirs`: another relayer took it over; this one must leave it alone.
 */
export type RelayOwnership = "ours" | "lapsed" | "theirs";

export function relayOwnership(relay: Pick<RelayRecord, "claimedBy" | "leaseUntil">, config: Pick<RelayerConfig, "relayerId" | "leaseSeconds">, now: Date): RelayOwnership {
  if (relay.claimedBy !== undefined && relay.claimedBy !== config.relayerId) return "theirs";
  if (relay.leaseUntil === undefined) return "lapsed";
  const margin = (config.leaseSeconds * 1000) / 3;
  return relay.leaseUntil.getTime() - now.getTime() > margin ? "ours" : "lapsed";
}
