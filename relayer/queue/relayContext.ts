import type { Logger } from "pino";
import type { Address, PublicClient } from "viem";
import type { ChainHead } from "../../sdk/chain/chainHead";
import type { NetworkFeeModel } from "../../sdk/chain/networkFeeModel";
import type { RelayerConfig } from "../config";
import type { NonceReconciler } from "../broadcast/nonceReconciler";
import type { RelayerMetrics } from "../relayerMetrics";
import type { SignerPool } from "../broadcast/signerPool";
import type { RelayStore } from "../store/relayStore";
import type { Treasury } from "../broadcast/treasury";
import type { V4Contracts } from "../attribution/routeVenues";

/** What the relayer's parts share; built once at start and passed in. */
export type RelayContext = Readonly<{
  config: RelayerConfig;
  client: PublicClient;
  /** The latest block, shared: one read per poll interval, not one per relay. */
  head: ChainHead;
  store: RelayStore;
  pool: SignerPool;
  /** Checks the signers' nonces against the chain on a schedule; asked at once after an ambiguous answer. */
  reconciler: NonceReconciler;
  logger: Logger;
  permit2: Address;
  /** The manifest's Uniswap V4 PoolManager and StateView (attribution reprices V4 hops through them); absent on a chain without V4. */
  uniswapV4?: V4Contracts;
  /** Lowercase addresses of the tokens relay fees may be paid in (`RELAYER_FEE_TOKENS` resolved against the manifest). */
  feeTokens: ReadonlySet<Address>;
  now: () => Date;
  /**
   * The node's suggested tip per block: a first broadcast tips that, at most RELAYER_PRIORITY_FEE_GWEI,
   * as the API priced the fee. Absent in tests that build a context by hand (the configured tip then).
   */
  fees?: NetworkFeeModel;
  /** The key that tops signers up (RELAYER_TREASURY_SIGNER); absent when none is configured. */
  treasury?: Treasury;
  /** Prometheus metrics; absent in tests that build a context by hand. */
  metrics?: RelayerMetrics;
}>;
