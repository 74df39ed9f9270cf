import type { Hex } from "viem";
import { calldataGas, INTRINSIC_GAS } from "./calldataGas";

/** GaslessBatchSwapRouter.BATCH_ORDER_GAS: the highest gas cap a batch may give one order. */
export const BATCH_ORDER_GAS = 1_000_000n;

/** The router's ORDER_SKIP_GAS: what it keeps, beyond an order's cap, to record a skip and go on. */
export const BATCH_ORDER_SKIP_GAS = 10_000n;

/**
 * The gas the router wants left before an order's call with gas cap `cap` (the cap, the 1/64 the caller
 * keeps under EIP-150, and room for the skip event); below it the whole batch reverts with SwapBatchGasTooLow.
 */
export function batchOrderGasNeeded(cap: bigint): bigint {
  return cap + cap / 63n + BATCH_ORDER_SKIP_GAS;
}

/**
 * The most one order costs a batch outside its own call, at worst: its calldata beyond what its own
 * `swapGasless` carries (its place in the orders array and its gas cap, 64 bytes, less the 4-byte
 * selector), re-encoding it into memory, the gas check, the call itself, and a skip event with a
 * MAX_SKIP_REASON_BYTES reason. Measured on the devnet (test/contracts/batchOrderGasCaps.test.ts) with room.
 */
export const BATCH_ORDER_LOOP_GAS = 8_000n;

/**
 * A batch's own gas beyond its orders, counted before the first and again after the last (a bound on
 * each part): the entry point's dispatch and argument checks, the registry gate (read once per
 * batch), the bitmap and the returned amounts.
 */
export const BATCH_OVERHEAD_GAS = 20_000n;

/**
 * The gas cap a relayer gives a member of a batch: its share of its own single-swap gas limit
 * (`singleLimit`, `relayGasLimitOfCalldata`, which its fee was priced on and checked against) once the
 * batch has paid, out of that same limit, what the batch transaction pays for it elsewhere: the 21,000
 * intrinsic gas (a batch pays it once), its calldata (`data`, the member's `swapGasless` calldata: its
 * order is in the batch's calldata) and its per-order loop overhead (BATCH_ORDER_LOOP_GAS). So a member
 * that burns its whole cap costs the batch at most its single-swap limit less 21,000, which its fee
 * covers, and one that needs more than its cap would have run out of its own limit alone.
 */
export function batchOrderGasCap(singleLimit: bigint, data: Hex): bigint {
  const share = singleLimit - INTRINSIC_GAS - calldataGas(data) - BATCH_ORDER_LOOP_GAS;
  return share > 0n ? share : 0n;
}

/**
 * A bound on the calldata gas of a batch whose members' own `swapGasless` calldata costs `memberDataGas`
 * in all: each member adds 64 bytes (its offset in the orders array and its gas cap) less its 4-byte
 * selector, and the batch its selector and 4 words of heads and lengths, all counted as non-zero bytes.
 */
export function batchCalldataGasBound(memberDataGas: bigint, members: number): bigint {
  return memberDataGas + BigInt(members) * 60n * 16n + (4n + 4n * 32n) * 16n;
}

/**
 * The gas limit a relayer signs for `swapGaslessBatch(orders, caps)` whose calldata costs `dataGas`
 * (`calldataGas` of it, or a bound): the intrinsic and calldata gas, BATCH_OVERHEAD_GAS, and, walking back from the last order, what each
 * order may spend (its cap and its loop overhead) or, if more, what the router wants left before it
 * (batchOrderGasNeeded). With caps of similar size that is the sum of the caps and loop overheads plus
 * the last order's reservation (its cap / 63 and the skip room): every order can burn its whole cap
 * and the next still finds its own. Only gas used is paid; the reservation comes back.
 */
export function batchGasLimit(caps: readonly bigint[], dataGas: bigint): bigint {
  let fromHere = BATCH_OVERHEAD_GAS;
  for (let index = caps.length - 1; index >= 0; index--) {
    const cap = caps[index]!;
    const spent = cap + BATCH_ORDER_LOOP_GAS + fromHere;
    const needed = batchOrderGasNeeded(cap) + BATCH_ORDER_LOOP_GAS;
    fromHere = spent > needed ? spent : needed;
  }
  return INTRINSIC_GAS + dataGas + BATCH_OVERHEAD_GAS + fromHere;
}
