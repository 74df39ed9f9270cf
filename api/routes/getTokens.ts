import { requestedChain } from "../chains/chainRegistry";
import { perIpRateLimit } from "../middleware/perIpRateLimit";
import { parseRequest } from "../requestValidation";
import { sendCachedJson } from "../services/cachedJsonResponse";
import { encodedTokenList } from "../tokens/tokenList";
import type { Route } from "./route";
import { supportedTokensQuerySchema } from "./getSupportedTokens";


/**
 * GET /tokens?chain_id=<id>: every supported token with its symbol, name, decimals, source and type,
 * for the live service's integrators and tools. Public, with its own per-IP bucket (`tokens`) at the
 * snapshot's rate; the same query rules, caching and ETag/304 as the snapshot, which is unchanged.
 */
export const getTokensRoute: Route = {
  method: "get",
  path: "/tokens",
  handlers: (deps) => [
    perIpRateLimit("tokens", deps.config.snapshotRateLimitPerMinute, deps.rateLimiters, (bucket) => deps.metrics?.rateLimited.inc({ bucket })),
    (req, res) => {
      const query = parseRequest(supportedTokensQuerySchema, req.query, "query");
      const chain = requestedChain(deps.chains, query.chain_id);
      const encoded = encodedTokenList(chain.chainId, chain.tokens.entries());
      sendCachedJson(req, res, encoded);
    },
  ],
};
