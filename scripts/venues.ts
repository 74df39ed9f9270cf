/**
 * Operator CLI for the venues routes may use on the chain at RPC_URL (default: the devnet's own),
 * whose contracts come from the chain's manifest in DEPLOYMENTS_DIR.
 *
 *   npm run venues -- list [--json]                                   the V2 factory, V3 venues (when the manifest lists them) and the propAMMs on the allowlist
 *   npm run venues -- add-propamm <pair> --token0 <TOKEN> --token1 <TOKEN>   allowlist a propAMM with its configured tokens (zeroForOne sells token0)
 *   npm run venues -- remove-propamm <pair>                           take a propAMM off the allowlist
 *   npm run venues -- allow-hook <hook> [--note <why>]                route the V4 pools of a hook the hook rule leaves out
 *   npm run venues -- remove-hook <hook>                              take a hook off the V4 hook allowlist
 *
 * TOKEN is an address or a manifest token's symbol. The allowlist (PropAmmAllowlist) is managed by
 * the router registry's administrator: transactions are signed from an encrypted keystore (--keystore <file|name>), or a raw
 * OPERATOR_PRIVATE_KEY only with --unsafe-private-key, else
 * by the node's unlocked account (--from <address>, default its first: the devnet's deployer). Each
 * prints its transaction and the allowlist after it; a refused call prints the allowlist's error.
 *
 * The V4 hook allowlist is off-chain: a file beside the manifest (`<DEPLOYMENTS_DIR>/<chainId>.v4-hooks.json`)
 * that the API re-reads when it changes. The routers execute any V4 pool a route names (the route's
 * minimum output protects the taker), so which hooks quotes trust is the quoting service's choice;
 * the hook commands sign nothing and need no key.
 */
import { parseArgs } from "node:util";
import { getAddress, isAddress, type Address } from "viem";
import { propAmmAllowlistAbi } from "../sdk/abis/propAmmAllowlistAbi";
import { CLI_SIGNER_USAGE } from "../sdk/keys/cliSignerOptions";
import { connectToChain, loadChainTarget } from "./chainConnection";
import { OPERATOR_SIGNER_ARGS, operatorSignerChoiceOf, sendOperatorWrite, type OperatorContext } from "./operatorWrites";
import { printTable } from "./textTable";
import { changeV4HookAllowlist, v4HookRows } from "./venuesV4Hooks";

const USAGE = [
  "usage: npm run venues -- <command>",
  "  list [--json]",
  "  add-propamm <pair> --token0 <TOKEN> --token1 <TOKEN>    TOKEN: an address or a manifest token's symbol",
  "  remove-propamm <pair>",
  "  allow-hook <hook> [--note <why>]     route the V4 pools of a hook that may return deltas or set a per-swap fee",
  "  remove-hook <hook>",
  `  ${CLI_SIGNER_USAGE}`,
  "  or --from <address>: an unlocked account of the node (the devnet's; default its first)",
].join("\n");

export type VenuesCommandContext = OperatorContext;

/** One venue as `list` shows it. `pools` counts the manifest's pools of the venue (propAMMs: none, the pair is the venue). */
export type VenueRow = {
  name: string;
  type: string;
  address: Address;
  detail: string;
  pools: number | null;
  status: string;
};

const PAIR_TOKEN_GETTERS = [
  { type: "function", name: "token0", stateMutability: "view", inputs: [], outputs: [{ name: "", type: "address" }] },
  { type: "function", name: "token1", stateMutability: "view", inputs: [], outputs: [{ name: "", type: "address" }] },
] as const;

function symbolOf(context: VenuesCommandContext, token: Address): string {
  return context.chain.manifest.tokens.find((candidate) => candidate.address.toLowerCase() === token.toLowerCase())?.symbol ?? token;
}

function allowlistOf(context: VenuesCommandContext): Address | undefined {
  return context.chain.manifest.contracts.propAmmAllowlist;
}

async function propAmmRows(context: VenuesCommandContext): Promise<VenueRow[]> {
  const { client, manifest } = context.chain;
  const allowlist = allowlistOf(context);
  const named = new Map((manifest.propAmms ?? []).map((propAmm) => [propAmm.address.toLowerCase(), propAmm.name]));
  if (allowlist === undefined) return [];
  const [pairs, selector] = await Promise.all([
    client.readContract({ address: allowlist, abi: propAmmAllowlistAbi, functionName: "pairs" }),
    client.readContract({ address: allowlist, abi: propAmmAllowlistAbi, functionName: "SWAP_SELECTOR" }),
  ]);
  const rows: VenueRow[] = [];
  for (const pair of pairs) {
    const [token0, token1] = await client.readContract({ address: allowlist, abi: propAmmAllowlistAbi, functionName: "tokensOf", args: [pair, selector] });
    rows.push({
      name: named.get(pair.toLowerCase()) ?? "propamm",
      type: "propamm",
      address: getAddress(pair),
      detail: `token0 ${symbolOf(context, token0)}, token1 ${symbolOf(context, token1)}, swapExactIn ${selector}`,
      pools: null,
      status: "allowlisted",
    });
  }
  // The manifest's propAMMs that an operator took off the allowlist: routes no longer use them.
  const listed = new Set(pairs.map((pair) => pair.toLowerCase()));
  for (const propAmm of manifest.propAmms ?? []) {
    if (listed.has(propAmm.address.toLowerCase())) continue;
    rows.push({
      name: propAmm.name,
      type: "propamm",
      address: propAmm.address,
      detail: `token0 ${symbolOf(context, propAmm.token0)}, token1 ${symbolOf(context, propAmm.token1)}`,
      pools: null,
      status: "not allowlisted",
    });
  }
  return rows;
}

/** The manifest's AMM venues (V2 and V3, with their pool counts), then the propAMMs. */
async function venueRows(context: VenuesCommandContext): Promise<VenueRow[]> {
  const { manifest } = context.chain;
  const poolCount = (source: string) => manifest.pools.filter((pool) => pool.source === source).length;
  const rows: VenueRow[] = manifest.venues.map((venue) => ({
    name: venue.name,
    type: venue.type,
    address: venue.factory,
    detail: `factory, fee tiers ${venue.feeTiers.map((tier) => tier.fee).join(", ")} (hundredths of a bip)`,
    pools: poolCount(venue.name),
    status: "configured",
  }));
  const v4 = manifest.uniswapV4;
  const v4Rows: VenueRow[] =
    v4 === undefined
      ? []
      : [
          {
            name: v4.name,
            type: "uniswap-v4",
            address: v4.poolManager,
            detail: `PoolManager, pools' fees ${[...new Set(v4.pools.map((pool) => pool.fee))].sort((a, b) => a - b).join(", ")} (hundredths of a bip)`,
            pools: v4.pools.length,
            status: "configured",
          },
          ...v4HookRows(hookContextOf(context)),
        ];
  return [...rows, ...(await propAmmRows(context)), ...v4Rows];
}

function hookContextOf(context: VenuesCommandContext) {
  return { chainId: context.chain.chainId, manifest: context.chain.manifest, manifestFile: context.chain.manifestFile, print: context.print };
}

async function list(context: VenuesCommandContext, json: boolean): Promise<number> {
  const rows = await venueRows(context);
  const allowlist = allowlistOf(context);
  if (json) {
    context.print(JSON.stringify({ chainId: context.chain.chainId, propAmmAllowlist: allowlist ?? null, venues: rows }, null, 2));
    return 0;
  }
  context.print(`venues of chain ${context.chain.chainId}; propAMM allowlist ${allowlist ?? "none (this chain's manifest names no PropAmmAllowlist)"}`);
  printTable(context.print, [
    ["VENUE", "TYPE", "ADDRESS", "POOLS", "STATUS", "DETAIL"],
    ...rows.map((row) => [row.name, row.type, row.address, row.pools === null ? "-" : String(row.pools), row.status, row.detail]),
  ]);
  return 0;
}

/** An address, or a manifest token's symbol, as an address; or what is wrong with it. */
function tokenOf(context: VenuesCommandContext, text: string | undefined, option: string): Address | string {
  if (text === undefined) return `${option} is required: the token's address or a manifest token's symbol`;
  if (isAddress(text, { strict: false })) return getAddress(text.toLowerCase());
  const token = context.chain.manifest.tokens.find((candidate) => candidate.symbol.toLowerCase() === text.toLowerCase());
  return token?.address ?? `${option} ${text} is neither an address nor a token of this chain's manifest (${context.chain.manifest.tokens.map((candidate) => candidate.symbol).join(", ")})`;
}

/**
 * A propAMM that says which tokens it trades (token0()/token1(), as the reference propAMM does) must
 * be allowlisted in that order, or every route through it would swap the wrong way.
 */
async function checkTokenOrder(context: VenuesCommandContext, pair: Address, token0: Address, token1: Address): Promise<string | undefined> {
  const { client } = context.chain;
  const read = (functionName: "token0" | "token1") => client.readContract({ address: pair, abi: PAIR_TOKEN_GETTERS, functionName }).catch(() => undefined);
  const [own0, own1] = await Promise.all([read("token0"), read("token1")]);
  if (own0 === undefined || own1 === undefined) return undefined;
  if (getAddress(own0) === token0 && getAddress(own1) === token1) return undefined;
  return `refused: ${pair} says its token0 is ${symbolOf(context, own0)} and its token1 ${symbolOf(context, own1)}; pass --token0 ${own0} --token1 ${own1} (the order zeroForOne sells)`;
}

/** Runs one command and returns the process exit code (0 done, 1 refused, 2 usage). */
export async function runVenuesCommand(args: readonly string[], context: VenuesCommandContext): Promise<number> {
  let positionals: string[];
  let values: { json?: boolean; token0?: string; token1?: string; note?: string } & Parameters<typeof operatorSignerChoiceOf>[0];
  try {
    ({ positionals, values } = parseArgs({
      args: [...args],
      options: { json: { type: "boolean" }, ...OPERATOR_SIGNER_ARGS, token0: { type: "string" }, token1: { type: "string" }, note: { type: "string" } },
      allowPositionals: true,
      strict: true,
    }));
  } catch (error) {
    return usage(context, error instanceof Error ? error.message : String(error));
  }
  const [command, pairText, ...extra] = positionals;
  if (extra.length > 0) return usage(context, `unexpected argument ${extra[0]}`);
  if (command === "list") {
    if (pairText !== undefined) return usage(context, `unexpected argument ${pairText}`);
    return list(context, values.json === true);
  }
  if (command === "allow-hook" || command === "remove-hook") {
    if (values.note !== undefined && command === "remove-hook") return usage(context, "remove-hook takes no --note");
    const code = changeV4HookAllowlist(hookContextOf(context), command, pairText, values.note);
    if (code === 2) return usage(context, undefined);
    if (code === 0) await list(context, false);
    return code;
  }
  if (command !== "add-propamm" && command !== "remove-propamm") return usage(context, command === undefined ? undefined : `unknown command ${command}`);
  if (pairText === undefined || !isAddress(pairText, { strict: false })) return usage(context, `pair must be the propAMM's address (0x + 40 hex digits), got ${pairText ?? "nothing"}`);
  const pair = getAddress(pairText.toLowerCase());
  const allowlist = allowlistOf(context);
  if (allowlist === undefined) {
    context.print(`chain ${context.chain.chainId}'s manifest (${context.chain.manifestFile}) names no propAMM allowlist: restart the devnet with \`npm start\` to deploy one, or deploy a PropAmmAllowlist and record it as contracts.propAmmAllowlist`);
    return 1;
  }
  let write;
  if (command === "add-propamm") {
    const token0 = tokenOf(context, values.token0, "--token0");
    if (!isAddress(token0)) return usage(context, token0);
    const token1 = tokenOf(context, values.token1, "--token1");
    if (!isAddress(token1)) return usage(context, token1);
    const misordered = await checkTokenOrder(context, pair, token0, token1);
    if (misordered !== undefined) {
      context.print(misordered);
      return 1;
    }
    write = { address: allowlist, abi: propAmmAllowlistAbi, functionName: "add", args: [pair, token0, token1] } as const;
  } else {
    if (values.token0 !== undefined || values.token1 !== undefined) return usage(context, "remove-propamm takes no tokens");
    write = { address: allowlist, abi: propAmmAllowlistAbi, functionName: "remove", args: [pair] } as const;
  }
  const ok = await sendOperatorWrite(context, write, operatorSignerChoiceOf(values));
  await list(context, false);
  return ok ? 0 : 1;
}

function usage(context: VenuesCommandContext, problem: string | undefined): number {
  if (problem !== undefined) context.print(problem);
  context.print(USAGE);
  return 2;
}

async function main(): Promise<void> {
  const chain = await connectToChain(loadChainTarget());
  process.exitCode = await runVenuesCommand(process.argv.slice(2), { chain, print: (line) => process.stdout.write(`${line}\n`) });
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error("venues:", error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}
