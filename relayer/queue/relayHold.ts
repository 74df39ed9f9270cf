import type { BlockHead } from "../../sdk/chain/chainHead";
import type { Fees } from "../broadcast/feeBump";
import type { RelayerConfig } from "../config";
import { effectiveGasPrice, feeShortfall } from "../intake/feeCoverage";
import type { RelayRecord } from "../store/relayStore";

/**
 * Why a relay waits instead of going out now: the fee ceiling, or a fee below its gas cost
 * (`belowCost`: a relay still below cost at its deadline ends `fee_below_cost`). Decided by `relayHoldReason`
 * for a relay alone (relayQueue.ts) and for each member of a batch (batchDispatcher.ts).
 */
export type RelayHold = { belowCost: boolean; details: Record<string, unknown>; message: string };

/**
 * Why the relay must not go out now at `head` with `fees`, if it must not: a base fee at or above
 * RELAYER_MAX_FEE_GWEI would get the swap refused (or stuck); a gas cost above what its signed fee
 * covers (beyond RELAYER_MAX_LOSS_BPS) would cost the operator money. Either way it waits for the base
 * fee to fall, up to its deadline, rather than failing a relay that can still fill. Checked when it
 * is queued, and again when it is sent: alone, or per member when its batch is built (the wait for a
 * signer may outlast the block it was checked at).
 */
export function relayHoldReason(config: Pick<RelayerConfig, "maxFeeWei" | "maxLossBps">, relay: Pick<RelayRecord, "feeWei" | "estimatedGas" | "data">, head: BlockHead, fees: Fees): RelayHold | undefined {
  if (head.baseFeePerGas >= config.maxFeeWei) {
    return { belowCost: false, details: { baseFeePerGas: head.baseFeePerGas.toString(), maxFeeWei: config.maxFeeWei.toString() }, message: "base fee at or above RELAYER_MAX_FEE_GWEI; waiting for it to fall" };
  }
  const shortfall = feeShortfall(relay, effectiveGasPrice(fees, head.baseFeePerGas), config.maxLossBps);
  if (shortfall === undefined) return undefined;
  return {
    belowCost: true,
    details: { costWei: shortfall.costWei.toString(), feeWei: shortfall.feeWei.toString(), maxLossBps: config.maxLossBps },
    message: "the gas limit costs more than the signed fee covers; waiting for the base fee to fall",
  };
}
