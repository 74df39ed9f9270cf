/**
 * Mining controls of the relayer bench's chains. Hardhat and Anvil answer the same test methods
 * (Anvil takes Hardhat's names as aliases), with one difference: Anvil's evm_setIntervalMining counts
 * seconds where Hardhat's counts milliseconds.
 */
import type { Hex } from "viem";
import type { ChainKind } from "./relayerBenchSettings";

export type Rpc = (method: string, params?: unknown[]) => Promise<unknown>;

export type ChainControls = {
  /** Interval mining every `blockMs` with a real mempool (automine off). */
  intervalMining(blockMs: number): Promise<void>;
  /** Back to mining each transaction as it comes (for set-up between cases). */
  automine(): Promise<void>;
  /** Drops what the mempool still holds; returns how many transactions it dropped. */
  clearMempool(): Promise<number>;
};

export function chainControls(kind: ChainKind, rpc: Rpc): ChainControls {
  return {
    async intervalMining(blockMs) {
      await rpc("evm_setAutomine", [false]);
      await rpc("evm_setIntervalMining", [kind === "anvil" ? Math.round(blockMs / 1000) : blockMs]);
    },
    async automine() {
      await rpc("evm_setIntervalMining", [0]);
      await rpc("evm_setAutomine", [true]);
    },
    async clearMempool() {
      let dropped = 0;
      for (;;) {
        const pending = (await rpc("eth_getBlockByNumber", ["pending", false])) as { transactions: Hex[] } | null;
        const hashes = pending?.transactions ?? [];
        if (hashes.length === 0) return dropped;
        if (kind === "anvil") {
          // Anvil's pending block is what it would mine next; drop its whole pool in one call.
          await rpc("anvil_dropAllTransactions");
          return dropped + hashes.length;
        }
        for (const hash of hashes) if ((await rpc("hardhat_dropTransaction", [hash])) === true) dropped++;
      }
    },
  };
}
