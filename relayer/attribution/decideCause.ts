import type { AttributionFacts, RetryFacts } from "./attributionFacts";
import type { UnpaidGasCause } from "../ledger/unpaidGas";

/** The smallest adverse move within the block (in bps of the parent's output) that counts as the market's doing on its own. */
export const MARKET_MOVE_BPS = 1n;

/**
 * Rule 7's unproven failure: the route cannot be repriced and nothing of it traded before the order.
 * Counted against the integrator's budget alone (INTEGRATOR_BUDGET_CAUSES), not the taker's: what
 * one key's unproven failures cost the operator is bounded by its budget, and no taker is refused for
 * want of facts. Still sent once more when the latest block says it goes through.
 */
export const UNPROVEN_DETAIL =
  "unproven: the route cannot be repriced (an exact-output split, a V3 swap past the ticks read) and no pool of it traded before the order within its block; no fact puts it on the taker or the operator, so it counts against the integrator's gas budget only";

/**
 * Rule 7's taker-side fault: the route cannot be repriced, nothing of it traded before the order, and
 * the taker-side transfers simulated at the parent or the mined block are refused (takerPull.ts). The
 * taker's, counted against its budget and its integrator's (TAKER_BUDGET_CAUSES), as any other taker
 * failure; never sent again.
 */
export const TAKER_PULL_REFUSED_DETAIL =
  "the route cannot be repriced and nothing of it traded before the order, and the taker-side transfers simulated at the parent or the mined block (its token permit, Permit2's pull of its sell amount, or an exact-output order's maximum, plus the fee) are refused: its balance, allowance, permit or token";

/**
 * A failed relay whose attribution reads kept failing for `patienceBlocks` blocks after it was mined: no
 * fact was read, so it is counted against nobody (the operator has paid the gas) and never sent again.
 */
export function unattributable(error: Error, patienceBlocks: number): Attribution & { retry: false } {
  return {
    cause: "operator",
    detail: `unattributable: the chain reads attribution needs kept failing for ${patienceBlocks} blocks after the block the order failed in (${error.message.slice(0, 200)}); counted against nobody`,
    market: false,
    retryable: false,
    retry: false,
  };
}

/**
 * Why a cause was decided, in words for the relay's error and the ledger's detail. `retryable` false:
 * never sent again whatever the latest block says (a taker's wallet ran; a third send is its to make).
 */
export type Attribution = Readonly<{ cause: UnpaidGasCause; detail: string; market: boolean; retryable: boolean }>;

/**
 * Who caused a failed order, from facts the relayer read itself, in this order:
 * 1. the router's gate was closed at the mined block or its parent → the operator (a pause or a migration);
 * 1'. a hop of the route is one its router does not reach at the parent or the mined block (a venue, a
 *    pool, a propAMM pair the allowlist no longer holds), or the calldata does not decode → the operator
 *    (the API quoted it, the hand-off took it, or an administrator changed it);
 * 2. the taker's address had no code when its relay was accepted and had code when mined → the taker,
 *    whatever the pools did: it chose to run code in its own order;
 * 3. the route, repriced at the reserves the order met, misses its minimum → the market when it would
 *    have filled at the parent block (a pool moved within the block, before it: a sandwich), the
 *    operator when it would not have filled at the parent either (the relay was sent, or kept pending,
 *    after the pool had already moved: our latency, which the operator tunes). Except for a taker whose
 *    wallet code ran (code when accepted and mined): it chose its own minimum and can move a pool by one
 *    unit itself, so when its order burnt (nearly) all its gas it is the taker's, and otherwise it is
 *    counted against nobody but never sent again;
 * 4. the taker's address held code at the mined block → the taker: its own wallet ran, and whatever
 *    it reverted with (the router's own `SwapFeaturePaused` included) is its choice;
 * 5. its Permit2 nonce spent, or its balance or allowance short → the taker;
 * 6. a pool of its route moved against it within its block, before it (a taxed token's order may miss
 *    its minimum where the untaxed repricing does not) → the market;
 * 7. the route cannot be repriced (an exact-output SPLIT, a V3 swap past the
 *    ticks read, a propAMM that changed within the block, calldata that no longer decodes): a venue of
 *    it traded before the order in its block → the market; else (an exact-output SPLIT, a V3 swap past
 *    the ticks read; a refused hop is rule 1') nobody's fault can be proven, neither
 *    the taker's (never the taker's for want of facts) nor the operator's (its route was valid when
 *    quoted; what made it fail is not known) → the integrator: its key sent the order, and its budget
 *    bounds what such failures of all its takers can cost the operator (UNPROVEN_DETAIL); unless the
 *    taker-side transfers, simulated at the parent or the mined block (its token permit, Permit2's pull
 *    of what it signed for), are refused → the taker (TAKER_PULL_REFUSED_DETAIL): its balance,
 *    allowance, permit or token, a fact only it or its token controls. After the market branch: a
 *    trade could raise an exact-output order's pull, and the simulation pulls its maximum;
 * 8. anything else (a token that refuses, an unexplained revert of the taker's order) → the taker:
 *    no fact a third party controls explains it.
 * A third party can make only 3, 6 and 7 true (by trading), and those count against nobody (7 without a
 * trade counts against the integrator alone).
 */
export function decideCause(facts: AttributionFacts): Attribution {
  if (facts.gateClosed) return { cause: "operator", detail: "the router was paused or not active at the mined block (registry)", market: false, retryable: true };
  if (facts.routeRefused) {
    return { cause: "operator", detail: "the route names a hop its router does not reach at the parent or the mined block (a venue, pool or propAMM pair), or its calldata does not decode: the API's quote, the hand-off or an administrator's change", market: false, retryable: true };
  }
  const { whenAccepted, whenMined } = facts.takerCode;
  if (whenMined && !whenAccepted) {
    return { cause: "taker", detail: "the taker's address had no code when its relay was accepted and had code when mined; its revert data is its own choice", market: false, retryable: false };
  }
  const route = facts.route;
  if (route !== undefined && route.met < route.minimum) {
    if (whenMined && facts.capBurnt === true) {
      return { cause: "taker", detail: `the taker's wallet code ran and burnt the order's gas; its minimum (${route.minimum}) is its own choice (repriced output ${route.met} at the state it met, ${route.atParent} at the parent block)`, market: false, retryable: false };
    }
    const wallet = whenMined ? " (the taker's wallet code ran: not sent again)" : "";
    if (route.atParent >= route.minimum) {
      return { cause: "market", detail: `a pool moved within the block, before the order: repriced output ${route.met} at the state it met, ${route.atParent} at the parent block, minimum ${route.minimum}${wallet}`, market: true, retryable: !whenMined };
    }
    return { cause: "operator", detail: `the pool had moved before the order's block: repriced output ${route.atParent} at the parent block, minimum ${route.minimum} (sent or kept pending too late)${wallet}`, market: true, retryable: !whenMined };
  }
  if (whenMined) return { cause: "taker", detail: "the taker's wallet code ran; its revert data is its own choice", market: false, retryable: false };
  if (facts.nonceSpent) return { cause: "taker", detail: "the taker's Permit2 nonce of this order was spent by something other than its fill", market: false, retryable: false };
  if (facts.fundsShort) return { cause: "taker", detail: "the taker's sell-token balance or allowance to Permit2 was short", market: false, retryable: false };
  if (route !== undefined && (route.atParent - route.met) * 10_000n >= route.atParent * MARKET_MOVE_BPS && route.atParent > route.met) {
    return { cause: "market", detail: `a pool moved against the order within its block: repriced output ${route.met} at the state it met, ${route.atParent} at the parent block`, market: true, retryable: true };
  }
  if (route === undefined) {
    if (facts.tradedBefore) {
      return { cause: "market", detail: "the route cannot be repriced (an exact-output split, a V3 swap past the ticks read, or a propAMM that changed within the block) and a pool of it traded before the order within its block", market: true, retryable: true };
    }
    if (facts.takerPullRefused) return { cause: "taker", detail: TAKER_PULL_REFUSED_DETAIL, market: false, retryable: false };
    return { cause: "integrator", detail: UNPROVEN_DETAIL, market: false, retryable: true };
  }
  return { cause: "taker", detail: "no fact outside the taker's order explains the failure (its token or its signature)", market: false, retryable: false };
}

/**
 * Whether a failure is worth one more send: only when the facts put it on the operator or the market
 * (or, unproven, on the integrator: rule 7),
 * and the latest block says it would now go through (the gate open; a market failure's route repriced
 * at the latest block meets its minimum), and the relay was not already sent again once. A taker's
 * failure, or one where the taker's wallet code ran, is never retried.
 */
export function shouldRetry(attribution: Attribution, retry: RetryFacts): boolean {
  if (attribution.cause === "taker" || !attribution.retryable || retry.resentBefore || !retry.gateOpen) return false;
  return attribution.market ? retry.fillsNow === true : true;
}
