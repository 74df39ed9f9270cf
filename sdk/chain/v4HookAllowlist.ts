import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { getAddress, isAddress, type Address } from "viem";
import { z } from "zod";

/**
 * The operator's V4 hook allowlist of one chain: hooks whose pools quoting routes although the hook
 * rule (sdk/amm/v4/hookPermissions.ts) would leave them out (a hook that may return swap deltas, or
 * set a dynamic fee per swap). Off-chain on purpose: the routers execute any V4 pool a route names (a
 * route's minimum output protects the taker), so the allowlist only decides what quotes offer, and
 * the API re-reads it when it changes (`npm run venues -- allow-hook / remove-hook` writes it).
 */
export const v4HookAllowlistSchema = z.object({
  chainId: z.number().int().positive(),
  hooks: z.array(
    z.object({
      address: z
        .string()
        .refine((value) => isAddress(value, { strict: false }), "expected a 20-byte hex address")
        .transform((value) => getAddress(value.toLowerCase())),
      /** Why the operator trusts the hook's deltas (free text, for the next operator). */
      note: z.string().default(""),
      /** When it was added (ISO 8601). */
      addedAt: z.string().min(1),
    }),
  ),
});

export type V4HookAllowlist = z.infer<typeof v4HookAllowlistSchema>;

/** The allowlist's file: beside the chain's manifest (`<dir>/<chainId>.json` → `<dir>/<chainId>.v4-hooks.json`). */
export function v4HookAllowlistPath(manifestPath: string): string {
  return manifestPath.replace(/\.json$/, "") + ".v4-hooks.json";
}

/** The allowlist at `path`; an empty one for `chainId` when the file does not exist. A malformed file throws (zod). */
export function readV4HookAllowlist(path: string, chainId: number): V4HookAllowlist {
  if (!existsSync(path)) return { chainId, hooks: [] };
  const parsed = v4HookAllowlistSchema.parse(JSON.parse(readFileSync(path, "utf8")));
  if (parsed.chainId !== chainId) throw new Error(`${path} is the V4 hook allowlist of chain ${parsed.chainId}, not of chain ${chainId}`);
  return parsed;
}

/** Writes the allowlist whole (a temporary file renamed over it, so a reader never sees half of it). */
export function writeV4HookAllowlist(path: string, allowlist: V4HookAllowlist): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(allowlist, null, 2)}\n`);
  renameSync(temporary, path);
}

/** The allowlisted hooks as the hook rule takes them (lowercase addresses). */
export function allowlistedHookSet(allowlist: V4HookAllowlist): ReadonlySet<string> {
  return new Set(allowlist.hooks.map((hook) => hook.address.toLowerCase() as Address));
}
