import { relayGasLimitOfCalldata } from "../../sdk/relay/relayGasLimit";
import type { Fees } from "../broadcast/feeBump";
import type { RelayRecord } from "../store/relayStore";

const BPS = 10_000n;

/** The gas price a transaction signed with `fees` pays in a block of `baseFeePerGas` (EIP-1559). */
export function effectiveGasPrice(fees: Fees, baseFeePerGas: bigint): bigint {
  const offered = baseFeePerGas + fees.maxPriorityFeePerGas;
  return offered < fees.maxFeePerGas ? offered : fees.maxFeePerGas;
}

/** A relay whose signed fee no longer covers its gas: what the gas would cost and what the fee was worth. */
export type FeeShortfall = Readonly<{ costWei: bigint; feeWei: bigint; gas: bigint }>;

/**
 * The operator's bound on one relay, alone or as a member of a batch: the cost of its share of the gas
 * (its single-swap gas limit, the limit its fee was priced on) at `gasPrice`, against what its signed
 * fee was worth when quoted, allowing RELAYER_MAX_LOSS_BPS. Returns the shortfall, or undefined when the
 * fee covers it or the operator sponsors the relay (no fee to compare).
 *
 * In a batch the same limit bounds the member: its order's call is capped at that limit less 21,000,
 * less its calldata, less BATCH_ORDER_LOOP_GAS (`batchOrderGasCap`), so the member costs the batch at
 * most its limit less 21,000 even when it burns its whole cap, loop overhead and skip event included; the
 * batch pays 21,000 and its own BATCH_OVERHEAD_GAS once, below the 21,000 each further member saves. A
 * batch therefore never uses more gas than its members' limits together (test/contracts/batchOrderGasCaps.test.ts
 * proves it for batches of 2 to 64 members that all burn their caps), and the fees checked here cover it.
 */
export function feeShortfall(relay: Pick<RelayRecord, "feeWei" | "estimatedGas" | "data">, gasPrice: bigint, maxLossBps: number): FeeShortfall | undefined {
  if (relay.feeWei === undefined) return undefined;
  const gas = relayGasLimitOfCalldata(relay.estimatedGas, relay.data);
  const costWei = gas * gasPrice;
  return costWei * BPS > relay.feeWei * (BPS + BigInt(maxLossBps)) ? { costWei, feeWei: relay.feeWei, gas } : undefined;
}
