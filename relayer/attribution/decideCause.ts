import type { AttributionFacts, RetryFacts } from "./attributionFacts";
import type { UnpaidGasCause } from "../ledger/unpaidGas";

/** The smallest adverse move within the block (in bps of the parent's output) that counts as the market's doing on its own. */
export const MARKET_MOVE_BPS = 1n;

/** Why a cause was decided, in words for the relay's error and the ledger's detail. */
export type Attribution = Readonly<{ cause: UnpaidGasCause; detail: string; market: boolean }>;

/**
 * Who caused a failed order, from facts the relayer read itself, in this order:
 * 1. the router's gate was closed at the mined block or its parent → the operator (a pause or a migration);
 * 2. the route, repriced at the reserves the order met, misses its minimum → the market when it would
 *    have filled at the parent block (a pool moved within the block, before it: a sandwich), the
 *    operator when it would not have filled at the parent either (the relay was sent, or kept pending,
 *    after the pool had already moved: our latency, which the operator tunes);
 * 3. the taker's address held code at the mined block → the taker: its own wallet ran, and whatever
 *    it reverted with (the router's own `SwapFeaturePaused` included) is its choice;
 * 4. its Permit2 nonce spent, or its balance or allowance short → the taker;
 * 5. a pool of its route moved against it within its block, before it (a taxed token's order may miss
 *    its minimum where the untaxed repricing does not) → the market;
 * 6. anything else (a token that refuses, an unexplained revert of the taker's order) → the taker:
 *    no fact a third party controls explains it.
 * A third party can make only 2 and 5 true (by trading), and those count against nobody.
 */
export function decideCause(facts: AttributionFacts): Attribution {
  if (facts.gateClosed) return { cause: "operator", detail: "the router was paused or not active at the mined block (registry)", market: false };
  const route = facts.route;
  if (route !== undefined && route.met < route.minimum) {
    if (route.atParent >= route.minimum) {
      return { cause: "market", detail: `a pool moved within the block, before the order: repriced output ${route.met} at the state it met, ${route.atParent} at the parent block, minimum ${route.minimum}`, market: true };
    }
    return { cause: "operator", detail: `the pool had moved before the order's block: repriced output ${route.atParent} at the parent block, minimum ${route.minimum} (sent or kept pending too late)`, market: true };
  }
  if (facts.takerCode.whenMined) {
    const how = facts.takerCode.whenAccepted ? "the taker's wallet code ran" : "the taker's address had no code when its relay was accepted and had code when mined";
    return { cause: "taker", detail: `${how}; its revert data is its own choice`, market: false };
  }
  if (facts.nonceSpent) return { cause: "taker", detail: "the taker's Permit2 nonce of this order was spent by something other than its fill", market: false };
  if (facts.fundsShort) return { cause: "taker", detail: "the taker's sell-token balance or allowance to Permit2 was short", market: false };
  if (route !== undefined && (route.atParent - route.met) * 10_000n >= route.atParent * MARKET_MOVE_BPS && route.atParent > route.met) {
    return { cause: "market", detail: `a pool moved against the order within its block: repriced output ${route.met} at the state it met, ${route.atParent} at the parent block`, market: true };
  }
  return { cause: "taker", detail: "no fact outside the taker's order explains the failure (its token or its signature)", market: false };
}

/**
 * Whether a failure is worth one more send: only when the facts put it on the operator or the market,
 * and the latest block says it would now go through (the gate open; a market failure's route repriced
 * at the latest block meets its minimum), and the relay was not already sent again once. A taker's
 * failure is never retried.
 */
export function shouldRetry(attribution: Attribution, retry: RetryFacts): boolean {
  if (attribution.cause === "taker" || attribution.cause === "integrator" || retry.resentBefore || !retry.gateOpen) return false;
  return attribution.market ? retry.fillsNow === true : true;
}
