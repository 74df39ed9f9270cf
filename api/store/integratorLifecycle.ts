import type { IntegratorStatus } from "./store";

/**
 * The operator's moves on an integrator profile, written down once: from which statuses each is
 * allowed, and where it leads. Only `active` profiles get keys or pass apiKeyAuth, so suspending a
 * profile refuses its keys on trading endpoints until it is reinstated. `approve` and `confirm` also
 * record that an operator vouched for the profile (`operatorApprovedAt`): `confirm` does it for a
 * profile AUTO_APPROVE made active, whose demand then counts toward token promotion. Confirming a
 * profile an operator already vouched for is refused.
 */
export const integratorMoves = {
  approve: { from: ["pending"], to: "active" },
  confirm: { from: ["active"], to: "active" },
  reject: { from: ["pending"], to: "rejected" },
  suspend: { from: ["active"], to: "suspended" },
  reinstate: { from: ["suspended"], to: "active" },
} as const satisfies Record<string, { from: readonly IntegratorStatus[]; to: IntegratorStatus }>;

export type IntegratorMove = keyof typeof integratorMoves;

export const integratorMoveNames = Object.keys(integratorMoves) as IntegratorMove[];

/** Moves that record an operator's approval of the profile. */
export function vouchesForProfile(move: IntegratorMove): boolean {
  return move === "approve" || move === "confirm";
}

export function isIntegratorMove(value: string): value is IntegratorMove {
  return Object.hasOwn(integratorMoves, value);
}
