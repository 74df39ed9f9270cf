/**
 * Machine codes of the API's errors; each response body is `{ error, code }`, where `error` is a
 * human message naming the field or value at fault.
 */
export type ApiErrorCode =
  // 400: the request itself is wrong
  | "invalid_json"
  | "invalid_request"
  | "unsupported_chain"
  | "unsupported_token"
  | "same_token"
  | "token_is_propamm_pair"
  // 400: a token whose transfers are taxed, where the quote cannot account for the tax
  | "token_taxed"
  | "fee_recipient_not_owner"
  | "fee_bps_out_of_range"
  | "payload_hash_mismatch"
  | "signature_unsupported"
  // 401: the signature, nonce or API key does not authorize the request
  | "nonce_unknown"
  | "nonce_expired"
  | "nonce_action_mismatch"
  | "nonce_wallet_mismatch"
  | "nonce_payload_mismatch"
  | "nonce_field_mismatch"
  | "invalid_signature"
  | "api_key_missing"
  | "api_key_invalid"
  | "api_key_revoked"
  // 403: authenticated, but not allowed
  | "integrator_not_active"
  | "not_integrator_owner"
  | "missing_scope"
  // 403: the unpaid-gas ledger's budget of the taker or of the integrator is spent (body: budget, frees_at)
  | "gasless_taker_gas_budget_spent"
  | "gasless_integrator_gas_budget_spent"
  // 400 for gasless submissions
  | "quote_not_gasless"
  | "quote_expired"
  | "signature_mismatch"
  | "simulation_failed"
  // 400: an approval_signature the quote did not offer, or not the taker's over its approval
  | "approval_not_offered"
  | "approval_signature_mismatch"
  // 400: a gasless quote selling a token the relayer does not take its fee in
  | "fee_token_not_accepted"
  // 400: a webhook URL the relayer must not call (pushed status)
  | "webhook_url_not_https"
  | "webhook_url_internal"
  // 404
  | "not_found"
  | "integrator_not_found"
  | "api_key_not_found"
  | "quote_not_found"
  | "relay_not_found"
  // 409: conflicts with the current state
  | "nonce_used"
  | "slug_taken"
  | "api_key_already_revoked"
  // 409: the profile has MAX_API_KEYS_PER_INTEGRATOR keys that are not revoked (the body's `limit`)
  | "api_key_limit_reached"
  | "permit2_nonce_used"
  | "quote_already_submitted"
  | "idempotency_key_conflict"
  | "relay_final"
  // 400 too: well-formed, but nothing can be offered for it
  | "no_route"
  // 413, 415
  | "payload_too_large"
  | "unsupported_media_type"
  // 429: a rate-limit bucket is empty (the body names it in `bucket`; Retry-After says when to retry)
  | "rate_limited"
  // 429: the key already has SSE_MAX_STREAMS_PER_KEY streams of GET /gasless/events open here
  | "too_many_streams"
  // 429: the integrator (all its keys) already has SSE_MAX_STREAMS_PER_INTEGRATOR streams open here
  | "too_many_integrator_streams"
  // 503: this API instance serves SSE_MAX_STREAMS streams already (another instance may have room)
  | "stream_capacity_reached"
  // 5xx: ours, never the client's input
  | "signature_verification_unavailable"
  | "feature_paused"
  | "feature_unavailable"
  | "chain_unavailable"
  | "gasless_unavailable"
  | "relayer_unavailable"
  | "quote_unavailable"
  | "database_unavailable"
  | "internal_error";

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

/** An error the client should see as is; anything else becomes a 500 without details. */
export class ApiError extends Error {
  override readonly name = "ApiError";
  readonly status: number;
  readonly code: ApiErrorCode;
  readonly extras: ApiErrorExtras;

  constructor(status: number, code: ApiErrorCode, message: string, extras: ApiErrorExtras = {}) {
    // An ApiError is an answer to the client, never logged with its stack; capturing one costs more
    // than the rest of a rejected request (unsupported tokens are rejected on the hot path).
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.status = status;
    this.code = code;
    this.extras = extras;
  }
}

export type ApiErrorBody = { error: string; code: ApiErrorCode; [field: string]: ApiErrorBodyValue };
