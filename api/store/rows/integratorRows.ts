import { checksummed } from "../../services/checksummedAddress";
import { apiKeyScopes, type ApiKeyScope } from "../../apiKeyScopes";
import type { ApiKeyCredential, ApiKeyRecord, IntegratorRecord, IntegratorStatus, NewApiKey, NewIntegrator } from "../store";
import type { Selectable } from "kysely";
import type { ApiKeysTable, IntegratorsTable } from "../apiSchema";
import { date } from "./msDate";

/** `integrators` and `api_keys` rows, as both engines return them. */
export type IntegratorRow = Selectable<IntegratorsTable>;

export type ApiKeyRow = Omit<Selectable<ApiKeysTable>, "secret_hash">;

export const INTEGRATOR_COLUMNS = [
  "id", "slug", "owner_wallet", "display_name", "contact_email", "telegram_handle", "app_url", "fee_recipient", "max_fee_bps",
  "chain_id", "status", "created_at", "approved_at", "quote_rate_limit_per_minute", "swap_rate_limit_per_minute", "operator_approved_at",
] as const satisfies readonly (keyof IntegratorRow)[];
/** Every column of `api_keys` but the secret's hash, which only authentication reads. */
export const API_KEY_COLUMNS = [
  "id", "integrator_id", "label", "prefix", "last_four", "scopes", "quote_rate_limit_per_minute",
  "swap_rate_limit_per_minute", "created_at", "revoked_at", "max_fee_bps",
] as const satisfies readonly (keyof ApiKeyRow)[];

/**
 * An API key joined with its profile (`api_keys k JOIN integrators i`), the profile's columns
 * prefixed `i_`: authentication reads both in one query on every authenticated request.
 */
export const CREDENTIAL_COLUMNS = [
  "k.secret_hash",
  ...API_KEY_COLUMNS.map((column) => `k.${column}` as const),
  ...INTEGRATOR_COLUMNS.map((column) => `i.${column} as i_${column}` as const),
] as const;

export type CredentialRow = ApiKeyRow & { secret_hash: string } & { [Column in keyof IntegratorRow as `i_${Column}`]: IntegratorRow[Column] };

export function credentialFromRow(row: CredentialRow): ApiKeyCredential {
  const integrator: IntegratorRow = {
    id: row.i_id,
    slug: row.i_slug,
    owner_wallet: row.i_owner_wallet,
    display_name: row.i_display_name,
    contact_email: row.i_contact_email,
    telegram_handle: row.i_telegram_handle,
    app_url: row.i_app_url,
    fee_recipient: row.i_fee_recipient,
    max_fee_bps: row.i_max_fee_bps,
    chain_id: row.i_chain_id,
    status: row.i_status,
    created_at: row.i_created_at,
    approved_at: row.i_approved_at,
    quote_rate_limit_per_minute: row.i_quote_rate_limit_per_minute,
    swap_rate_limit_per_minute: row.i_swap_rate_limit_per_minute,
    operator_approved_at: row.i_operator_approved_at,
  };
  return { key: apiKeyFromRow(row), secretHash: row.secret_hash, integrator: integratorFromRow(integrator) };
}

/** The row's values for an insert (a profile created active is approved at once). */
export function integratorParams(integrator: NewIntegrator) {
  return {
    slug: integrator.slug,
    owner_wallet: integrator.ownerWallet.toLowerCase(),
    display_name: integrator.displayName,
    contact_email: integrator.contactEmail ?? null,
    telegram_handle: integrator.telegramHandle ?? null,
    app_url: integrator.appUrl ?? null,
    fee_recipient: integrator.feeRecipient.toLowerCase(),
    max_fee_bps: integrator.maxFeeBps,
    chain_id: integrator.chainId ?? null,
    status: integrator.status,
    created_at: integrator.createdAt.getTime(),
    approved_at: integrator.status === "active" ? integrator.createdAt.getTime() : null,
  };
}

export function apiKeyParams(key: NewApiKey) {
  return {
    integrator_id: key.integratorId,
    label: key.label,
    prefix: key.prefix,
    last_four: key.lastFour,
    secret_hash: key.secretHash,
    scopes: JSON.stringify(key.scopes),
    quote_rate_limit_per_minute: key.quoteRateLimitPerMinute,
    swap_rate_limit_per_minute: key.swapRateLimitPerMinute,
    created_at: key.createdAt.getTime(),
  };
}

export function integratorFromRow(row: IntegratorRow): IntegratorRecord {
  return {
    id: row.id,
    slug: row.slug,
    ownerWallet: checksummed(row.owner_wallet),
    displayName: row.display_name,
    contactEmail: row.contact_email ?? undefined,
    telegramHandle: row.telegram_handle ?? undefined,
    appUrl: row.app_url ?? undefined,
    feeRecipient: checksummed(row.fee_recipient),
    maxFeeBps: row.max_fee_bps,
    chainId: row.chain_id ?? undefined,
    status: row.status as IntegratorStatus,
    createdAt: date(row.created_at),
    approvedAt: date(row.approved_at),
    quoteRateLimitPerMinute: row.quote_rate_limit_per_minute ?? undefined,
    swapRateLimitPerMinute: row.swap_rate_limit_per_minute ?? undefined,
    operatorApprovedAt: date(row.operator_approved_at),
  };
}

export function apiKeyFromRow(row: ApiKeyRow): ApiKeyRecord {
  return {
    id: row.id,
    integratorId: row.integrator_id,
    label: row.label,
    prefix: row.prefix,
    lastFour: row.last_four,
    scopes: knownScopes(row.scopes),
    quoteRateLimitPerMinute: row.quote_rate_limit_per_minute,
    swapRateLimitPerMinute: row.swap_rate_limit_per_minute,
    createdAt: date(row.created_at),
    revokedAt: date(row.revoked_at),
    maxFeeBps: row.max_fee_bps ?? undefined,
  };
}

// A scope this build does not know grants nothing, rather than failing every request of the key.
function knownScopes(json: string): ApiKeyScope[] {
  const stored = JSON.parse(json) as unknown;
  if (!Array.isArray(stored)) throw new Error("api_keys.scopes is not a JSON array");
  return apiKeyScopes.filter((scope) => stored.includes(scope));
}
