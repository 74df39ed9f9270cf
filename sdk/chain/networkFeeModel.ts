import { BaseError, ContractFunctionZeroDataError, parseAbi, type Address, type Hex, type PublicClient } from "viem";

/** Which L1 data cost a chain adds to its L2 execution gas. `none`: no such term (the devnet, an L1). */
export const l1FeeModels = ["none", "arbitrum"] as const;
export type L1FeeModel = (typeof l1FeeModels)[number];

/** Arbitrum's ArbGasInfo precompile: its per-block prices of L1 data, in wei. */
export const ARB_GAS_INFO: Address = "0x000000000000000000000000000000000000006C";
const arbGasInfoAbi = parseAbi(["function getPricesInWei() view returns (uint256, uint256, uint256, uint256, uint256, uint256)"]);

/** What a transaction pays for its L1 data at one block: a fixed part and a part per calldata byte. */
export type L1DataPrice = Readonly<{ perTransactionWei: bigint; perCalldataByteWei: bigint }>;

/** The chain's fee inputs at one block: the node's suggested tip and the L1 data price (zero where there is none). */
export type BlockFees = Readonly<{ nodePriorityFeePerGas: bigint; l1: L1DataPrice }>;

const NO_L1_COST: L1DataPrice = { perTransactionWei: 0n, perCalldataByteWei: 0n };
/** Blocks and the reward percentile eth_feeHistory is asked for when a node has no eth_maxPriorityFeePerGas. */
const FEE_HISTORY_BLOCKS = 5;
const FEE_HISTORY_PERCENTILE = 50;

/** The tip to price with: the node's suggestion, never above the operator's configured value. */
export function cappedPriorityFee(fees: BlockFees, ceilingWei: bigint): bigint {
  return fees.nodePriorityFeePerGas < ceilingWei ? fees.nodePriorityFeePerGas : ceilingWei;
}

/** The L1 data cost of a transaction with `calldata` (hex), in wei; zero on a chain without one. */
export function l1DataFeeWei(price: L1DataPrice, calldata: Hex): bigint {
  if (price.perTransactionWei === 0n && price.perCalldataByteWei === 0n) return 0n;
  return price.perTransactionWei + price.perCalldataByteWei * BigInt((calldata.length - 2) / 2);
}

/**
 * The chain's fee inputs, read once per block (keyed by its hash) and shared by every quote and relay
 * priced at it: a quote pays no extra round trip except the first at each new block, and that one
 * runs beside the block's other reads.
 *
 * The tip is the node's `eth_maxPriorityFeePerGas`, or the median reward of its last blocks
 * (`eth_feeHistory`) on a node without that method; callers cap it with their configured tip
 * (cappedPriorityFee). On an Arbitrum chain (`arbitrum`), ArbGasInfo.getPricesInWei gives the L1
 * price per transaction and per calldata byte: the byte price assumes uncompressed calldata, so the
 * term errs high, never low. A chain with no code at ArbGasInfo has no such term: it is zero, and
 * `onMissingL1Oracle` is told (an operator who set `arbitrum` on the wrong chain).
 */
export class NetworkFeeModel {
  #block: Hex | undefined;
  #fees: Promise<BlockFees> | undefined;

  constructor(
    private readonly client: PublicClient,
    private readonly l1Model: L1FeeModel,
    private readonly onMissingL1Oracle: () => void = () => undefined,
  ) {}

  at(block: Readonly<{ hash: Hex; number: bigint }>): Promise<BlockFees> {
    if (this.#fees !== undefined && this.#block === block.hash) return this.#fees;
    const fees = this.#read(block.number);
    this.#block = block.hash;
    this.#fees = fees;
    // A failed read must not stick to the block: the next caller tries again.
    fees.catch(() => {
      if (this.#fees === fees) this.#fees = undefined;
    });
    return fees;
  }

  async #read(blockNumber: bigint): Promise<BlockFees> {
    const [nodePriorityFeePerGas, l1] = await Promise.all([this.#nodeTip(), this.l1Model === "arbitrum" ? this.#arbitrumL1(blockNumber) : NO_L1_COST]);
    return { nodePriorityFeePerGas, l1 };
  }

  async #nodeTip(): Promise<bigint> {
    try {
      return BigInt(await this.client.request({ method: "eth_maxPriorityFeePerGas" }));
    } catch {
      const history = await this.client.getFeeHistory({ blockCount: FEE_HISTORY_BLOCKS, blockTag: "latest", rewardPercentiles: [FEE_HISTORY_PERCENTILE] });
      const rewards = (history.reward ?? []).map((row) => row[0] ?? 0n).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      return rewards[Math.floor(rewards.length / 2)] ?? 0n;
    }
  }

  async #arbitrumL1(blockNumber: bigint): Promise<L1DataPrice> {
    try {
      const [perL2Tx, perL1CalldataByte] = await this.client.readContract({ address: ARB_GAS_INFO, abi: arbGasInfoAbi, functionName: "getPricesInWei", blockNumber });
      return { perTransactionWei: perL2Tx, perCalldataByteWei: perL1CalldataByte };
    } catch (error) {
      if (!(error instanceof BaseError) || !(error.walk((cause) => cause instanceof ContractFunctionZeroDataError) instanceof ContractFunctionZeroDataError)) throw error;
      this.onMissingL1Oracle();
      return NO_L1_COST;
    }
  }
}
