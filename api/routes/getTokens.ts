import { requestedChain } from "../chains/chainRegistry";
import { perIpRateLimit } from "../middleware/perIpRateLimit";
import { parseRequest } from "../requestValidation";
import { ifNoneMatchMatches } from "../services/entityTagMatch";
import { encodedTokenList } from "../tokens/tokenList";
import type { Route } from "./route";
import { supportedTokensQuerySchema } from "./getSupportedTokens";

/** As the snapshot: clients poll every 15 to 60 s, and a cache may serve a stale copy while it revalidates. */
const CACHE_CONTROL = "public, max-age=15, stale-while-revalidate=60";

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
      res.set({ ETag: encoded.etag, "Cache-Control": CACHE_CONTROL, Vary: "Accept-Encoding" });
      if (ifNoneMatchMatches(req.get("if-none-match"), encoded.etag)) {
        res.status(304).end();
        return;
      }
      const gzip = req.acceptsEncodings("gzip", "identity") === "gzip";
      const bytes = gzip ? encoded.gzip : encoded.json;
      res.set({ "Content-Type": "application/json; charset=utf-8", "Content-Length": String(bytes.length) });
      if (gzip) res.set("Content-Encoding", "gzip");
      res.status(200).end(bytes);
    },
  ],
};
