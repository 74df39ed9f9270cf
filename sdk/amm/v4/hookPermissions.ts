import type { Address } from "viem";
import { isDynamicFee, type V4PoolKey } from "./poolKey";

/**
 * A V4 hook's permissions are the low 14 bits of its address (Hooks.sol): the PoolManager calls a
 * hook function only when its bit is set, so the address alone says what a hook may do to a swap.
 */
export const V4_HOOK_FLAGS = {
  beforeInitialize: 1 << 13,
  afterInitialize: 1 << 12,
  beforeAddLiquidity: 1 << 11,
  afterAddLiquidity: 1 << 10,
  beforeRemoveLiquidity: 1 << 9,
  afterRemoveLiquidity: 1 << 8,
  beforeSwap: 1 << 7,
  afterSwap: 1 << 6,
  beforeDonate: 1 << 5,
  afterDonate: 1 << 4,
  beforeSwapReturnsDelta: 1 << 3,
  afterSwapReturnsDelta: 1 << 2,
  afterAddLiquidityReturnsDelta: 1 << 1,
  afterRemoveLiquidityReturnsDelta: 1 << 0,
} as const;

export type V4HookFlag = keyof typeof V4_HOOK_FLAGS;

/** Every permission bit (Hooks.ALL_HOOK_MASK). */
export const V4_HOOK_MASK = (1 << 14) - 1;

/** The permission bits of `hooks` (0 for a pool without a hook). */
export function hookFlagsOf(hooks: Address): number {
  return Number(BigInt(hooks) & BigInt(V4_HOOK_MASK));
}

/** Whether `hooks` carries `flag`. */
export function hasHookFlag(hooks: Address, flag: V4HookFlag): boolean {
  return (hookFlagsOf(hooks) & V4_HOOK_FLAGS[flag]) !== 0;
}

/**
 * Why quoting does not route a pool unless the operator allowlisted its hook, or undefined when it may:
 * - `returns-delta`: the hook may change what a swap pays or returns (BEFORE_SWAP_RETURNS_DELTA or
 *   AFTER_SWAP_RETURNS_DELTA), so the pool's curve is not the swap's outcome;
 * - `unreadable-fee`: the LP fee is dynamic and the hook may override it per swap from `beforeSwap`
 *   (a fee no state read or event shows before the swap);
 * - `swap-hook`: the hook runs code in every swap (`beforeSwap` or `afterSwap`): even one that only
 *   observes can revert or burn the swap's gas, and anyone can deploy one, so it routes only once
 *   the operator has looked at it.
 * A dynamic fee without a swap hook is readable: it changes only through `updateDynamicLPFee`, and
 * the pool's state carries it (StateView's `lpFee`, each `Swap` event's `fee`).
 */
export type V4HookExclusion = "returns-delta" | "unreadable-fee" | "swap-hook";

/** The reason `key`'s hook keeps the pool out of routing by default (see V4HookExclusion); undefined for a pool without swap hooks. */
export function v4HookExclusion(key: Pick<V4PoolKey, "fee" | "hooks">): V4HookExclusion | undefined {
  if (hasHookFlag(key.hooks, "beforeSwapReturnsDelta") || hasHookFlag(key.hooks, "afterSwapReturnsDelta")) return "returns-delta";
  if (isDynamicFee(key.fee) && hasHookFlag(key.hooks, "beforeSwap")) return "unreadable-fee";
  if (hasHookFlag(key.hooks, "beforeSwap") || hasHookFlag(key.hooks, "afterSwap")) return "swap-hook";
  return undefined;
}

/**
 * Whether quoting routes a pool with key `key`: a pool without a hook, or whose hook takes no part in
 * swaps (liquidity or donate hooks only), is routed; one with an exclusion only when the operator
 * allowlisted its hook (lowercase addresses).
 */
export function isV4PoolRoutable(key: Pick<V4PoolKey, "fee" | "hooks">, allowlistedHooks: ReadonlySet<string>): boolean {
  return v4HookExclusion(key) === undefined || allowlistedHooks.has(key.hooks.toLowerCase());
}
