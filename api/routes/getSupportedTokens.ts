import { z } from "zod";
import { requestedChain } from "../chains/chainRegistry";
import { perIpRateLimit } from "../middleware/perIpRateLimit";
import { parseRequest } from "../requestValidation";
import { chainIdQueryField } from "../schemas/queryFields";
import { sendCachedJson } from "../services/cachedJsonResponse";
import { encodedSnapshot } from "../tokens/encodedSnapshot";
import type { Route } from "./route";

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
      sendCachedJson(req, res, encoded);
    },
  ],
};

/** The request schema, for the OpenAPI document (api/openapi). */
export { querySchema as supportedTokensQuerySchema };
