import { z } from "zod";
import {
  applicationJsonSchema,
  createdApiKeyJsonSchema,
  errorJsonSchema,
  healthJsonSchema,
  integratorProfilesJsonSchema,
  nonceJsonSchema,
  priceJsonSchema,
  quoteJsonSchema,
  relayCancellationJsonSchema,
  relayJsonSchema,
  revokedApiKeyJsonSchema,
  snapshotJsonSchema,
  sourcesJsonSchema,
  tokenListJsonSchema,
} from "../../sdk";
import { quoteQuerySchema } from "../quote/admission/quoteQuery";
import { gaslessStatusParamsSchema } from "../routes/getGaslessStatus";
import { gaslessCancelParamsSchema } from "../routes/postGaslessCancel";
import { supportedTokensQuerySchema } from "../routes/getSupportedTokens";
import { apiKeyBodySchema } from "../routes/postApiKey";
import { applicationBodySchema } from "../routes/postApplication";
import { gaslessSubmitBodySchema } from "../routes/postGaslessSubmit";
import { meBodySchema } from "../routes/postMe";
import { nonceBodySchema } from "../routes/postNonce";
import { revokeApiKeyBodySchema, revokeApiKeyParamsSchema } from "../routes/postRevokeApiKey";
import { integratorWebhookBodySchema } from "../routes/postIntegratorWebhook";
import { gaslessEventsQuerySchema } from "../routes/getGaslessEvents";
import { webhookDeliveriesQuerySchema } from "../routes/getWebhookDeliveries";
import { relayStatusEventJsonSchema, webhookDeliveriesJsonSchema, webhookRegistrationJsonSchema } from "../../sdk/wire/pushedStatusJson";
import { jsonSchemaOf, parametersOf, type JsonSchema } from "./jsonSchemaOf";

/**
 * The API's OpenAPI 3.1 document, built from the zod schemas that validate requests (exported by the
 * routes) and the wire schemas of responses in sdk/wire, which the client parses with: no second copy.
 */

const responseSchemas = {
  Error: errorJsonSchema,
  Health: healthJsonSchema,
  Nonce: nonceJsonSchema,
  Application: applicationJsonSchema,
  CreatedApiKey: createdApiKeyJsonSchema,
  IntegratorProfiles: integratorProfilesJsonSchema,
  RevokedApiKey: revokedApiKeyJsonSchema,
  SupportedTokenSnapshot: snapshotJsonSchema,
  TokenList: tokenListJsonSchema,
  Sources: sourcesJsonSchema,
  Quote: quoteJsonSchema,
  Price: priceJsonSchema,
  Relay: relayJsonSchema,
  RelayCancellation: relayCancellationJsonSchema,
  RelayStatusEvent: relayStatusEventJsonSchema,
  WebhookRegistration: webhookRegistrationJsonSchema,
  WebhookDeliveries: webhookDeliveriesJsonSchema,
  Ready: z.object({
    status: z.enum(["ready", "not_ready"]),
    error: z.string().optional(),
    code: z.string().optional(),
    gasless: z
      .enum(["available", "unavailable"])
      .optional()
      .describe("With gasless trading configured: whether a relayer is ready (checks.relayer says why not); quotes do not depend on it"),
    checks: z.record(z.string(), z.string()).describe('Each dependency checked (database, chain, and relayer when gasless is configured): "ok", or why it failed'),
  }),
} satisfies Record<string, z.ZodType>;
type SchemaName = keyof typeof responseSchemas;

const ref = (name: SchemaName) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: JsonSchema, example?: unknown) => ({ "application/json": { schema, ...(example === undefined ? {} : { example }) } });

const errorExamples: Record<number, { error: string; code: string; bucket?: string }> = {
  400: { error: "buy_token 0x1111111111111111111111111111111111111111 is not supported on chain 4663; see GET /tokens/supported-tokens?chain_id=4663", code: "unsupported_token" },
  401: { error: "Authorization header is missing; send Authorization: Bearer <api_key>", code: "api_key_missing" },
  403: { error: "this API key lacks scope quote:read", code: "missing_scope" },
  404: { error: "no relay 00000000-0000-4000-8000-000000000000 for this integrator", code: "relay_not_found" },
  409: { error: "nonce was already used", code: "nonce_used" },
  429: { error: "rate limit exceeded for bucket quote:read; retry after 12 s", code: "rate_limited", bucket: "quote:read" },
  503: { error: "chain 4663 could not be read right now; retry shortly", code: "chain_unavailable" },
};
const errorDescriptions: Record<number, string> = {
  400: "Invalid request: the message names the parameter or field at fault",
  401: "Signature, nonce or API key rejected",
  403: "Authenticated, but not allowed",
  404: "Not found",
  409: "Conflicts with the current state",
  429: "Rate-limited: `bucket` names the empty bucket; wait `Retry-After` seconds",
  503: "A dependency is unavailable (`database_unavailable`: the API's database; `chain_unavailable`, `relayer_unavailable`, `signature_verification_unavailable`, …); retry later, after `Retry-After` seconds when sent",
};

function errors(...statuses: number[]) {
  const responses: Record<string, unknown> = {};
  for (const status of statuses) {
    responses[String(status)] = {
      description: errorDescriptions[status],
      ...(status === 429 || status === 503 ? { headers: { "Retry-After": { description: "seconds to wait (always on 429 and on 503 database_unavailable)", schema: { type: "integer" } } } } : {}),
      content: json(ref("Error"), errorExamples[status]),
    };
  }
  responses.default = { description: "Any other error (413 payload_too_large, 415 unsupported_media_type, 500 internal_error, …)", content: json(ref("Error")) };
  return responses;
}

const ok = (status: number, description: string, name: SchemaName, example?: unknown) => ({ [String(status)]: { description, content: json(ref(name), example) } });
const body = (schema: z.ZodType, example?: unknown) => ({ required: true, content: json(jsonSchemaOf(schema), example) });
const bearer = [{ apiKey: [] }];

const snapshotExample = {
  schema_version: 1,
  chain_id: 4663,
  snapshot_id: "0x6a2eaafa0e17c264c3fdf7a0963371e11009f98125aae9b47c82dd9c8c15899f",
  count: 2,
  addresses: ["0xcf7ed3acca5a467e9e704c703e8d87f634fb0fc9", "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee"],
};

const sourcesExample = {
  chain_id: 4663,
  sources: ["uniswap-v2", "uniswap-v3"],
  venues: [
    { name: "uniswap-v2", type: "uniswap-v2", pools: 9, fee_tiers: [{ fee: 3000 }] },
    { name: "uniswap-v3", type: "uniswap-v3", pools: 10, fee_tiers: [{ fee: 500, tick_spacing: 10 }, { fee: 3000, tick_spacing: 60 }, { fee: 10000, tick_spacing: 200 }] },
  ],
};

const quoteParameterDescriptions = {
  chain_id: "Chain id; default 4663",
  sell_token: "Token to sell: an address (any case) or a supported token's symbol (`ETH` is the native placeholder)",
  buy_token: "Token to buy",
  sell_amount:
    "Amount to sell (an exact-input quote): in base units, a positive integer string (default); with amount_unit=token, whole tokens with a decimal point such as 1.5, converted exactly with the token's decimals (more decimals than the token has is a 400). Send exactly one of sell_amount and buy_amount (both or neither: 400 naming them)",
  buy_amount:
    "Amount to buy exactly (an exact-output quote), in base units or, with amount_unit=token, whole tokens of the buy token. The recipient gets at least buy_amount (min_buy_amount = buy_amount) and the taker spends at most the response's max_sell_amount (sell_amount, the input the route needs at the quote's block, plus slippage_bps). A buy token that taxes transfers is refused (400 token_taxed); gasless exact output needs a wallet (not a contract) taker",
  amount_unit: "`base` (default): sell_amount or buy_amount is in base units; `token`: a decimal amount of whole tokens of that side's token",
  taker: "Wallet that sends the transaction (or signs the permit); an address",
  slippage_bps: "Slippage tolerance in basis points, 0-10000, default 100: taken off buy_amount for min_buy_amount, or for buy_amount added to sell_amount for max_sell_amount",
  recipient: "Address receiving the buy token; default taker",
  settlement: "`permit2` (default for ERC20 sells) or `allowance`",
  fee_bps: "Integrator fee in basis points, up to the key's integrator_max_fee_bps and MAX_COMBINED_FEE_BPS (default 100) with the platform fee; needs scope swap:integrator (403 otherwise)",
  permit2_owner: "Asks for a gasless quote; must equal taker",
  max_hops: "Upper bound on pools per path (1-16); our paths have at most 3",
  excluded_sources:
    "Venue names separated by commas (case-insensitive, e.g. `uniswap-v2`) whose pools the route must not use; the names are the chain's venues, as route hops' `source` shows them. An unknown name is a 400 naming excluded_sources and the name (so issues.invalidSourcesPassed stays empty)",
  slippageBps: "Alias of slippage_bps (the live service's name); two names with different values are a 400",
  swap_fee_bps: "Alias of fee_bps (the live service's name); needs scope swap:integrator",
  swapFeeBps: "Alias of fee_bps (the live service's name); needs scope swap:integrator",
  permit2Owner: "Alias of permit2_owner (the live service's name)",
  permitOwner: "Alias of permit2_owner (the live service's name)",
  settlementPreference: "Alias of settlement (the live service's name)",
  swap_fee_token: "Accepted for the live service's clients and validated (an address or symbol); the fee is always taken in the buy token (platform_fee.token). Needs scope swap:integrator",
  swap_fee_recipient: "Accepted and ignored: the fee goes to the key's integrator_fee_recipient. Needs scope swap:integrator",
};

/** The document, built once per process. */
export function buildOpenApiDocument(): Record<string, unknown> {
  // GET /quote and GET /price take the same parameters.
  const quoteParameters = parametersOf(quoteQuerySchema, "query", quoteParameterDescriptions, {
    sell_token: "USDC",
    buy_token: "WETH",
    sell_amount: "1000000000",
    taker: "0x90F79bf6EB2c4f870365E785982E1f101E93b906",
  });
  const schemas = Object.fromEntries(Object.entries(responseSchemas).map(([name, schema]) => [name, jsonSchemaOf(schema)]));
  return {
    openapi: "3.1.0",
    info: {
      title: "Token Swap Trading API",
      version: "1.0.0",
      description:
        "Integrator onboarding with wallet signatures, the supported-token snapshot, quotes with an executable transaction, and gasless submission through the relayer. Clients should use the typed client in `sdk/` (`createTradingClient`) or the `swap-api` command-line tool.",
    },
    servers: [{ url: "/", description: "this server" }],
    tags: [{ name: "onboarding" }, { name: "tokens" }, { name: "trading" }, { name: "gasless" }, { name: "service" }],
    components: {
      securitySchemes: {
        apiKey: { type: "http", scheme: "bearer", bearerFormat: "tsk_<64 hex>", description: "The API key from POST /integrators/api-keys, as `Authorization: Bearer <api_key>`" },
      },
      schemas,
    },
    paths: {
      "/health": { get: { operationId: "getHealth", tags: ["service"], summary: "Liveness", responses: { ...ok(200, "The service is up", "Health", { status: "ok" }) } } },
      "/ready": {
        get: {
          operationId: "getReady",
          tags: ["service"],
          summary: "Readiness: the database and the chain answer (and whether a relayer is ready for gasless swaps)",
          responses: {
            ...ok(200, "Ready to serve", "Ready", { status: "ready", gasless: "available", checks: { database: "ok", chain: "ok", relayer: "ok" } }),
            "503": { description: "A dependency is unreachable (`code`: not_ready); `checks` names it", content: json(ref("Ready")) },
          },
        },
      },
      "/integrators/nonce": {
        post: {
          operationId: "postNonce",
          tags: ["onboarding"],
          summary: "Issue a single-use challenge to sign",
          requestBody: body(nonceBodySchema, { wallet: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", action: "view_integrator_profile", chain_id: 4663 }),
          responses: { ...ok(200, "The message to sign exactly as returned", "Nonce"), ...errors(400, 429, 503) },
        },
      },
      "/integrators/applications": {
        post: {
          operationId: "postApplication",
          tags: ["onboarding"],
          summary: "Apply for an integrator profile (signed by the owner wallet)",
          requestBody: body(applicationBodySchema),
          responses: { ...ok(201, "The profile, `active` or `pending`", "Application"), ...errors(400, 401, 409, 503) },
        },
      },
      "/integrators/api-keys": {
        post: {
          operationId: "postApiKey",
          tags: ["onboarding"],
          summary: "Create an API key for an active profile (the secret is shown once)",
          requestBody: body(apiKeyBodySchema),
          responses: { ...ok(201, "The new key", "CreatedApiKey"), ...errors(400, 401, 403, 404, 409, 503) },
        },
      },
      "/integrators/me": {
        post: {
          operationId: "postMe",
          tags: ["onboarding"],
          summary: "The owner wallet's profiles and masked keys",
          requestBody: body(meBodySchema),
          responses: { ...ok(200, "Profiles and masked keys", "IntegratorProfiles"), ...errors(400, 401, 409, 503) },
        },
      },
      "/integrators/api-keys/{key_id}/revoke": {
        post: {
          operationId: "postRevokeApiKey",
          tags: ["onboarding"],
          summary: "Revoke an API key (signed by the owner wallet)",
          parameters: parametersOf(revokeApiKeyParamsSchema, "path", { key_id: "The key's key_id" }, { key_id: "1" }),
          requestBody: body(revokeApiKeyBodySchema),
          responses: { ...ok(200, "The key is revoked", "RevokedApiKey"), ...errors(400, 401, 403, 404, 409, 503) },
        },
      },
      "/integrators/webhook": {
        post: {
          operationId: "postIntegratorWebhook",
          tags: ["onboarding"],
          summary: "Set, rotate or clear (url null) the integrator's webhook (signed by the owner wallet, action set_integrator_webhook)",
          description:
            "payload_hash covers owner_wallet, integrator_id and url (null hashes as none). https only; plain http to a loopback host on the devnet (WEBHOOK_ALLOW_LOOPBACK_HTTP). " +
            "Each call issues a new signing secret, shown once. Every relay status change is then POSTed as a RelayStatusEvent, signed per Standard Webhooks " +
            "(webhook-id, webhook-timestamp, webhook-signature: v1,base64(HMAC-SHA256(key, id.timestamp.body))), retried with exponential backoff for 24 hours.",
          requestBody: body(integratorWebhookBodySchema),
          responses: { ...ok(200, "The webhook, with its new secret", "WebhookRegistration"), ...errors(400, 401, 403, 404, 409, 503) },
        },
      },
      "/tokens/supported-tokens": {
        get: {
          operationId: "getSupportedTokens",
          tags: ["tokens"],
          summary: "The supported-token snapshot (public; poll with If-None-Match every 15-60 s)",
          parameters: [
            ...parametersOf(supportedTokensQuerySchema, "query", { chain_id: "Chain id; default 4663" }, { chain_id: "4663" }),
            { name: "If-None-Match", in: "header", required: false, description: "The ETag of the snapshot you hold", schema: { type: "string" } },
          ],
          responses: {
            "200": {
              description: "The snapshot",
              headers: {
                ETag: { description: "Weak validator; changes exactly when the list does", schema: { type: "string" } },
                "Cache-Control": { description: "public, max-age=15, stale-while-revalidate=60", schema: { type: "string" } },
              },
              content: json(ref("SupportedTokenSnapshot"), snapshotExample),
            },
            "304": { description: "Unchanged since the ETag sent in If-None-Match; no body" },
            ...errors(400, 429),
          },
        },
      },
      "/tokens": {
        get: {
          operationId: "getTokens",
          tags: ["tokens"],
          summary: "Every supported token with symbol, name, decimals, source and type (public; same caching as the snapshot)",
          parameters: [
            ...parametersOf(supportedTokensQuerySchema, "query", { chain_id: "Chain id; default 4663" }, { chain_id: "4663" }),
            { name: "If-None-Match", in: "header", required: false, description: "The ETag of the list you hold", schema: { type: "string" } },
          ],
          responses: {
            "200": {
              description: "The token list",
              headers: {
                ETag: { description: "Weak validator; changes exactly when the list does", schema: { type: "string" } },
                "Cache-Control": { description: "public, max-age=15, stale-while-revalidate=60", schema: { type: "string" } },
              },
              content: json(ref("TokenList")),
            },
            "304": { description: "Unchanged since the ETag sent in If-None-Match; no body" },
            ...errors(400, 429),
          },
        },
      },
      "/sources": {
        get: {
          operationId: "getSources",
          tags: ["tokens"],
          summary: "The chain's liquidity sources: venue names (as 0x's GET /sources), and each venue's type, pool count and fee tiers (public; same caching as the snapshot)",
          parameters: [
            ...parametersOf(supportedTokensQuerySchema, "query", { chain_id: "Chain id; default 4663" }, { chain_id: "4663" }),
            { name: "If-None-Match", in: "header", required: false, description: "The ETag of the list you hold", schema: { type: "string" } },
          ],
          responses: {
            "200": {
              description: "The venues",
              headers: {
                ETag: { description: "Weak validator; changes exactly when the list does", schema: { type: "string" } },
                "Cache-Control": { description: "public, max-age=15, stale-while-revalidate=60", schema: { type: "string" } },
              },
              content: json(ref("Sources"), sourcesExample),
            },
            "304": { description: "Unchanged since the ETag sent in If-None-Match; no body" },
            ...errors(400, 429),
          },
        },
      },
      "/quote": {
        get: {
          operationId: "getQuote",
          tags: ["trading"],
          summary: "Price a swap and return an executable transaction",
          security: bearer,
          parameters: quoteParameters,
          responses: { ...ok(200, "The quote", "Quote"), ...errors(400, 401, 403, 429, 503) },
        },
      },
      "/price": {
        get: {
          operationId: "getPrice",
          tags: ["trading"],
          summary: "An indicative price: the quote's route, amounts, fees and gas, without a transaction",
          description:
            "The parameters, admission, 400s and `quote_probe` bucket of GET /quote; then a point of the key's own `price:read` bucket (`price_rate_limit_per_minute`, PRICE_RATE_LIMIT_MULTIPLIER × its quote limit) instead of `quote:read`. No `quote_id`, `tx` or `permit2`: no Permit2 nonce is reserved and no quote is recorded, so it cannot be executed or submitted.",
          security: bearer,
          parameters: quoteParameters,
          responses: { ...ok(200, "The price", "Price"), ...errors(400, 401, 403, 429, 503) },
        },
      },
      "/gasless/submit": {
        post: {
          operationId: "postGaslessSubmit",
          tags: ["gasless"],
          summary: "Submit a signed gasless quote to the relayer (retry with the same idempotency_key)",
          security: bearer,
          requestBody: body(gaslessSubmitBodySchema, { quote_id: "7c0e2a43-8a6e-4a5e-9d51-0c6f6f4b6f6e", signature: `0x${"ab".repeat(65)}`, idempotency_key: "order-42" }),
          responses: {
            ...ok(202, "Accepted: the relay was created", "Relay"),
            ...ok(200, "The relay already created for this quote and signature or idempotency key", "Relay"),
            ...errors(400, 401, 403, 404, 409, 429, 503),
          },
        },
      },
      "/gasless/status/{relay_id}": {
        get: {
          operationId: "getGaslessStatus",
          tags: ["gasless"],
          summary: "A relay's status",
          description: "Each read takes a point of the key's `gasless:status` bucket (`status_rate_limit_per_minute`); past it, 429 with `Retry-After`.",
          security: bearer,
          parameters: parametersOf(gaslessStatusParamsSchema, "path", { relay_id: "The relay_id POST /gasless/submit returned" }),
          responses: { ...ok(200, "The relay now", "Relay"), ...errors(400, 401, 404, 429, 503) },
        },
      },
      "/gasless/cancel/{relay_id}": {
        post: {
          operationId: "postGaslessCancel",
          tags: ["gasless"],
          summary: "Cancel a relay; also returns the taker's transaction that kills the order's signature on chain",
          description:
            "Only keys of the submitting integrator (404 `relay_not_found` for any other). `outcome`: `cancelled` (never broadcast; the relay is `cancelled` and is never sent), " +
            "`cancelling` (the pending swap is replaced at its nonce by a zero-value self-transfer at bumped fees; the relay stays `submitted` until the chain decides: `cancelled`, or `confirmed` if the swap was mined first; a swap on record from a relayer that died, which no live relayer can replace, keeps it `submitted` until it fills or can no longer, past the quote's deadline at the latest), " +
            "`already_mined` (the swap's nonce is mined; the relay ends as mined). `invalidate_nonce` is Permit2's `invalidateUnorderedNonces(wordPos, mask)` for the order's nonce, for the taker's own wallet to send. " +
            "A cancel of a swap already broadcast costs the relayer a replacement transaction, charged to the integrator's gas budget (unpaid gas, rolling 24 hours; see `gas_budget` on POST /integrators/me) when mined; once that budget is spent such a cancel is refused with 403 `gasless_integrator_gas_budget_spent` (`frees_at` says when it frees up) and nothing is sent. A cancel before the broadcast is free. " +
            "A final relay: 409 `relay_final` with its `status`. Each request takes a point of the key's `gasless:cancel` bucket (the allowance of `gasless:status`, `status_rate_limit_per_minute`); past it, 429 with `Retry-After`.",
          security: bearer,
          parameters: parametersOf(gaslessCancelParamsSchema, "path", { relay_id: "The relay_id POST /gasless/submit returned" }),
          responses: { ...ok(200, "What the cancellation did, the relay now, and the taker's invalidation", "RelayCancellation"), ...errors(400, 401, 403, 404, 409, 429, 503) },
        },
      },
      "/gasless/events": {
        get: {
          operationId: "getGaslessEvents",
          tags: ["gasless"],
          summary: "Server-sent events of relay status changes (one relay, or every relay of the key's integrator)",
          description:
            "text/event-stream: each event is `event: relay.status`, `id: <sequence>` (grows along the stream) and `data: <RelayStatusEvent JSON>`. Reconnect with `Last-Event-ID` to resume after that event (within RELAY_EVENT_RETENTION_HOURS). " +
            "Without it, a relay's stream starts at the relay's first event and ends after its final status; the integrator's starts with the next new event. An idle stream gets a `: keep-alive` comment every SSE_KEEPALIVE_SECONDS. " +
            "Every stream ends after SSE_MAX_LIFETIME_SECONDS with `event: stream.end` whose `id` is where to resume (reconnect with it as Last-Event-ID: nothing is lost or repeated). " +
            "Opening a stream takes a point of the key's `gasless:status` bucket; per API instance at most SSE_MAX_STREAMS_PER_KEY streams per key (429 `too_many_streams`), SSE_MAX_STREAMS_PER_INTEGRATOR per integrator (429 `too_many_integrator_streams`) and SSE_MAX_STREAMS in all (503 `stream_capacity_reached`).",
          security: bearer,
          parameters: [
            ...parametersOf(gaslessEventsQuerySchema, "query", { relay_id: "Only this relay's events", last_event_id: "As the Last-Event-ID header, for clients that cannot set headers" }),
            { name: "Last-Event-ID", in: "header", required: false, description: "The id of the last event received: the stream resumes after it", schema: { type: "string", pattern: "^[0-9]{1,15}$" } },
          ],
          responses: {
            "200": { description: "The event stream; each event's data is a RelayStatusEvent", content: { "text/event-stream": { schema: { type: "string" } }, "application/json": { schema: ref("RelayStatusEvent") } } },
            ...errors(400, 401, 404, 429, 503),
          },
        },
      },
      "/gasless/webhook/deliveries": {
        get: {
          operationId: "getWebhookDeliveries",
          tags: ["gasless"],
          summary: "The integrator's webhook URL and its most recent deliveries (newest first)",
          description: "Takes a point of the key's `gasless:status` bucket.",
          security: bearer,
          parameters: parametersOf(webhookDeliveriesQuerySchema, "query", { limit: "How many deliveries, 1-200; default 50" }),
          responses: { ...ok(200, "Recent deliveries", "WebhookDeliveries"), ...errors(400, 401, 429, 503) },
        },
      },
      "/openapi.json": {
        get: { operationId: "getOpenApi", tags: ["service"], summary: "This document", responses: { "200": { description: "The OpenAPI 3.1 document", content: json({ type: "object" }) } } },
      },
    },
  };
}
