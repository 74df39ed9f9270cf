import { ChainHead } from "../../../sdk/chain/chainHead";
import { NetworkFeeModel } from "../../../sdk/chain/networkFeeModel";
import type { ApiDependencies } from "../../apiDependencies";
import type { ChainContext } from "../../chains/chainContext";
import { GaslessStandingCheck } from "../../gasless/gaslessStanding";
import { RelayerClient } from "../../gasless/relayerClient";
import { QuoteBuckets } from "../admission/quoteBuckets";
import { BlockCache } from "../market/blockCache";
import { marketTrackerOf } from "../market/chainMarket";
import { NonceRanges } from "../nonces/nonceRanges";
import { PermitNonceAllocator } from "../nonces/permitNonces";
import type { QuoteEngine } from "./buildQuote";

/** What /quote and /price share per app: the probe and quote buckets, the engines (so a price sees the quotes' nonce reservations). */
export type Quoting = Readonly<{ buckets: QuoteBuckets; engineFor: (chain: ChainContext) => QuoteEngine; standing: GaslessStandingCheck | undefined }>;

/** Wired once when the app is built (createApp), not by the first request of a route. */
export function createQuoting(deps: Omit<ApiDependencies, "quoting">): Quoting {
  const buckets = new QuoteBuckets(deps.config.quoteProbeMultiplier, deps.rateLimiters, (bucket) => deps.metrics?.rateLimited.inc({ bucket }), undefined, deps.config.priceRateLimitMultiplier);
  // With several instances, a nonce is live in at most one quote: a held bit is never reused.
  const nonces = new PermitNonceAllocator({ onlyFree: deps.nonceRangeLeases !== undefined });
  // One holder per app: its leased ranges serve every chain (leases are keyed by chain).
  const nonceRanges = deps.nonceRangeLeases === undefined ? undefined : new NonceRanges(deps.nonceRangeLeases, nonces);
  // Block caches and router→holder lookups are per chain; nonce reservations are keyed by chain already.
  const engines = new Map<number, QuoteEngine>();
  const standing = deps.config.gasless === undefined ? undefined : new GaslessStandingCheck(new RelayerClient(deps.config.gasless), deps.config.gasless.standingCacheMs);
  let missingL1OracleTold = false;
  const engineFor = (chain: ChainContext): QuoteEngine => {
    let engine = engines.get(chain.chainId);
    if (engine === undefined) {
      engine = {
        heads: new ChainHead(chain.client),
        pools: marketTrackerOf(chain),
        blockCache: new BlockCache(),
        nonces,
        nonceRanges,
        holders: new Map(),
        ttlSeconds: deps.config.quoteTtlSeconds,
        fees: new NetworkFeeModel(chain.client, deps.config.l1FeeModel, () => {
          if (missingL1OracleTold) return;
          missingL1OracleTold = true;
          deps.logger.warn({ chainId: chain.chainId }, "L1_FEE_MODEL=arbitrum but the chain has no ArbGasInfo precompile: the L1 data cost is counted as zero");
        }),
      };
      engines.set(chain.chainId, engine);
    }
    return engine;
  };
  return { buckets, engineFor, standing };
}
