import type { Logger } from "pino";
import type { Address, PublicClient } from "viem";
import { NATIVE_TOKEN_LOWERCASE } from "../../sdk";
import { ApiError } from "../../sdk/server/apiError";
import type { ChainSupportedTokens } from "./chainSupportedTokens";
import { isTaxed, measureTransferTax, NO_TRANSFER_TAX, type TransferTax } from "./transferTax";

/** Tokens measured at once by `measureAll`, so a large manifest does not flood the node. */
const MEASURE_CONCURRENCY = 8;

/**
 * What a token whose transfers cannot be simulated through any of its pools is taken to tax: all of
 * it. It is then refused on both sides of a quote and never routed through, which is what an
 * untradeable token deserves; the log says why.
 */
export const UNMEASURABLE_TRANSFER_TAX: TransferTax = Object.freeze({ buyTaxBps: 10_000, sellTaxBps: 10_000, transferTaxBps: 10_000 });

/**
 * The transfer taxes of one chain's supported tokens. A promoted or enabled token's were measured
 * when it was admitted and are stored with its decision; manifest tokens (and decisions stored
 * before taxes were measured) are measured by this process: all of them in the background at start
 * (`measureAll`), and any still unknown when a quote needs it (`of`). Measurements are kept for the
 * life of the process; the native asset has none.
 */
export class TokenTaxes {
  readonly #client: PublicClient;
  readonly #tokens: ChainSupportedTokens;
  readonly #logger: Logger;
  /** Lowercase address → tax measured by this process. */
  readonly #measured = new Map<Address, TransferTax>();
  readonly #inflight = new Map<Address, Promise<TransferTax>>();

  constructor(client: PublicClient, tokens: ChainSupportedTokens, logger: Logger) {
    this.#client = client;
    this.#tokens = tokens;
    this.#logger = logger;
  }

  /** The tax of a token if it is known without asking the chain. */
  known(token: Address): TransferTax | undefined {
    const address = token.toLowerCase() as Address;
    if (address === NATIVE_TOKEN_LOWERCASE) return NO_TRANSFER_TAX;
    return this.#tokens.entry(address)?.tax ?? this.#measured.get(address);
  }

  /** Known tokens that tax any kind of transfer: routes must not pass through them. */
  knownTaxed(): ReadonlySet<Address> {
    const taxed = new Set<Address>();
    for (const entry of this.#tokens.entries()) {
      const tax = entry.tax ?? this.#measured.get(entry.address);
      if (tax !== undefined && isTaxed(tax)) taxed.add(entry.address);
    }
    return taxed;
  }

  /**
   * The tax of a supported token, measured now if it is not known. A chain that does not answer is
   * a 503 (`chain_unavailable`): nothing is known about the token then, and nothing is kept.
   */
  async of(token: Address): Promise<TransferTax> {
    const known = this.known(token);
    if (known !== undefined) return known;
    const address = token.toLowerCase() as Address;
    let pending = this.#inflight.get(address);
    if (pending === undefined) {
      pending = this.#measure(address).finally(() => this.#inflight.delete(address));
      this.#inflight.set(address, pending);
    }
    return pending;
  }

  /** Measures every supported token whose tax is not known yet; returns how many could not be measured now. */
  async measureAll(): Promise<number> {
    const unknown = this.#tokens.entries().filter((entry) => this.known(entry.address) === undefined);
    let failed = 0;
    for (let start = 0; start < unknown.length; start += MEASURE_CONCURRENCY) {
      const outcomes = await Promise.allSettled(unknown.slice(start, start + MEASURE_CONCURRENCY).map((entry) => this.of(entry.address)));
      failed += outcomes.filter((outcome) => outcome.status === "rejected").length;
    }
    return failed;
  }

  /** Through each pool of the token in turn until one gives an answer; see UNMEASURABLE_TRANSFER_TAX. */
  async #measure(token: Address): Promise<TransferTax> {
    const pools = this.#tokens.pools().filter((pool) => pool.token0.toLowerCase() === token || pool.token1.toLowerCase() === token);
    // A token without a pool is never routed: there is no transfer through a pool to tax.
    let tax: TransferTax = NO_TRANSFER_TAX;
    const reasons: string[] = [];
    for (const pool of pools) {
      const measured = await measureTransferTax(this.#client, token, pool.address);
      if (measured.ok) {
        tax = measured.tax;
        reasons.length = 0;
        break;
      }
      // A pool with no code carries no transfer (routing leaves it out too): the next one is tried.
      if (measured.absent === true) continue;
      if (measured.unreadable) {
        this.#logger.warn({ token, pool: pool.address, reason: measured.reason }, "transfer tax could not be measured: the chain did not answer");
        throw new ApiError("chain_unavailable", `the transfer tax of token ${token} could not be measured right now (the chain did not answer); retry shortly`);
      }
      reasons.push(measured.reason);
    }
    if (reasons.length > 0) {
      tax = UNMEASURABLE_TRANSFER_TAX;
      this.#logger.warn({ token, reasons }, "token's transfers could not be simulated through any of its pools; it is treated as taxing everything");
    } else if (isTaxed(tax)) {
      this.#logger.info({ token, tax }, "token taxes its transfers");
    }
    this.#measured.set(token, tax);
    return tax;
  }
}
