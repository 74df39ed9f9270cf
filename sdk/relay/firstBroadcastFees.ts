/**
 * EIP-1559 fees of a relay's first broadcast: twice the base fee (room for six full blocks of rises)
 * plus the tip, neither above `ceiling` (the relayer's RELAYER_MAX_FEE_GWEI). In the SDK because the
 * API simulates a gasless submission with the fees the relayer will sign (the API, without the
 * relayer's ceiling, passes none: the cap only ever lowers them).
 */
export function firstBroadcastFees(
  baseFeePerGas: bigint,
  priorityFeePerGas: bigint,
  ceiling?: bigint,
): Readonly<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }> {
  const cap = (value: bigint) => (ceiling !== undefined && value > ceiling ? ceiling : value);
  const maxPriorityFeePerGas = cap(priorityFeePerGas);
  return { maxPriorityFeePerGas, maxFeePerGas: cap(2n * baseFeePerGas + maxPriorityFeePerGas) };
}
