import type { Address } from "viem";
import type { GaslessStandingJson } from "../sdk";
import type { RelayerConfig } from "./config";
import type { RelayStore } from "./store/relayStore";

/** Reverted relays count for this long ("in a day"); older ones no longer block anyone. */
export const REVERT_WINDOW_HOURS = 24;

/** The start of the window that counts at `now`. */
export function revertWindowStart(now: Date): Date {
  return new Date(now.getTime() - REVERT_WINDOW_HOURS * 3_600_000);
}

/**
 * Whether a taker and an integrator may still have gasless quotes: each relayed swap of theirs that
 * was mined and reverted cost the operator gas and paid no fee, so past the configured count in the
 * window they are refused until it slides on or an operator clears them (`npm run integrators`).
 */
export async function gaslessStanding(
  store: RelayStore,
  config: Pick<RelayerConfig, "maxRevertsPerTaker" | "maxRevertsPerIntegrator">,
  subject: { taker: Address; integratorId: number },
  now: Date,
): Promise<GaslessStandingJson> {
  const counts = await store.revertCounts({ ...subject, since: revertWindowStart(now) });
  return {
    window_hours: REVERT_WINDOW_HOURS,
    taker: { address: subject.taker, reverts: counts.taker, limit: config.maxRevertsPerTaker, blocked: counts.taker >= config.maxRevertsPerTaker },
    integrator: {
      integrator_id: subject.integratorId,
      reverts: counts.integrator,
      limit: config.maxRevertsPerIntegrator,
      blocked: counts.integrator >= config.maxRevertsPerIntegrator,
    },
  };
}
