import type { IntegratorStatus } from "./store";

/**
 * The operator's moves on an integrator profile, written down once: from which statuses each is
 * allowed, and where it leads. Only `active` profiles get keys or pass apiKeyAuth, so suspending a
 * profile refuses its keys on trading endpoints until it is reinstated.
 */
export const integratorMoves = {
  approve: { from: ["pending"], to: "active" },
  reject: { from: ["pending"], to: "rejected" },
  suspend: { from: ["active"], to: "suspended" },
  reinstate: { from: ["suspended"], to: "active" },
} as const satisfies Record<string, { from: readonly IntegratorStatus[]; to: IntegratorStatus }>;

export type IntegratorMove = keyof typeof integratorMoves;

export const integratorMoveNames = Object.keys(integratorMoves) as IntegratorMove[];

export function isIntegratorMove(value: string): value is IntegratorMove {
  return Object.hasOwn(integratorMoves, value);
}
