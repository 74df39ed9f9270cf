/** GaslessBatchSwapRouter.BATCH_ORDER_GAS: the most gas one order of a batch may use. */
export const BATCH_ORDER_GAS = 1_000_000n;

/**
 * The gas the router wants left before each order's call (its ORDER_GAS_NEEDED: the order's gas, the
 * 1/64 the caller keeps under EIP-150, and room for the skip event); below it the whole batch reverts
 * with SwapBatchGasTooLow. Only the last order needs it on top of the others' limits.
 */
export const BATCH_ORDER_GAS_NEEDED = BATCH_ORDER_GAS + BATCH_ORDER_GAS / 63n + 10_000n;

/** A batch's own gas beyond its orders' limits: the loop, the bitmap and the returned amounts. */
export const BATCH_OVERHEAD_GAS = 50_000n;

/**
 * The gas limit a relayer signs for `swapGaslessBatch` of orders whose single-swap limits
 * (`relayGasLimit`, each with its transaction's intrinsic cost and calldata) are `orderLimits`: every
 * order can use its whole limit and the last one still finds the gas the router asks for. Only gas
 * used is paid; the reservation for the last order comes back unless an order spends it.
 */
export function batchGasLimit(orderLimits: readonly bigint[]): bigint {
  return orderLimits.reduce((sum, limit) => sum + limit, BATCH_OVERHEAD_GAS + BATCH_ORDER_GAS_NEEDED);
}
