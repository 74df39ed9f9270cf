import type { Logger } from "pino";
import type { Address } from "viem";
import type { Clock } from "../clock";
import type { Store } from "../store/store";
import type { PromotableChain } from "./tokenPromoter";
import { checkTokenOnChain } from "./tokenOnChainCheck";

export type PromotedTokenRecheckOptions = Readonly<{
  store: Store;
  logger: Logger;
  clock: Clock;
  chains: readonly PromotableChain[];
  /** Least WETH value (wei) of the known side of the token's pool, as promotion requires. */
  minLiquidityWei: bigint;
  /** Each promoted token is checked again this often. */
  recheckMinutes: number;
}>;

export type RecheckOutcome = Readonly<
  { chainId: number; token: Address } & ({ kept: true } | { kept: false; demoted: boolean; reason: string })
>;

/** Promoted tokens rechecked per chain and run, so a long list is spread over several runs. */
const MAX_RECHECKS_PER_RUN = 50;

/**
 * Promotion checks a token's pool once; its liquidity can be withdrawn right after. Every
 * `recheckMinutes` each token promoted by demand (on this chain run) passes the same on-chain checks
 * again; one that fails is demoted: its decision becomes `disabled` with source `demand` and the
 * reason (`npm run tokens -- list` shows it as `demoted`), and the chain's set is rebuilt, which
 * changes the snapshot and its ETag. A demoted token is not promoted again by demand: the operator's
 * `tokens enable` restores it after the checks. A chain that does not answer demotes nothing.
 * Operator-enabled tokens are the operator's word and are not rechecked.
 */
export class PromotedTokenRecheck {
  readonly #options: PromotedTokenRecheckOptions;
  /** chainId:token → when this process last checked it (ms). */
  readonly #checkedAt = new Map<string, number>();

  constructor(options: PromotedTokenRecheckOptions) {
    this.#options = options;
  }

  /** Rechecks the promoted tokens that are due; returns what was examined. */
  async run(): Promise<RecheckOutcome[]> {
    const { store, clock, recheckMinutes } = this.#options;
    const now = clock.now().getTime();
    const intervalMs = recheckMinutes * 60_000;
    const outcomes: RecheckOutcome[] = [];
    for (const chain of this.#options.chains) {
      const run = chain.manifest.deployBlockHash.toLowerCase();
      const promoted = (await store.listTokenOverrides(chain.chainId)).filter(
        (override) => override.status === "promoted" && override.source === "demand" && override.chainRun?.toLowerCase() === run,
      );
      // Due: not checked (here, or at promotion, its updatedAt) within the interval; longest waiting first.
      const lastChecked = (token: Address, updatedAt: Date) => Math.max(this.#checkedAt.get(`${chain.chainId}:${token}`) ?? 0, updatedAt.getTime());
      const due = promoted
        .map((override) => ({ token: override.token, last: lastChecked(override.token, override.updatedAt) }))
        .filter((candidate) => now - candidate.last >= intervalMs)
        .sort((a, b) => a.last - b.last)
        .slice(0, MAX_RECHECKS_PER_RUN);
      let demoted = false;
      for (const { token } of due) {
        const outcome = await this.#recheck(chain, token, now);
        demoted ||= !outcome.kept && outcome.demoted;
        outcomes.push(outcome);
      }
      if (demoted) chain.tokens.applyOverrides(await store.listTokenOverrides(chain.chainId));
    }
    return outcomes;
  }

  async #recheck(chain: PromotableChain, token: Address, now: number): Promise<RecheckOutcome> {
    const { store, logger, clock, minLiquidityWei } = this.#options;
    this.#checkedAt.set(`${chain.chainId}:${token}`, now);
    const bases = chain.tokens
      .entries()
      .filter((entry) => entry.origin === "manifest")
      .map((entry) => entry.address);
    const check = await checkTokenOnChain({ client: chain.client, manifest: chain.manifest, token, bases, minLiquidityWei });
    if (check.ok) return { chainId: chain.chainId, token, kept: true };
    if (check.unreadable) {
      logger.warn({ chainId: chain.chainId, token, reason: check.reason }, "promoted token could not be rechecked; kept until the next recheck");
      return { chainId: chain.chainId, token, kept: false, demoted: false, reason: check.reason };
    }
    const reason = `demoted at its recheck on ${clock.now().toISOString()}: ${check.reason}`;
    const demoted = await store.demoteToken({ chainId: chain.chainId, token, chainRun: chain.manifest.deployBlockHash, reason, at: clock.now() });
    if (demoted) logger.warn({ chainId: chain.chainId, token, reason }, "promoted token demoted: it no longer passes the promotion checks");
    return { chainId: chain.chainId, token, kept: false, demoted, reason: demoted ? reason : "the operator decided on this token meanwhile" };
  }
}
