import type { Address } from "viem";
import { budgetRefusalOfStanding, relayGasLimit, relayGasLimitOfCalldata, type BudgetRefusalJson } from "../sdk";
import type { GasBudgets } from "./config";
import { gaslessStanding } from "./gaslessStanding";
import type { RelayRecord, RelayStore } from "./store/relayStore";

/** The worst case of unpaid gas still to come, for a taker's and for an integrator's budget. */
export type InFlightGas = { taker: bigint; integrator: bigint };

/**
 * The most gas the relays accepted or broadcast but not yet final (`relays`: the store's open ones)
 * can still charge to a taker's and an integrator's budgets: each relay's single-swap gas limit.
 * It bounds every way a relay ends unpaid, since only one transaction per nonce is mined: its swap
 * reverting alone or as a batch member (capped below that limit), or a cancel replacing it (21,000).
 * Budgets are charged only when a transaction is mined; counting this as already charged is what
 * keeps concurrent hand-offs from all passing a budget that only the last of them would spend.
 * `except` leaves out one relay (a cancel of it adds nothing to its own worst case).
 */
export function inFlightGas(relays: readonly Pick<RelayRecord, "id" | "taker" | "integratorId" | "estimatedGas" | "data">[], subject: { taker: Address; integratorId: number }, except?: string): InFlightGas {
  const taker = subject.taker.toLowerCase();
  let forTaker = 0n;
  let forIntegrator = 0n;
  for (const relay of relays) {
    if (relay.id === except) continue;
    const worst = gasLimitOf(relay);
    if (relay.taker.toLowerCase() === taker) forTaker += worst;
    if (relay.integratorId === subject.integratorId) forIntegrator += worst;
  }
  return { taker: forTaker, integrator: forIntegrator };
}

/** A stored relay's calldata was read at its hand-off; were it unreadable now, its modelled limit still counts. */
function gasLimitOf(relay: Pick<RelayRecord, "estimatedGas" | "data">): bigint {
  try {
    return relayGasLimitOfCalldata(relay.estimatedGas, relay.data);
  } catch {
    return relayGasLimit(relay.estimatedGas, 0);
  }
}

/**
 * The refusal of a hand-off whose taker's or integrator's budget is spent, counting the worst case of
 * their relays in flight (a retry of this quote's own relay aside) as spent; undefined when it may go.
 * Callers take turns around it and the insert it allows, or hand-offs at once would all pass.
 */
export async function handoffBudgetRefusal(store: RelayStore, budgets: GasBudgets, handoff: { chainId: number; quoteId: string; taker: Address; integratorId: number }, now: Date): Promise<BudgetRefusalJson | undefined> {
  const subject = { taker: handoff.taker, integratorId: handoff.integratorId };
  const open = (await store.listOpenRelays()).filter((relay) => !(relay.chainId === handoff.chainId && relay.quoteId === handoff.quoteId));
  const standing = await gaslessStanding(store, budgets, subject, now, inFlightGas(open, subject));
  return standing.taker.spent || standing.integrator.spent ? budgetRefusalOfStanding(standing) : undefined;
}
