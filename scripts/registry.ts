/**
 * Operator CLI for the router registry of the chain at RPC_URL (default: the devnet's own), whose
 * address comes from the chain's manifest in DEPLOYMENTS_DIR.
 *
 *   npm run registry -- show <feature> [--json]           the four reads (ownerOf, prev, next, getFeature) and the dwell
 *   npm run registry -- stage <feature> <router> | activate <feature> | unstage <feature>
 *   npm run registry -- pause <feature> | unpause <feature>
 *   npm run registry -- set-pauser <account> | revoke-pauser <account> | set-dwell <seconds>
 *   npm run registry -- propose-admin <account> | accept-admin
 *
 * Transactions are signed from an encrypted keystore (--keystore <file|name>, see `npm run keystore`
 * and docs/operators/keys.md), or a raw OPERATOR_PRIVATE_KEY only with --unsafe-private-key, else by
 * the node's unlocked account (--from <address>, default its first: the devnet's deployer, who is
 * administrator and pauser).
 * Each prints its transaction and the state after it; a refused call prints the registry's error.
 */
import { parseArgs } from "node:util";
import { getAddress, isAddress, type Address, type PublicClient } from "viem";
import { CLI_SIGNER_USAGE, describeFeatures, routerRegistryAbi } from "../sdk";
import { connectToChain, loadChainTarget } from "./chainConnection";
import { describeRevert, OPERATOR_SIGNER_ARGS, operatorSignerChoiceOf, sendOperatorWrite, type OperatorSignerChoice, type OperatorContext } from "./operatorWrites";
import { printTable } from "./textTable";

const USAGE = [
  "usage: npm run registry -- <command>",
  "  show <feature> [--json]",
  "  stage <feature> <router> | activate <feature> | unstage <feature> | pause <feature> | unpause <feature>",
  "  set-pauser <account> | revoke-pauser <account> | set-dwell <seconds> | propose-admin <account> | accept-admin",
  `  ${CLI_SIGNER_USAGE}`,
  "  or --from <address>: an unlocked account of the node (the devnet's; default its first)",
  `  features: ${describeFeatures()}`,
].join("\n");

export type RegistryCommandContext = OperatorContext;

type FeatureReads = {
  ownerOf: string;
  prev: string;
  next: Address;
  getFeature: { previous: Address; current: Address; next: Address; paused: boolean };
  dwellClosesAt: string;
  /** Against the latest block's time: whether the previous router still settles. */
  dwellWindow: "none" | "open" | "closed";
};

/** A revert as the registry names it (`RouterRegistryUnauthorized(0x…)`), or viem's short message. */
function describeFailure(error: unknown): string {
  return describeRevert(error, routerRegistryAbi);
}

async function readFeature(client: PublicClient, registry: Address, featureId: bigint): Promise<FeatureReads> {
  const read = <T>(call: Promise<T>) => call.then(String, (error: unknown) => `reverts: ${describeFailure(error)}`);
  const [ownerOf, prev, next, feature, closesAt, latest] = await Promise.all([
    read(client.readContract({ address: registry, abi: routerRegistryAbi, functionName: "ownerOf", args: [featureId] })),
    read(client.readContract({ address: registry, abi: routerRegistryAbi, functionName: "prev", args: [featureId] })),
    client.readContract({ address: registry, abi: routerRegistryAbi, functionName: "next", args: [featureId] }),
    client.readContract({ address: registry, abi: routerRegistryAbi, functionName: "getFeature", args: [featureId] }),
    client.readContract({ address: registry, abi: routerRegistryAbi, functionName: "dwellDeadline", args: [featureId] }),
    client.getBlock({ blockTag: "latest" }),
  ]);
  const [previous, current, staged, paused] = feature;
  // The registry compares with block.timestamp, so the chain's clock decides, not this machine's.
  const dwellWindow = closesAt === 0n ? "none" : latest.timestamp < closesAt ? "open" : "closed";
  return {
    ownerOf,
    prev,
    next,
    getFeature: { previous, current, next: staged, paused },
    dwellClosesAt: closesAt === 0n ? "none" : new Date(Number(closesAt) * 1000).toISOString(),
    dwellWindow,
  };
}

async function printFeature(context: RegistryCommandContext, featureId: bigint, json: boolean): Promise<void> {
  const reads = await readFeature(context.chain.client, context.chain.manifest.contracts.routerRegistry, featureId);
  if (json) {
    context.print(JSON.stringify({ feature: Number(featureId), ...reads }, null, 2));
    return;
  }
  context.print(`feature ${featureId} on registry ${context.chain.manifest.contracts.routerRegistry} (chain ${context.chain.chainId})`);
  printTable(context.print, [
    ["READ", "RESULT"],
    ["ownerOf", reads.ownerOf],
    ["prev", reads.prev],
    ["next", reads.next],
    ["getFeature", `previous ${reads.getFeature.previous}, current ${reads.getFeature.current}, next ${reads.getFeature.next}, paused ${reads.getFeature.paused}`],
    reads.dwellWindow === "closed"
      ? ["dwell window closed", `${reads.dwellClosesAt} (the previous router no longer settles)`]
      : ["dwell window closes", reads.dwellClosesAt],
  ]);
}

async function printAdministration(context: RegistryCommandContext, account: Address | undefined): Promise<void> {
  const { client, manifest } = context.chain;
  const registry = manifest.contracts.routerRegistry;
  const [admin, pendingAdmin, dwell, isPauser] = await Promise.all([
    client.readContract({ address: registry, abi: routerRegistryAbi, functionName: "admin" }),
    client.readContract({ address: registry, abi: routerRegistryAbi, functionName: "pendingAdmin" }),
    client.readContract({ address: registry, abi: routerRegistryAbi, functionName: "dwell" }),
    account === undefined ? Promise.resolve(undefined) : client.readContract({ address: registry, abi: routerRegistryAbi, functionName: "isPauser", args: [account] }),
  ]);
  const rows = [
    ["admin", admin],
    ["pendingAdmin", pendingAdmin],
    ["dwell", `${dwell} s`],
  ];
  if (account !== undefined) rows.push([`isPauser(${account})`, String(isPauser)]);
  printTable(context.print, [["READ", "RESULT"], ...rows]);
}

type Write =
  | { functionName: "stage"; args: readonly [bigint, Address] }
  | { functionName: "activate" | "unstage" | "pause" | "unpause"; args: readonly [bigint] }
  | { functionName: "setPauser"; args: readonly [Address, boolean] }
  | { functionName: "setDwell"; args: readonly [bigint] }
  | { functionName: "proposeAdmin"; args: readonly [Address] }
  | { functionName: "acceptAdmin"; args: readonly [] };

/** Simulates first (so a refusal is named by the registry's custom error), then sends and waits. */
function send(context: RegistryCommandContext, write: Write, signer: OperatorSignerChoice): Promise<boolean> {
  return sendOperatorWrite(context, { address: context.chain.manifest.contracts.routerRegistry, abi: routerRegistryAbi, ...write }, signer);
}

function featureOf(text: string | undefined): bigint | string {
  if (text === undefined || !/^[0-9]{1,38}$/.test(text)) return `feature must be a number (${describeFeatures()}), got ${text ?? "nothing"}`;
  return BigInt(text);
}

function accountOf(text: string | undefined, what: string): Address | string {
  return text !== undefined && isAddress(text, { strict: false }) ? getAddress(text.toLowerCase()) : `${what} must be an address (0x + 40 hex digits), got ${text ?? "nothing"}`;
}

/** Runs one command and returns the process exit code (0 done, 1 refused, 2 usage). */
export async function runRegistryCommand(args: readonly string[], context: RegistryCommandContext): Promise<number> {
  let positionals: string[];
  let values: { json?: boolean } & Parameters<typeof operatorSignerChoiceOf>[0];
  try {
    ({ positionals, values } = parseArgs({ args: [...args], options: { json: { type: "boolean" }, ...OPERATOR_SIGNER_ARGS }, allowPositionals: true, strict: true }));
  } catch (error) {
    return usage(context, error instanceof Error ? error.message : String(error));
  }
  const [command, first, second, ...extra] = positionals;
  if (extra.length > 0) return usage(context, `unexpected argument ${extra[0]}`);
  const featureCommands = ["show", "activate", "unstage", "pause", "unpause"];
  if (command !== undefined && (featureCommands.includes(command) || command === "stage")) {
    const featureId = featureOf(first);
    if (typeof featureId === "string") return usage(context, featureId);
    if (command === "show") {
      if (second !== undefined) return usage(context, `unexpected argument ${second}`);
      await printFeature(context, featureId, values.json === true);
      return 0;
    }
    let write: Write;
    if (command === "stage") {
      const router = accountOf(second, "router");
      if (!isAddress(router)) return usage(context, router);
      write = { functionName: "stage", args: [featureId, router] };
    } else {
      if (second !== undefined) return usage(context, `unexpected argument ${second}`);
      write = { functionName: command as "activate" | "unstage" | "pause" | "unpause", args: [featureId] };
    }
    const ok = await send(context, write, operatorSignerChoiceOf(values));
    await printFeature(context, featureId, false);
    return ok ? 0 : 1;
  }
  if (command === "set-pauser" || command === "revoke-pauser" || command === "propose-admin") {
    const account = accountOf(first, "account");
    if (!isAddress(account)) return usage(context, account);
    if (second !== undefined) return usage(context, `unexpected argument ${second}`);
    const write: Write = command === "propose-admin" ? { functionName: "proposeAdmin", args: [account] } : { functionName: "setPauser", args: [account, command === "set-pauser"] };
    const ok = await send(context, write, operatorSignerChoiceOf(values));
    await printAdministration(context, command === "propose-admin" ? undefined : account);
    return ok ? 0 : 1;
  }
  if (command === "set-dwell" || command === "accept-admin") {
    let write: Write;
    if (command === "set-dwell") {
      if (first === undefined || !/^[0-9]{1,12}$/.test(first) || second !== undefined) return usage(context, "set-dwell takes one whole number of seconds");
      write = { functionName: "setDwell", args: [BigInt(first)] };
    } else {
      if (first !== undefined) return usage(context, `unexpected argument ${first}`);
      write = { functionName: "acceptAdmin", args: [] };
    }
    const ok = await send(context, write, operatorSignerChoiceOf(values));
    await printAdministration(context, undefined);
    return ok ? 0 : 1;
  }
  return usage(context, command === undefined ? undefined : `unknown command ${command}`);
}

function usage(context: RegistryCommandContext, problem: string | undefined): number {
  if (problem !== undefined) context.print(problem);
  context.print(USAGE);
  return 2;
}

async function main(): Promise<void> {
  const chain = await connectToChain(loadChainTarget());
  process.exitCode = await runRegistryCommand(process.argv.slice(2), {
    chain,
    print: (line) => process.stdout.write(`${line}\n`),
  });
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error("registry:", error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}
