/**
 * Every error code the services answer with, and the one HTTP status it is answered with. A response
 * body is `{ error, code }`, where `error` is a human message naming the field or value at fault; the
 * status comes from here, so a code cannot be answered with two statuses. The comment above a group
 * says what its codes have in common (`npm run docs:reference` prints it beside each code).
 */
export const API_ERROR_STATUS = {
  // the request itself is wrong
  invalid_json: 400,
  invalid_request: 400,
  unsupported_chain: 400,
  unsupported_token: 400,
  same_token: 400,
  token_is_propamm_pair: 400,
  fee_recipient_not_owner: 400,
  fee_bps_out_of_range: 400,
  payload_hash_mismatch: 400,
  signature_unsupported: 400,
  // a token whose transfers are taxed, where the quote cannot account for the tax
  token_taxed: 400,
  // well-formed, but nothing can be offered for it
  no_route: 400,
  // a gasless submission its quote does not allow
  quote_not_gasless: 400,
  quote_expired: 400,
  signature_mismatch: 400,
  // an approval_signature the quote did not offer, or not the taker's over its approval
  approval_not_offered: 400,
  approval_signature_mismatch: 400,
  // a gasless quote selling a token the relayer does not take its fee in
  fee_token_not_accepted: 400,
  // a webhook URL the relayer must not call (pushed status)
  webhook_url_not_https: 400,
  webhook_url_internal: 400,
  // the signature, nonce or API key does not authorize the request
  nonce_unknown: 401,
  nonce_expired: 401,
  nonce_action_mismatch: 401,
  nonce_wallet_mismatch: 401,
  nonce_payload_mismatch: 401,
  nonce_field_mismatch: 401,
  invalid_signature: 401,
  api_key_missing: 401,
  api_key_invalid: 401,
  api_key_revoked: 401,
  // authenticated, but not allowed
  integrator_not_active: 403,
  not_integrator_owner: 403,
  missing_scope: 403,
  // the unpaid-gas ledger's budget of the taker or of the integrator is spent (body: budget, frees_at)
  gasless_taker_gas_budget_spent: 403,
  gasless_integrator_gas_budget_spent: 403,
  // nothing with that id
  not_found: 404,
  integrator_not_found: 404,
  api_key_not_found: 404,
  quote_not_found: 404,
  relay_not_found: 404,
  // conflicts with the current state
  nonce_used: 409,
  slug_taken: 409,
  api_key_already_revoked: 409,
  permit2_nonce_used: 409,
  quote_already_submitted: 409,
  idempotency_key_conflict: 409,
  relay_final: 409,
  // the profile has MAX_API_KEYS_PER_INTEGRATOR keys that are not revoked (the body's `limit`)
  api_key_limit_reached: 409,
  // the request body is too large, or not UTF-8 JSON
  payload_too_large: 413,
  unsupported_media_type: 415,
  // the signed gasless trade would revert on chain now (the body says why)
  simulation_failed: 422,
  // a rate-limit bucket is empty (the body names it in `bucket`; Retry-After says when to retry)
  rate_limited: 429,
  // the key already has SSE_MAX_STREAMS_PER_KEY streams of GET /gasless/events open here
  too_many_streams: 429,
  // the integrator (all its keys) already has SSE_MAX_STREAMS_PER_INTEGRATOR streams open here
  too_many_integrator_streams: 429,
  // ours, never the client's input
  internal_error: 500,
  // this API instance serves SSE_MAX_STREAMS streams already (another instance may have room)
  stream_capacity_reached: 503,
  // a dependency of ours is down or paused: retry later
  signature_verification_unavailable: 503,
  feature_paused: 503,
  feature_unavailable: 503,
  chain_unavailable: 503,
  gasless_unavailable: 503,
  relayer_unavailable: 503,
  quote_unavailable: 503,
  database_unavailable: 503,
  // this instance cannot serve right now (GET /ready; the body lists the checks that failed)
  not_ready: 503,
} as const satisfies Record<string, 400 | 401 | 403 | 404 | 409 | 413 | 415 | 422 | 429 | 500 | 503>;

/** The machine codes of the services' errors (the keys of `API_ERROR_STATUS`). */
export type ApiErrorCode = keyof typeof API_ERROR_STATUS;

/** Scalar values an error body may carry besides `error` and `code`. */
export type ApiErrorBodyValue = string | number | boolean | null;

/**
 * What an error adds to its response: more body fields (e.g. `bucket` of a 429) and headers (e.g.
 * `Retry-After`). `error` and `code` always come from the error itself and cannot be overridden.
 */
export type ApiErrorExtras = Readonly<{
  body?: Readonly<Record<string, ApiErrorBodyValue>>;
  headers?: Readonly<Record<string, string>>;
  /** What failed underneath a 5xx (a database error, say): logged for the operator, never sent. */
  cause?: unknown;
}>;

/** An error the client should see as is, answered with its code's status; anything else becomes a 500 without details. */
export class ApiError extends Error {
  override readonly name = "ApiError";
  readonly status: number;
  readonly code: ApiErrorCode;
  readonly extras: ApiErrorExtras;

  constructor(code: ApiErrorCode, message: string, extras: ApiErrorExtras = {}) {
    // An ApiError is an answer to the client, never logged with its stack; capturing one costs more
    // than the rest of a rejected request (unsupported tokens are rejected on the hot path).
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.status = API_ERROR_STATUS[code];
    this.code = code;
    this.extras = extras;
  }
}

export type ApiErrorBody = { error: string; code: ApiErrorCode; [field: string]: ApiErrorBodyValue };

/** The status and body of an error answered without throwing (a 404 for an unknown route, say). */
export function errorResponse(code: ApiErrorCode, message: string): { status: number; body: ApiErrorBody } {
  return { status: API_ERROR_STATUS[code], body: { error: message, code } };
}
