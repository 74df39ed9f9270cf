import { z } from "zod";
import { requestedChain } from "../chains/chainRegistry";
import { perIpRateLimit } from "../middleware/perIpRateLimit";
import { parseRequest } from "../requestValidation";
import { chainIdQueryField } from "../schemas/queryFields";
import { ifNoneMatchMatches } from "../services/entityTagMatch";
import { encodedSnapshot } from "../tokens/encodedSnapshot";
import type { Route } from "./route";

/** Spec, "Limits": clients poll every 15 to 60 s; a cache may serve a stale copy while it revalidates. */
const CACHE_CONTROL = "public, max-age=15, stale-while-revalidate=60";

// Other query parameters (cache busters) are ignored, but like every endpoint this one refuses a
// repeated parameter (express gives an array) and a nested one (`chain_id[a]=1`), rather than
// silently reading something else than the client meant.
const querySchema = z
  .object({ chain_id: chainIdQueryField.optional() })
  .catchall(z.string({ error: "must be given once" }))
  .superRefine((query, context) => {
    for (const name of Object.keys(query)) {
      if (/[[\]]/.test(name)) context.addIssue({ code: "custom", path: [name], message: "is a nested parameter; send plain name=value parameters" });
    }
  });

/**
 * GET /tokens/supported-tokens?chain_id=<id>: the chain's supported-token snapshot. Public, limited
 * per client IP. `chain_id` is optional (the default chain). The body of each snapshot version is
 * serialised and gzipped once and then served from memory; `ETag` is weak (`W/"<snapshot_id>"`)
 * and changes exactly when the list does, and a matching `If-None-Match` gets 304 with no body.
 */
export const getSupportedTokens: Route = {
  method: "get",
  path: "/tokens/supported-tokens",
  handlers: (deps) => [
    perIpRateLimit("snapshot", deps.config.snapshotRateLimitPerMinute, deps.rateLimiters, (bucket) => deps.metrics?.rateLimited.inc({ bucket })),
    (req, res) => {
      const query = parseRequest(querySchema, req.query, "query");
      const chain = requestedChain(deps.chains, query.chain_id);
      const encoded = encodedSnapshot(chain.tokens.snapshot());
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

/** The request schema, for the OpenAPI document (api/openapi). */
export { querySchema as supportedTokensQuerySchema };
