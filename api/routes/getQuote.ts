import type { RequestHandler } from "express";
import { isAddress, type Address } from "viem";
import { ApiError } from "../apiError";
import type { ApiDependencies } from "../apiDependencies";
import type { ChainContext } from "../chains/chainContext";
import { apiKeyAuth, principalOf, requireScope } from "../middleware/apiKeyAuth";
import { BlockCache } from "../quote/blockCache";
import { LatestBlockReader } from "../quote/latestBlock";
import { buildQuote, type QuoteEngine } from "../quote/buildQuote";
import { PermitNonceAllocator } from "../quote/permitNonces";
import { QuoteBuckets } from "../quote/quoteBuckets";
import { parseQuoteQuery } from "../quote/quoteQuery";
import { quoteRecordOf } from "../quote/quoteRecord";
import { quoteResponse } from "../quote/quoteResponse";
import type { SupportedToken } from "../tokens/supportedTokens";
import type { Route } from "./route";

/**
 * Admission: both tokens must be in the chain's in-memory supported set. A miss is recorded as
 * demand (when the value is an address: a symbol cannot be promoted) and rejected at once, with no
 * chain I/O and before the quote:read bucket.
 */
function admit(chain: ChainContext, parameter: "sell_token" | "buy_token", value: string, integratorId: number, at: Date): SupportedToken {
  const token = chain.tokens.resolve(value);
  if (token !== undefined) return token;
  if (isAddress(value, { strict: false })) {
    chain.demand.record({ chainId: chain.chainId, token: value.toLowerCase() as Address, integratorId, at });
  }
  throw new ApiError(400, "unsupported_token", `${parameter} ${value} is not supported on chain ${chain.chainId}; see GET /tokens/supported-tokens?chain_id=${chain.chainId}`);
}

function quoteHandler(deps: ApiDependencies): RequestHandler {
  const buckets = new QuoteBuckets(deps.config.quoteProbeMultiplier);
  const nonces = new PermitNonceAllocator();
  // Block caches and router→holder lookups are per chain; nonce reservations are keyed by chain already.
  const engines = new Map<number, QuoteEngine>();
  const engineFor = (chain: ChainContext): QuoteEngine => {
    let engine = engines.get(chain.chainId);
    if (engine === undefined) {
      engine = { heads: new LatestBlockReader(chain.client), blockCache: new BlockCache(), nonces, holders: new Map(), ttlSeconds: deps.config.quoteTtlSeconds };
      engines.set(chain.chainId, engine);
    }
    return engine;
  };
  return async (req, res) => {
    const principal = principalOf(res);
    await buckets.consume("quote_probe", principal, res);
    const query = parseQuoteQuery(req.query);
    const chainId = query.chainId ?? deps.chains.defaultChainId;
    const chain = deps.chains.get(chainId);
    if (chain === undefined) throw new ApiError(400, "unsupported_chain", `chain_id ${chainId} is not served by this API`);
    const now = deps.clock.now();
    const sellToken = admit(chain, "sell_token", query.sellToken, principal.integratorId, now);
    const buyToken = admit(chain, "buy_token", query.buyToken, principal.integratorId, now);
    if (sellToken.address === buyToken.address) {
      throw new ApiError(400, "invalid_request", `sell_token and buy_token are the same token (${sellToken.symbol})`);
    }
    await buckets.consume("quote:read", principal, res);
    const quote = await buildQuote(engineFor(chain), { chain, principal, query, sellToken, buyToken });
    await deps.store.saveQuote(quoteRecordOf(quote, principal, deps.clock.now()));
    res.json(quoteResponse(quote));
  };
}

/** GET /quote: auth (quote:read), quote_probe, validation, admission, quote:read, then routing. */
export const getQuoteRoute: Route = {
  method: "get",
  path: "/quote",
  handlers: (deps) => [apiKeyAuth(deps), requireScope("quote:read"), quoteHandler(deps)],
};
