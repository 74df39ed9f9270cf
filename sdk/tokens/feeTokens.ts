import { isAddress, type Address } from "viem";
import { z } from "zod";
import type { DeploymentManifest } from "../chain/manifest";

/**
 * The tokens a relayer takes its fee in on one chain, as lowercase addresses: each entry of
 * `RELAYER_FEE_TOKENS` is an address or the symbol of one of the manifest's tokens (any case); without
 * entries, every token of the manifest. A token anyone can mint (a promoted one, say) is worth nothing
 * as a fee, so it is accepted only when the operator lists it. The API (quotes) and the relayer
 * (hand-offs) resolve the same list against the same manifest.
 */
export function acceptedFeeTokens(manifest: DeploymentManifest, entries: readonly string[] | undefined): ReadonlySet<Address> {
  if (entries === undefined) return new Set(manifest.tokens.map((token) => token.address.toLowerCase() as Address));
  const accepted = new Set<Address>();
  for (const entry of entries) {
    const address = isAddress(entry, { strict: false }) ? entry : manifest.tokens.find((token) => token.symbol.toUpperCase() === entry.toUpperCase())?.address;
    if (address !== undefined) accepted.add(address.toLowerCase() as Address);
  }
  return accepted;
}

/** Entries naming a symbol none of `manifests` has: a typo would otherwise refuse that token's fees silently. */
export function unknownFeeTokenSymbols(manifests: readonly DeploymentManifest[], entries: readonly string[] | undefined): string[] {
  return (entries ?? []).filter(
    (entry) => !isAddress(entry, { strict: false }) && !manifests.some((manifest) => manifest.tokens.some((token) => token.symbol.toUpperCase() === entry.toUpperCase())),
  );
}

/**
 * `RELAYER_FEE_TOKENS` as entries: comma-separated, trimmed, at least one; `undefined` when unset (the
 * manifest's tokens). Returns the problem as a string for the caller's configuration error.
 */
export function parseFeeTokenList(text: string): readonly string[] | string {
  const entries = text.split(",").map((entry) => entry.trim());
  if (entries.some((entry) => entry === "")) return "must be a comma-separated list of token addresses or manifest symbols (unset it for every manifest token)";
  const malformed = entries.find((entry) => !isAddress(entry, { strict: false }) && !/^[A-Za-z0-9._-]{1,64}$/.test(entry));
  if (malformed !== undefined) return `${malformed} is neither an address nor a token symbol`;
  return entries;
}

/** `RELAYER_FEE_TOKENS` in a configuration schema (the API's and the relayer's read the same variable). */
export const feeTokenListSchema = z.string().transform((text, context) => {
  const parsed = parseFeeTokenList(text);
  if (typeof parsed === "string") {
    context.addIssue({ code: "custom", message: parsed });
    return z.NEVER;
  }
  return parsed;
});
