import { isAddress, keccak256, stringToBytes, type Address, type Hex } from "viem";
import { PayloadFieldError } from "../errors/onboarding";
import { OnboardingAction } from "./actions";

/**
 * The payload hash binds a nonce to the exact fields of one create or revoke request.
 *
 * Encoding (the spec's rule, with the details we fixed): for each field in order, the text
 * `name=<len>:<value>\n`, where a required field's value is its text, an optional field's value is
 * `none` when absent or `some:<text>` when present, and `<len>` is the UTF-8 byte length of exactly that
 * value. Integers are decimal, wallet addresses lowercase, strings as given. The hash is keccak256 over
 * the UTF-8 bytes of the whole text. The length prefix makes the text self-delimiting, so no choice
 * of values (newlines, `=`, `none`) can make two different payloads encode alike.
 *
 * Field names and types follow the request bodies, so a body can be hashed as it is.
 */

type Integer = number | bigint;

/** Fields of POST /integrators/applications, in hashing order. */
export type ApplicationPayload = {
  chain_id?: Integer | null | undefined;
  owner_wallet: Address;
  display_name: string;
  slug: string;
  contact_email?: string | null | undefined;
  telegram_handle?: string | null | undefined;
  app_url?: string | null | undefined;
  fee_recipient: Address;
  requested_max_fee_bps: Integer;
};

/** Fields of POST /integrators/api-keys; the action is fixed, so it is not a parameter. */
export type ApiKeyPayload = {
  chain_id?: Integer | null | undefined;
  owner_wallet: Address;
  integrator_id: Integer;
  label: string;
};

/** Fields of POST /integrators/api-keys/{key_id}/revoke. */
export type RevokeApiKeyPayload = {
  owner_wallet: Address;
  integrator_id: Integer;
  key_id: Integer;
};

/** Fields of POST /integrators/webhook; `url` null (or absent) clears the webhook. */
export type WebhookPayload = {
  owner_wallet: Address;
  integrator_id: Integer;
  url?: string | null | undefined;
};

/** The text `application` hashes to; useful to see what a mismatching hash was computed over. */
export function encodeApplicationPayload(payload: ApplicationPayload): string {
  return [
    optionalField("chain_id", optionalInteger("chain_id", payload.chain_id)),
    field("owner_wallet", wallet("owner_wallet", payload.owner_wallet)),
    field("display_name", text("display_name", payload.display_name)),
    field("slug", text("slug", payload.slug)),
    optionalField("contact_email", optionalText("contact_email", payload.contact_email)),
    optionalField("telegram_handle", optionalText("telegram_handle", payload.telegram_handle)),
    optionalField("app_url", optionalText("app_url", payload.app_url)),
    field("fee_recipient", wallet("fee_recipient", payload.fee_recipient)),
    field("requested_max_fee_bps", integer("requested_max_fee_bps", payload.requested_max_fee_bps)),
  ].join("");
}

export function encodeApiKeyPayload(payload: ApiKeyPayload): string {
  return [
    field("action", OnboardingAction.CreateApiKey),
    optionalField("chain_id", optionalInteger("chain_id", payload.chain_id)),
    field("owner_wallet", wallet("owner_wallet", payload.owner_wallet)),
    field("integrator_id", integer("integrator_id", payload.integrator_id)),
    field("label", text("label", payload.label)),
  ].join("");
}

export function encodeRevokeApiKeyPayload(payload: RevokeApiKeyPayload): string {
  return [
    field("owner_wallet", wallet("owner_wallet", payload.owner_wallet)),
    field("integrator_id", integer("integrator_id", payload.integrator_id)),
    field("key_id", integer("key_id", payload.key_id)),
  ].join("");
}

export function encodeWebhookPayload(payload: WebhookPayload): string {
  return [
    field("owner_wallet", wallet("owner_wallet", payload.owner_wallet)),
    field("integrator_id", integer("integrator_id", payload.integrator_id)),
    optionalField("url", optionalText("url", payload.url)),
  ].join("");
}

/** keccak256 over the UTF-8 bytes of an encoded payload, as 0x-prefixed lowercase hex. */
export function hashPayloadText(encoded: string): Hex {
  return keccak256(stringToBytes(encoded));
}

/**
 * @example
 * applicationPayloadHash({ owner_wallet, display_name: "My Swap", slug: "my-swap", fee_recipient: owner_wallet, requested_max_fee_bps: 25 })
 */
export function applicationPayloadHash(payload: ApplicationPayload): Hex {
  return hashPayloadText(encodeApplicationPayload(payload));
}

/** @example apiKeyPayloadHash({ chain_id: 4663, owner_wallet, integrator_id: 1, label: "prod key" }) */
export function apiKeyPayloadHash(payload: ApiKeyPayload): Hex {
  return hashPayloadText(encodeApiKeyPayload(payload));
}

/** @example revokeApiKeyPayloadHash({ owner_wallet, integrator_id: 1, key_id: 7 }) */
export function revokeApiKeyPayloadHash(payload: RevokeApiKeyPayload): Hex {
  return hashPayloadText(encodeRevokeApiKeyPayload(payload));
}

/** @example webhookPayloadHash({ owner_wallet, integrator_id: 1, url: "https://example.com/hooks/swap" }) */
export function webhookPayloadHash(payload: WebhookPayload): Hex {
  return hashPayloadText(encodeWebhookPayload(payload));
}

function field(name: string, value: string): string {
  return `${name}=${utf8Length(value)}:${value}\n`;
}

function optionalField(name: string, value: string | undefined): string {
  return field(name, value === undefined ? "none" : `some:${value}`);
}

function utf8Length(value: string): number {
  return stringToBytes(value).length;
}

// In a `u` regex a lone surrogate is its own code point (category Cs); UTF-8 cannot carry it, and
// encoders replace it with U+FFFD, so two different strings would hash alike.
const LONE_SURROGATE = /\p{Cs}/u;

function text(name: string, value: unknown): string {
  if (typeof value !== "string") throw new PayloadFieldError(name, "a string", value);
  if (LONE_SURROGATE.test(value)) throw new PayloadFieldError(name, "well-formed Unicode text (no lone surrogates)", value);
  return value;
}

function optionalText(name: string, value: unknown): string | undefined {
  return value === undefined || value === null ? undefined : text(name, value);
}

function integer(name: string, value: unknown): string {
  if (typeof value === "bigint") return value.toString(10);
  if (typeof value === "number" && Number.isSafeInteger(value)) return value.toString(10);
  throw new PayloadFieldError(name, "an integer (a safe-integer number or a bigint)", value);
}

function optionalInteger(name: string, value: unknown): string | undefined {
  return value === undefined || value === null ? undefined : integer(name, value);
}

function wallet(name: string, value: unknown): string {
  if (typeof value !== "string" || !isAddress(value, { strict: false })) {
    throw new PayloadFieldError(name, "a 20-byte hex wallet address", value);
  }
  return value.toLowerCase();
}
