/**
 * The goals of the chaos soak (`npm run soak -- --chaos`, issue 34 "Nonces that heal"), judged from
 * what the run recorded. Pure: chaosSoak.ts records, this file judges.
 */
import type { Goal } from "./soakReport";
import { tallyRelays, type RelayRecord } from "./soakReport";

/** After the faults stop, no signer may have a transaction of ours waiting at an unmoving nonce for longer than this. */
export const MAX_STALL_BLOCKS = 3;

/** An accepted relay as last read, with when it became final (epoch ms, the relay's updated_at) and its order's deadline (Unix s). */
export type ChaosRelay = RelayRecord & { finalAtMs?: number; deadline: number };

export type ChaosRecords = {
  offered: number;
  relays: readonly ChaosRelay[];
  /** Onchain quote ids of submissions the API never accepted. */
  unaccepted: readonly string[];
  /** SwapSettled logs per onchain quote id (lower case). */
  settled: ReadonlyMap<string, number>;
  /** Requests the proxy saw while injecting, and how many it faulted, by kind; `node:restart` and `node:mempool-lost` (our transactions the restart dropped) too. */
  calls: number;
  faults: Record<string, number>;
  /** The longest any signer stayed behind an unmoving nonce, in blocks, after the faults stopped. */
  worstStallBlocks: number;
};

export function chaosGoals(records: ChaosRecords): Goal[] {
  const tally = tallyRelays(records.relays, records.unaccepted, records.settled);
  // The node's restart and what it lost are counted apart: they are not answers to a request.
  const faulted = Object.entries(records.faults).filter(([kind]) => !kind.startsWith("node:")).reduce((sum, [, count]) => sum + count, 0);
  const late = records.relays.filter((relay) => relay.finalAtMs === undefined || relay.finalAtMs > relay.deadline * 1000);
  const share = records.calls === 0 ? 0 : faulted / records.calls;
  return [
    {
      name: "faults on 5-10 % of RPC calls, a node restart that lost its mempool",
      pass: share >= 0.05 && share <= 0.1 && (records.faults["node:restart"] ?? 0) > 0 && (records.faults["node:mempool-lost"] ?? 0) > 0,
      detail: `${faulted} of ${records.calls} requests (${(share * 100).toFixed(1)} %); ${Object.entries(records.faults).map(([kind, count]) => `${kind} ${count}`).join(", ")}`,
    },
    {
      name: "0 lost",
      pass: tally.accepted > 0 && tally.lost.length === 0 && tally.settledUnaccepted.length === 0 && tally.settledDespiteStatus.length === 0,
      detail: `${records.offered} offered, ${tally.accepted} accepted (${Object.entries(tally.byStatus).map(([status, count]) => `${status} ${count}`).join(", ")}); ${tally.lost.length} lost, ${tally.settledDespiteStatus.length} settled despite a final failure, ${tally.settledUnaccepted.length} settled without acceptance`,
    },
    { name: "0 doubled (one SwapSettled per quote)", pass: tally.doubled.length === 0, detail: `${tally.settlements} SwapSettled, ${tally.doubled.length} quotes settled twice` },
    { name: "every relay final by its deadline", pass: tally.accepted > 0 && late.length === 0, detail: `${tally.accepted - late.length} of ${tally.accepted}${late.length === 0 ? "" : `; late or open: ${late.slice(0, 3).map((relay) => relay.relayId).join(", ")}`}` },
    {
      name: `no signer behind a nonce gap for more than ${MAX_STALL_BLOCKS} blocks after the faults stop`,
      pass: records.worstStallBlocks <= MAX_STALL_BLOCKS,
      detail: `worst ${records.worstStallBlocks} blocks`,
    },
  ];
}
