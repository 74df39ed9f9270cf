import type { Logger } from "pino";
import type { Address, PublicClient } from "viem";
import type { DeploymentManifest } from "../../sdk";
import type { Clock } from "../clock";
import type { Store } from "../store/store";
import type { ChainSupportedTokens } from "./chainSupportedTokens";
import { checkTokenOnChain } from "./tokenOnChainCheck";

/** What the promoter needs of one served chain. */
export type PromotableChain = Readonly<{ chainId: number; client: PublicClient; manifest: DeploymentManifest; tokens: ChainSupportedTokens }>;

export type PromotionRules = Readonly<{
  /** Distinct integrators an operator approved or confirmed, needed within the window. */
  minIntegrators: number;
  windowHours: number;
  /** Least WETH value (wei) of the known side of the token's pool. */
  minLiquidityWei: bigint;
  /** A token that failed its checks is not checked again sooner than this. */
  recheckMinutes: number;
}>;

export type TokenPromoterOptions = Readonly<{
  store: Store;
  logger: Logger;
  clock: Clock;
  chains: readonly PromotableChain[];
  rules: PromotionRules;
}>;

export type PromotionOutcome = Readonly<
  { chainId: number; token: Address; integrators: number } & ({ promoted: true } | { promoted: false; reason: string })
>;

/** Candidates examined per chain and run, so a flood of distinct tokens cannot stall the job. */
const MAX_CANDIDATES_PER_RUN = 50;

/**
 * Automatic promotion: a token becomes supported when at least `minIntegrators` distinct integrators
 * asked for it within the window, each active and approved or confirmed by an operator (auto-approved
 * wallets cost nothing to make), and it passes the on-chain checks (`checkTokenOnChain`). The decision
 * is stored (source `demand`) only if the operator has made none, then the chain's set is rebuilt from
 * the database, which gives a new snapshot_id and ETag. A token that fails is logged with the reason
 * and left alone for `recheckMinutes`, so the chain is not asked again on every flush.
 */
export class TokenPromoter {
  readonly #options: TokenPromoterOptions;
  /** chainId:token → when its last failed check ran (ms). */
  readonly #failedAt = new Map<string, number>();

  constructor(options: TokenPromoterOptions) {
    this.#options = options;
  }

  /** One pass over every chain; returns what was examined. */
  async run(): Promise<PromotionOutcome[]> {
    const { store, clock, rules } = this.#options;
    const now = clock.now().getTime();
    const recheckMs = rules.recheckMinutes * 60_000;
    for (const [key, at] of this.#failedAt) if (now - at >= recheckMs) this.#failedAt.delete(key);

    const outcomes: PromotionOutcome[] = [];
    for (const chain of this.#options.chains) {
      const candidates = await store.listTokenDemand({
        chainId: chain.chainId,
        since: new Date(now - rules.windowHours * 3_600_000),
        minIntegrators: rules.minIntegrators,
        // Integrators are free to create (AUTO_APPROVE): only those an operator vouched for count.
        operatorApprovedOnly: true,
        withoutOverride: true,
        chainRun: chain.manifest.deployBlockHash,
        limit: MAX_CANDIDATES_PER_RUN,
      });
      for (const candidate of candidates) {
        if (chain.tokens.resolve(candidate.token) !== undefined) continue;
        if (this.#failedAt.has(`${chain.chainId}:${candidate.token}`)) continue;
        outcomes.push(await this.#promote(chain, candidate.token, candidate.integrators));
      }
    }
    return outcomes;
  }

  async #promote(chain: PromotableChain, token: Address, integrators: number): Promise<PromotionOutcome> {
    const { store, logger, clock, rules } = this.#options;
    const bases = chain.tokens
      .entries()
      .filter((entry) => entry.origin === "manifest")
      .map((entry) => entry.address);
    const check = await checkTokenOnChain({ client: chain.client, manifest: chain.manifest, token, bases, minLiquidityWei: rules.minLiquidityWei });
    if (!check.ok) {
      this.#failedAt.set(`${chain.chainId}:${token}`, clock.now().getTime());
      logger.info({ chainId: chain.chainId, token, integrators, reason: check.reason }, "token not promoted: on-chain checks failed");
      return { chainId: chain.chainId, token, integrators, promoted: false, reason: check.reason };
    }
    const written = await store.saveTokenOverride(
      {
        chainId: chain.chainId,
        token,
        status: "promoted",
        source: "demand",
        symbol: check.symbol,
        decimals: check.decimals,
        pool: check.pool,
        tax: check.tax,
        reason: `${integrators} operator-approved integrators within ${rules.windowHours} h`,
        chainRun: chain.manifest.deployBlockHash,
        at: clock.now(),
      },
      "if_absent",
    );
    if (!written) return { chainId: chain.chainId, token, integrators, promoted: false, reason: "the operator decided on this token meanwhile" };
    chain.tokens.applyOverrides(await store.listTokenOverrides(chain.chainId));
    logger.info(
      { chainId: chain.chainId, token, symbol: check.symbol, pool: check.pool.address, tax: check.tax, integrators, snapshotId: chain.tokens.snapshot().snapshot_id },
      "token promoted by demand",
    );
    return { chainId: chain.chainId, token, integrators, promoted: true };
  }
}
