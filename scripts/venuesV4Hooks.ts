import { getAddress, isAddress, zeroAddress, type Address } from "viem";
import { hookFlagsOf, V4_HOOK_FLAGS, v4HookExclusion, type DeploymentManifest } from "../sdk";
import { readV4HookAllowlist, v4HookAllowlistPath, writeV4HookAllowlist } from "../sdk/chain/v4HookAllowlist";

/** One V4 hook as `npm run venues -- list` shows it (the VenueRow shape of scripts/venues.ts). */
export type V4HookRow = { name: string; type: "uniswap-v4-hook"; address: Address; detail: string; pools: number; status: string };

/** What the hook commands need of the CLI's context: the chain's manifest and where it was read from. */
export type V4HookContext = Readonly<{ chainId: number; manifest: DeploymentManifest; manifestFile: string; print: (line: string) => void }>;

/** The permission names a hook address carries (its low 14 bits). */
function flagNames(hooks: Address): string[] {
  const flags = hookFlagsOf(hooks);
  return Object.entries(V4_HOOK_FLAGS)
    .filter(([, bit]) => (flags & bit) !== 0)
    .map(([name]) => name);
}

/**
 * Every hook of the manifest's V4 pools (and its named hooks), with its permissions, its pools and
 * what quoting does with them: `routed` (it only observes), `allowlisted` (the hook rule would leave
 * it out, the operator's allowlist lets it in), or `excluded: <reason>`.
 */
export function v4HookRows(context: V4HookContext): V4HookRow[] {
  const v4 = context.manifest.uniswapV4;
  if (v4 === undefined) return [];
  const allowlisted = new Set(readV4HookAllowlist(v4HookAllowlistPath(context.manifestFile), context.chainId).hooks.map((hook) => hook.address.toLowerCase()));
  const names = new Map((v4.hooks ?? []).map((hook) => [hook.address.toLowerCase(), hook.name]));
  const hooks = new Map<string, Address>();
  for (const hook of v4.hooks ?? []) hooks.set(hook.address.toLowerCase(), hook.address);
  for (const pool of v4.pools) if (pool.hooks !== zeroAddress) hooks.set(pool.hooks.toLowerCase(), pool.hooks);
  for (const address of allowlisted) if (!hooks.has(address)) hooks.set(address, getAddress(address));
  return [...hooks.entries()].map(([key, address]) => {
    const pools = v4.pools.filter((pool) => pool.hooks.toLowerCase() === key);
    const exclusions = new Set(pools.map((pool) => v4HookExclusion(pool)).filter((reason) => reason !== undefined));
    // A hook with no pool in the manifest: judged by its flags alone, as a static-fee pool of it would be.
    if (pools.length === 0) {
      const reason = v4HookExclusion({ fee: 0, hooks: address });
      if (reason !== undefined) exclusions.add(reason);
    }
    const status = exclusions.size === 0 ? "routed" : allowlisted.has(key) ? "allowlisted" : `excluded: ${[...exclusions].join(", ")}`;
    return { name: names.get(key) ?? "hook", type: "uniswap-v4-hook", address, detail: `flags ${flagNames(address).join(", ") || "none"}`, pools: pools.length, status };
  });
}

/**
 * `allow-hook <hook> [--note <why>]` / `remove-hook <hook>`: edits the chain's V4 hook allowlist, the
 * file beside its manifest that the API re-reads when it changes. Returns the exit code (0 done,
 * 1 refused, 2 usage).
 */
export function changeV4HookAllowlist(context: V4HookContext, command: "allow-hook" | "remove-hook", hookText: string | undefined, note: string | undefined): number {
  if (context.manifest.uniswapV4 === undefined) {
    context.print(`chain ${context.chainId}'s manifest (${context.manifestFile}) has no uniswapV4 part: there are no V4 pools to route; restart the devnet with \`npm start\` to deploy V4`);
    return 1;
  }
  if (hookText === undefined || !isAddress(hookText, { strict: false }) || BigInt(hookText) === 0n) {
    context.print(`hook must be the hook contract's address (0x + 40 hex digits, not zero), got ${hookText ?? "nothing"}; \`npm run venues -- list\` shows the hooks`);
    return 2;
  }
  const hook = getAddress(hookText.toLowerCase());
  const path = v4HookAllowlistPath(context.manifestFile);
  const allowlist = readV4HookAllowlist(path, context.chainId);
  const listed = allowlist.hooks.some((entry) => entry.address === hook);
  if (command === "allow-hook") {
    if (listed) {
      context.print(`refused: ${hook} is already on the V4 hook allowlist (${path})`);
      return 1;
    }
    if (v4HookExclusion({ fee: 0, hooks: hook }) === undefined && !context.manifest.uniswapV4.pools.some((pool) => pool.hooks === hook && v4HookExclusion(pool) !== undefined)) {
      context.print(`note: ${hook}'s flags (${flagNames(hook).join(", ") || "none"}) need no allowlisting: its pools route already`);
    }
    writeV4HookAllowlist(path, { chainId: context.chainId, hooks: [...allowlist.hooks, { address: hook, note: note ?? "", addedAt: new Date().toISOString() }] });
    context.print(`allowlisted V4 hook ${hook} in ${path}: quotes route its pools from the next block (the API re-reads the file)`);
    return 0;
  }
  if (!listed) {
    context.print(`refused: ${hook} is not on the V4 hook allowlist (${path})`);
    return 1;
  }
  writeV4HookAllowlist(path, { chainId: context.chainId, hooks: allowlist.hooks.filter((entry) => entry.address !== hook) });
  context.print(`removed V4 hook ${hook} from ${path}: quotes leave its pools out from the next block`);
  return 0;
}
