import type { Address } from "viem";
import { requestedChain } from "../chains/chainRegistry";
import { perIpRateLimit } from "../middleware/perIpRateLimit";
import { parseRequest } from "../requestValidation";
import { sendCachedJson } from "../services/cachedJsonResponse";
import { encodedSourceList } from "../venues/sourceList";
import type { Route } from "./route";
import { supportedTokensQuerySchema } from "./getSupportedTokens";

/**
 * GET /sources?chain_id=<id>: the chain's liquidity venues (0x's `sources` names, and each venue's
 * type, pool count and fee tiers). Public, with its own per-IP bucket (`sources`) at the snapshot's
 * rate, and the token lists' query rules, caching and ETag/304.
 */
export const getSourcesRoute: Route = {
  method: "get",
  path: "/sources",
  handlers: (deps) => [
    perIpRateLimit("sources", deps.config.snapshotRateLimitPerMinute, deps.rateLimiters, (bucket) => deps.metrics?.rateLimited.inc({ bucket })),
    (req, res) => {
      const query = parseRequest(supportedTokensQuerySchema, req.query, "query");
      const chain = requestedChain(deps.chains, query.chain_id);
      const v4 = { deployment: chain.manifest.uniswapV4, isSupported: (token: Address) => chain.tokens.resolve(token) !== undefined };
      sendCachedJson(req, res, encodedSourceList(chain.chainId, chain.manifest.venues, chain.tokens.venuePools(), chain.manifest.propAmms, v4));
    },
  ],
};
