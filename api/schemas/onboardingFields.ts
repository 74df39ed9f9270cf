import { z } from "zod";
import { getAddress, isAddress, zeroAddress, type Address, type Hex } from "viem";
import { SLUG_PATTERN } from "../../sdk";
import { plainText, storableText } from "./plainText";

/**
 * Field schemas shared by the onboarding bodies. Each message is worded to follow the field's name
 * ("owner_wallet must be …"). Values come out normalised: addresses checksummed, hashes lowercase.
 */

/** A required text field: 1 to `maxLength` characters, well-formed, without control characters (plainText.ts). */
export function text(maxLength: number) {
  return plainText(maxLength);
}

/** An optional text field; null is read as absent. */
export function optionalText(maxLength: number) {
  return text(maxLength)
    .nullish()
    .transform((value) => value ?? undefined);
}

/** A wallet that signs (or is paid): the zero address has no key, so it could only waste a nonce or a profile. */
export const walletAddress = z
  .string()
  .refine((value) => isAddress(value), "must be a 20-byte hex address (0x + 40 hex digits, valid EIP-55 checksum if mixed case)")
  .refine((value) => value.toLowerCase() !== zeroAddress, "must not be the zero address")
  .transform((value): Address => getAddress(value));

export const chainId = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);

export const optionalChainId = chainId.nullish().transform((value) => value ?? undefined);

export const positiveId = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);

export const payloadHash = z
  .string()
  .regex(/^0x[0-9a-fA-F]{64}$/, "must be a 32-byte hex hash (0x + 64 hex digits)")
  .transform((value): Hex => value.toLowerCase() as Hex);

export const slug = z.string().regex(SLUG_PATTERN, "must be 3-64 characters of lowercase letters, digits and hyphens");

export const feeBps = z.number().int().min(0);

export const contactEmail = z.email("must be an email address").max(254).nullish().transform((value) => value ?? undefined);

// Checked as sent, before the URL parser, which keeps NUL in a path and silently drops tabs and line breaks.
export const appUrl = storableText(z.string().max(2048))
  .pipe(z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }))
  // The OpenAPI document shows a pipe's input side: say it is a URL there too.
  .meta({ format: "uri" })
  .nullish()
  .transform((value) => value ?? undefined);

/**
 * The fields every signed onboarding request repeats from its nonce response, plus the signature.
 * `message` may be echoed too (clients often send the whole nonce response back); it is then checked
 * against the stored one, never used in its place.
 */
export const signedChallengeFields = {
  message: z.string().max(8192).optional(),
  nonce: z.string().regex(/^[a-zA-Z0-9]{8,128}$/, "must be the nonce returned by POST /integrators/nonce"),
  issued_at: z.string().max(64),
  expiration_time: z.string().max(64),
  signature: z
    .string()
    .max(20_000)
    .regex(/^0x([0-9a-fA-F]{2})+$/, "must be 0x-prefixed hex bytes")
    .transform((value): Hex => value as Hex),
} as const;
