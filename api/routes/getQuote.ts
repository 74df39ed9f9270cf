import type { RequestHandler } from "express";
import type { Address } from "viem";
import { NATIVE_TOKEN_LOWERCASE } from "../../sdk";
import { ApiError } from "../../sdk/server/apiError";
import { ApiKeyScope } from "../apiKeyScopes";
import type { ApiDependencies } from "../apiDependencies";
import type { ChainContext } from "../chains/chainContext";
import { requestedChain } from "../chains/chainRegistry";
import { apiKeyAuth, principalOf, requireScope, type ApiKeyPrincipal } from "../middleware/apiKeyAuth";
import { BlockCache } from "../quote/market/blockCache";
import { ChainHead } from "../../sdk/chain/chainHead";
import { NetworkFeeModel } from "../../sdk/chain/networkFeeModel";
import { GaslessStandingCheck } from "../gasless/gaslessStanding";
import { RelayerClient } from "../gasless/relayerClient";
import { buildQuote, type Quote, type QuoteEngine, type QuoteKind } from "../quote/response/buildQuote";
import { NonceRanges } from "../quote/nonces/nonceRanges";
import { PermitNonceAllocator } from "../quote/nonces/permitNonces";
import { marketTrackerOf } from "../quote/market/chainMarket";
import { QuoteBuckets } from "../quote/admission/quoteBuckets";
import { checkExcludedSources, parseQuoteQuery, quoteQueryFor, type QuoteRequest } from "../quote/admission/quoteQuery";
import { venueNamesOf } from "../quote/venues/chainVenues";
import { quoteRecordOf } from "../quote/response/quoteRecord";
import { priceResponse, quoteResponse } from "../quote/response/quoteResponse";
import { admitTaxedTokens } from "../quote/admission/taxedTokenAdmission";
import type { SupportedToken } from "../tokens/supportedTokens";
import { isHexAddress } from "../services/checksummedAddress";
import { classifyDatabaseError } from "../store/databaseUnavailable";
import type { Route } from "./route";

/**
 * Admission: both tokens must be in the chain's in-memory supported set. Each miss that names an
 * address is recorded as demand (a symbol cannot be promoted), both before rejecting, so a request
 * with two unsupported tokens reports both; the rejection names the first. No chain I/O happens and
 * the quote:read bucket is untouched.
 */
function admit(chain: ChainContext, query: QuoteRequest, integratorId: number, at: Date): { sellToken: SupportedToken; buyToken: SupportedToken } {
  const sellToken = chain.tokens.resolve(query.sellToken);
  const buyToken = chain.tokens.resolve(query.buyToken);
  const misses: ["sell_token" | "buy_token", string][] = [];
  if (sellToken === undefined) misses.push(["sell_token", query.sellToken]);
  if (buyToken === undefined) misses.push(["buy_token", query.buyToken]);
  for (const [, value] of misses) {
    if (isHexAddress(value)) chain.demand.record({ chainId: chain.chainId, token: value.toLowerCase() as Address, integratorId, at });
  }
  const [first] = misses;
  if (first !== undefined || sellToken === undefined || buyToken === undefined) {
    const [parameter, value] = first ?? ["sell_token", query.sellToken];
    throw new ApiError("unsupported_token", `${parameter} ${value} is not supported on chain ${chain.chainId}; see GET /tokens/supported-tokens?chain_id=${chain.chainId}`);
  }
  return { sellToken, buyToken };
}

/** The platform takes no fee of its own: `platform_fee` is the integrator's `fee_bps`, paid to the key's recipient. */
const PLATFORM_OWN_FEE_BPS = 0;

/** A fee parameter (even fee_bps=0) needs the key's swap:integrator scope; checked right after parsing. */
function checkFeeScope(query: QuoteRequest, principal: ApiKeyPrincipal): void {
  const [parameter] = query.feeParameters;
  if (parameter !== undefined && !principal.scopes.includes(ApiKeyScope.SwapIntegrator)) {
    throw new ApiError("missing_scope", `${parameter} needs an API key with scope ${ApiKeyScope.SwapIntegrator}; this key lacks it`);
  }
}

/** Checks that need the key and the resolved tokens but no chain state; they run before quote:read. */
function checkRequest(query: Omit<QuoteRequest, "amount" | "amountSide">, principal: ApiKeyPrincipal, sellToken: SupportedToken, buyToken: SupportedToken, maxCombinedFeeBps: number): void {
  if (sellToken.address === buyToken.address) {
    throw new ApiError("same_token", `sell_token and buy_token are the same token (${sellToken.symbol})`);
  }
  if (query.feeBps > principal.integratorMaxFeeBps) {
    throw new ApiError("invalid_request", `${query.feeBpsName} ${query.feeBps} exceeds this key's integrator_max_fee_bps of ${principal.integratorMaxFeeBps}`);
  }
  if (PLATFORM_OWN_FEE_BPS + query.feeBps > maxCombinedFeeBps) {
    throw new ApiError(
      "fee_bps_out_of_range",
      `${query.feeBpsName} ${query.feeBps} plus the platform fee (${PLATFORM_OWN_FEE_BPS} bps) exceeds the combined fee cap of ${maxCombinedFeeBps} bps`,
    );
  }
  if (sellToken.address === NATIVE_TOKEN_LOWERCASE && query.gasless) {
    throw new ApiError("invalid_request", "permit2_owner (a gasless quote) cannot sell native ETH (sell_token): only ERC20s can be pulled by signature");
  }
  if (sellToken.address === NATIVE_TOKEN_LOWERCASE && query.settlement === "permit2") {
    throw new ApiError("invalid_request", "settlement permit2 cannot sell native ETH (sell_token); native sells use allowance settlement");
  }
}

/** What /quote and /price share per app: the probe and quote buckets, the engines (so a price sees the quotes' nonce reservations). */
type Quoting = Readonly<{ buckets: QuoteBuckets; engineFor: (chain: ChainContext) => QuoteEngine; standing: GaslessStandingCheck | undefined }>;

const quotings = new WeakMap<ApiDependencies, Quoting>();

function quotingOf(deps: ApiDependencies): Quoting {
  const known = quotings.get(deps);
  if (known !== undefined) return known;
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
  const quoting = { buckets, engineFor, standing };
  quotings.set(deps, quoting);
  return quoting;
}

/**
 * GET /quote (`firm`) and GET /price (`indicative`): the same admission, the same probe bucket, then
 * each its own bucket (quote:read or price:read) and the same building; a firm quote is recorded
 * and answered in full, a price is neither recorded nor given a tx or permit2.
 */
function quotingHandler(deps: ApiDependencies, kind: QuoteKind): RequestHandler {
  const { buckets, engineFor, standing } = quotingOf(deps);
  return async (req, res) => {
    const principal = principalOf(res);
    await buckets.consume("quote_probe", principal, res);
    const request = parseQuoteQuery(req.query);
    checkFeeScope(request, principal);
    const chain = requestedChain(deps.chains, request.chainId);
    checkExcludedSources(request, venueNamesOf(chain.manifest));
    const { sellToken, buyToken } = admit(chain, request, principal.integratorId, deps.clock.now());
    const query = quoteQueryFor(request, sellToken, buyToken);
    checkRequest(query, principal, sellToken, buyToken, deps.config.maxCombinedFeeBps);
    // Taxed tokens are refused (400 token_taxed) before the bucket and any routing.
    const taxes = await admitTaxedTokens(chain, query, sellToken, buyToken);
    await buckets.consume(kind === "firm" ? "quote:read" : "price:read", principal, res);
    // A taker or integrator whose relayed swaps reverted (gas the operator paid, no fee) is refused first.
    if (query.gasless) await standing?.assertAllowed(query.taker, principal.integratorId);
    let quote: Quote;
    try {
      quote = await buildQuote(engineFor(chain), { gasless: deps.config.gasless, chain, principal, query, sellToken, buyToken, taxes }, kind);
    } catch (error) {
      if (error instanceof ApiError) throw error;
      // Everything else on this path is a chain read that failed: the node, not the request.
      deps.logger.error({ err: error, chainId: chain.chainId }, "quote failed on a chain read");
      throw new ApiError("chain_unavailable", `chain ${chain.chainId} could not be read right now; retry shortly`);
    }
    if (kind === "indicative") {
      res.json(priceResponse(quote));
      return;
    }
    // A gasless quote is answered only once its record is committed (its submission needs it).
    await deps.store.saveQuote(quoteRecordOf(quote, principal, deps.clock.now())).catch((cause: unknown) => {
      const classified = classifyDatabaseError(cause);
      if (classified !== cause) throw classified;
      throw new ApiError("quote_unavailable", "the quote could not be recorded right now (the API's database did not answer); retry shortly", { cause });
    });
    deps.metrics?.quotes.inc({ settlement: quote.settlement, outcome: "served" });
    res.json(quoteResponse(quote));
  };
}

/** GET /quote: auth (quote:read), quote_probe, validation, admission, quote:read, then routing. */
export const getQuoteRoute: Route = {
  method: "get",
  path: "/quote",
  handlers: (deps) => [apiKeyAuth(deps), requireScope("quote:read"), quotingHandler(deps, "firm")],
};

/** GET /price: an indicative quote; auth (quote:read), quote_probe, validation, admission, price:read, then routing. */
export const getPriceRoute: Route = {
  method: "get",
  path: "/price",
  handlers: (deps) => [apiKeyAuth(deps), requireScope("quote:read"), quotingHandler(deps, "indicative")],
};
