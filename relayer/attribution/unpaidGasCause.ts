/**
 * Who caused a transaction the operator paid for without a fee: the taker (its wallet, its token,
 * its balance or allowance, its signature, its nonce), the integrator (its cancels), the market (a
 * pool moved within the block, before the order) or the operator (a pause, a migration, a relay sent
 * or kept pending after the pool had already moved).
 */
export type UnpaidGasCause = "taker" | "integrator" | "market" | "operator";
