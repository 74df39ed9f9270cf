/**
 * Operator CLI for integrator profiles and keys, on the API's database (PostgreSQL at DATABASE_URL
 * when set, else the SQLite file API_DB_PATH, default data/api.sqlite). Every change is recorded
 * with who (--by, default the OS user) and when, and `show` prints that trail.
 *
 *   npm run integrators -- list [--json]
 *   npm run integrators -- show <slug> [--json]                     profile, limits, keys, audit trail and unpaid-gas usage
 *   npm run integrators -- approve|confirm|reject|suspend|reinstate <slug> [--reason TEXT]
 *                        (confirm: vouch for a profile AUTO_APPROVE made active, so its demand counts toward promotion)
 *   npm run integrators -- keys <slug> [--json]
 *   npm run integrators -- revoke-key <key_id> [--reason TEXT]
 *   npm run integrators -- limits <slug> [--quote-rpm N] [--swap-rpm N] [--max-fee-bps N]
 *   npm run integrators -- key-limits <key_id> [--quote-rpm N] [--swap-rpm N] [--max-fee-bps N]
 *   npm run integrators -- reverts [--json]                           unpaid gas charged per taker and integrator (24 h) against their budgets
 *   npm run integrators -- clear-reverts <slug|taker address>         lifts a gasless_*_gas_budget_spent refusal
 *   npm run integrators -- webhook-failures [--json]                  webhook endpoints failing now or given up (7 days)
 *
 * The last three, and show's usage, open the relayer's database (see scripts/gasBudgets.ts for how it is found).
 * It can run while the API is up: every write is one transaction (SQLite is in WAL mode);
 * the API reads a key's state on every request, so a change holds from the next request on.
 */
import { userInfo } from "node:os";
import { parseArgs } from "node:util";
import { loadApiConfig } from "../api/config";
import type { IntegratorAdministration, LimitChanges, OperatorAction } from "../api/store/integratorAdministration";
import { integratorMoveNames, integratorMoves, isIntegratorMove, type IntegratorMove } from "../api/store/integratorLifecycle";
import { openIntegratorAdministration } from "../api/store/openIntegratorAdministration";
import { openStore } from "../api/store/openStore";
import type { ApiKeyRecord, IntegratorRecord, Store } from "../api/store/store";
import { openApiDatabase } from "./apiDatabase";
import { priceRateLimitPerMinute } from "../api/quote/admission/quoteBuckets";
import { printTable } from "./textTable";
import type { RelayStore } from "../relayer/store/relayStore";
import { clearBudgetCharges, integratorUsage, listBudgetCharges, printUsage, relayerDatabaseFromEnv, type IntegratorUsage } from "./gasBudgets";
import type { GasBudgets } from "../relayer/config";
import { listWebhookFailures } from "./webhookFailures";

const USAGE = [
  "usage: npm run integrators -- <command>",
  "  list [--json] | show <slug> [--json] | keys <slug> [--json]",
  `  ${integratorMoveNames.join("|")} <slug> [--reason TEXT]`,
  "  revoke-key <key_id> [--reason TEXT]",
  "  limits <slug> | key-limits <key_id>  with any of --quote-rpm N --swap-rpm N --max-fee-bps N",
  "  reverts [--json] | clear-reverts <slug|taker address>   (the relayer's database: RELAYER_DATABASE_URL, RELAYER_DB_PATH or DATABASE_URL)",
  "  webhook-failures [--json]   (the relayer's database, as for reverts)",
  "  options: --by NAME (recorded as who made the change; default the OS user)",
].join("\n");

export type IntegratorsCommandContext = Readonly<{
  store: Store;
  admin: IntegratorAdministration;
  print: (line: string) => void;
  now: Date;
  /** Who acts when --by is not given. */
  defaultActor: string;
  /** GET /price's allowance per key is this many times its quote limit (PRICE_RATE_LIMIT_MULTIPLIER; default 5). */
  priceRateLimitMultiplier?: number;
  /** The relayer's database, opened only by the commands that read it (the caller closes it), and its gas budgets. */
  relayer?: { open: () => Promise<RelayStore>; budgets: GasBudgets };
}>;

const OPTIONS = {
  json: { type: "boolean" },
  reason: { type: "string" },
  by: { type: "string" },
  "quote-rpm": { type: "string" },
  "swap-rpm": { type: "string" },
  "max-fee-bps": { type: "string" },
} as const;

type Options = { json?: boolean; reason?: string; by?: string; "quote-rpm"?: string; "swap-rpm"?: string; "max-fee-bps"?: string };

/** Runs one command and returns the process exit code (0 done, 1 refused, 2 usage). */
export async function runIntegratorsCommand(args: readonly string[], context: IntegratorsCommandContext): Promise<number> {
  let positionals: string[];
  let options: Options;
  try {
    ({ positionals, values: options } = parseArgs({ args: [...args], options: OPTIONS, allowPositionals: true, strict: true }));
  } catch (error) {
    return usage(context, error instanceof Error ? error.message : String(error));
  }
  const [command, target, ...extra] = positionals;
  if (extra.length > 0) return usage(context, `unexpected argument ${extra[0]}`);
  const by: OperatorAction = { actor: options.by ?? context.defaultActor, at: context.now, reason: options.reason };

  if (command === "list" && target === undefined) return list(context, options.json === true);
  if (command === "webhook-failures" && target === undefined) {
    if (context.relayer === undefined) return usage(context, "the relayer's database is not configured for this command");
    const relayStore = await context.relayer.open();
    try {
      return await listWebhookFailures({ store: context.store, relayStore, print: context.print, now: context.now }, options.json === true);
    } finally {
      await relayStore.close();
    }
  }
  if ((command === "reverts" && target === undefined) || command === "clear-reverts") {
    if (command === "clear-reverts" && target === undefined) return usage(context, "clear-reverts needs a slug or a taker address");
    if (context.relayer === undefined) return usage(context, "the relayer's database is not configured for this command");
    const relayStore = await context.relayer.open();
    const budgets = { store: context.store, relayStore, budgets: context.relayer.budgets, print: context.print, now: context.now };
    try {
      return command === "reverts" ? await listBudgetCharges(budgets, options.json === true) : await clearBudgetCharges(budgets, target!);
    } finally {
      await relayStore.close();
    }
  }
  if (target === undefined) return usage(context, command === undefined ? undefined : `${command} needs an argument`);
  if (command === "show") return show(context, target, options.json === true);
  if (command === "keys") return keys(context, target, options.json === true);
  if (command !== undefined && isIntegratorMove(command)) return move(context, command, target, by);
  if (command === "revoke-key" || command === "key-limits") {
    if (!/^[1-9][0-9]{0,15}$/.test(target)) return usage(context, `${target} is not a key id (a positive integer, shown by keys <slug>)`);
    if (command === "revoke-key") return revokeKey(context, Number(target), by);
  }
  if (command === "limits" || command === "key-limits") {
    const changes = limitChanges(options);
    if (typeof changes === "string") return usage(context, changes);
    return command === "limits" ? profileLimits(context, target, changes, by) : keyLimits(context, Number(target), changes, by);
  }
  return usage(context, command === undefined ? undefined : `unknown command ${command}`);
}

function usage(context: IntegratorsCommandContext, problem: string | undefined): number {
  if (problem !== undefined) context.print(problem);
  context.print(USAGE);
  return 2;
}

/** The limit options as changes, or what is wrong with them. */
function limitChanges(options: Options): LimitChanges | string {
  const read = (name: "quote-rpm" | "swap-rpm" | "max-fee-bps", min: number, max: number): number | string | undefined => {
    const text = options[name];
    if (text === undefined) return undefined;
    const value = /^[0-9]{1,9}$/.test(text) ? Number(text) : Number.NaN;
    return value >= min && value <= max ? value : `--${name} must be an integer from ${min} to ${max}`;
  };
  const quote = read("quote-rpm", 1, 1_000_000);
  const swap = read("swap-rpm", 1, 1_000_000);
  const fee = read("max-fee-bps", 0, 10_000);
  for (const value of [quote, swap, fee]) if (typeof value === "string") return value;
  if (quote === undefined && swap === undefined && fee === undefined) return "give at least one of --quote-rpm, --swap-rpm, --max-fee-bps";
  return { quoteRateLimitPerMinute: quote as number | undefined, swapRateLimitPerMinute: swap as number | undefined, maxFeeBps: fee as number | undefined };
}

const noProfile = (slug: string) => `no integrator with slug ${slug}; npm run integrators -- list shows them`;
/** PRICE_RATE_LIMIT_MULTIPLIER's default, for a context that names none. */
const DEFAULT_PRICE_MULTIPLIER = 5;

const noKey = (keyId: number) => `no API key ${keyId}; npm run integrators -- keys <slug> lists a profile's keys`;

async function findBySlug(context: IntegratorsCommandContext, slug: string): Promise<IntegratorRecord | undefined> {
  const integrator = (await context.store.listIntegrators()).find((candidate) => candidate.slug === slug);
  if (integrator === undefined) context.print(noProfile(slug));
  return integrator;
}

function profileJson(integrator: IntegratorRecord) {
  return {
    integrator_id: integrator.id,
    slug: integrator.slug,
    status: integrator.status,
    display_name: integrator.displayName,
    owner_wallet: integrator.ownerWallet,
    fee_recipient: integrator.feeRecipient,
    max_fee_bps: integrator.maxFeeBps,
    quote_rate_limit_per_minute: integrator.quoteRateLimitPerMinute ?? null,
    swap_rate_limit_per_minute: integrator.swapRateLimitPerMinute ?? null,
    created_at: integrator.createdAt.toISOString(),
    approved_at: integrator.approvedAt?.toISOString() ?? null,
    // Approved or confirmed by an operator: only these profiles' demand counts toward token promotion.
    operator_approved_at: integrator.operatorApprovedAt?.toISOString() ?? null,
  };
}

function keyJson(key: ApiKeyRecord, integrator: IntegratorRecord, priceMultiplier: number) {
  return {
    key_id: key.id,
    label: key.label,
    prefix: key.prefix,
    status: key.revokedAt === undefined ? "active" : "revoked",
    quote_rate_limit_per_minute: key.quoteRateLimitPerMinute,
    price_rate_limit_per_minute: priceRateLimitPerMinute(key.quoteRateLimitPerMinute, priceMultiplier),
    swap_rate_limit_per_minute: key.swapRateLimitPerMinute,
    max_fee_bps: Math.min(integrator.maxFeeBps, key.maxFeeBps ?? integrator.maxFeeBps),
    created_at: key.createdAt.toISOString(),
    revoked_at: key.revokedAt?.toISOString() ?? null,
  };
}

async function list(context: IntegratorsCommandContext, json: boolean): Promise<number> {
  const integrators = await context.store.listIntegrators();
  if (json) {
    context.print(JSON.stringify(integrators.map(profileJson), null, 2));
    return 0;
  }
  if (integrators.length === 0) {
    context.print("no integrators");
    return 0;
  }
  printTable(context.print, [
    ["ID", "SLUG", "STATUS", "OWNER", "MAX_FEE_BPS", "CREATED", "NAME"],
    ...integrators.map((integrator) => [
      String(integrator.id),
      integrator.slug,
      // An active profile no operator vouched for (AUTO_APPROVE) is shown as such: `confirm` it.
      integrator.status === "active" && integrator.operatorApprovedAt === undefined ? "active (unconfirmed)" : integrator.status,
      integrator.ownerWallet,
      String(integrator.maxFeeBps),
      integrator.createdAt.toISOString(),
      integrator.displayName,
    ]),
  ]);
  return 0;
}

async function keys(context: IntegratorsCommandContext, slug: string, json: boolean): Promise<number> {
  const integrator = await findBySlug(context, slug);
  if (integrator === undefined) return 1;
  const rows = (await context.store.listApiKeys([integrator.id])).map((key) => keyJson(key, integrator, context.priceRateLimitMultiplier ?? DEFAULT_PRICE_MULTIPLIER));
  if (json) context.print(JSON.stringify(rows, null, 2));
  else if (rows.length === 0) context.print(`${slug} has no API keys`);
  else printKeys(context, rows);
  return 0;
}

function printKeys(context: IntegratorsCommandContext, rows: readonly ReturnType<typeof keyJson>[]): void {
  printTable(context.print, [
    ["KEY_ID", "LABEL", "PREFIX", "STATUS", "QUOTE_RPM", "PRICE_RPM", "SWAP_RPM", "MAX_FEE_BPS", "CREATED", "REVOKED"],
    ...rows.map((key) => [
      String(key.key_id),
      key.label,
      key.prefix,
      key.status,
      String(key.quote_rate_limit_per_minute),
      String(key.price_rate_limit_per_minute),
      String(key.swap_rate_limit_per_minute),
      String(key.max_fee_bps),
      key.created_at,
      key.revoked_at ?? "",
    ]),
  ]);
}

async function show(context: IntegratorsCommandContext, slug: string, json: boolean): Promise<number> {
  const integrator = await findBySlug(context, slug);
  if (integrator === undefined) return 1;
  const apiKeys = (await context.store.listApiKeys([integrator.id])).map((key) => keyJson(key, integrator, context.priceRateLimitMultiplier ?? DEFAULT_PRICE_MULTIPLIER));
  const audit = (await context.admin.listAudit(integrator.id)).map((entry) => ({
    at: entry.at.toISOString(),
    by: entry.actor,
    action: entry.action,
    key_id: entry.keyId ?? null,
    detail: entry.detail,
  }));
  const usage = await gasUsage(context, integrator);
  if (json) {
    context.print(JSON.stringify({ ...profileJson(integrator), api_keys: apiKeys, audit, gas_usage: typeof usage === "string" ? null : usage }, null, 2));
    return 0;
  }
  const profile = profileJson(integrator);
  for (const [name, value] of Object.entries(profile)) context.print(`${name.padEnd(28)} ${value ?? "(default)"}`);
  context.print("");
  if (apiKeys.length === 0) context.print("no API keys");
  else printKeys(context, apiKeys);
  context.print("");
  if (audit.length === 0) context.print("no operator changes recorded");
  else
    printTable(context.print, [
      ["AT", "BY", "ACTION", "KEY_ID", "DETAIL"],
      ...audit.map((entry) => [entry.at, entry.by, entry.action, entry.key_id === null ? "" : String(entry.key_id), JSON.stringify(entry.detail)]),
    ]);
  context.print("");
  if (typeof usage === "string") context.print(`unpaid-gas usage: ${usage}`);
  else printUsage(context.print, usage);
  return 0;
}

/** The integrator's unpaid-gas usage from the relayer's database, or why it cannot be read (the rest of `show` stands). */
async function gasUsage(context: IntegratorsCommandContext, integrator: IntegratorRecord): Promise<IntegratorUsage | string> {
  if (context.relayer === undefined) return "the relayer's database is not configured";
  let relayStore: RelayStore;
  try {
    relayStore = await context.relayer.open();
  } catch (error) {
    return `unavailable: ${error instanceof Error ? error.message : String(error)}`;
  }
  try {
    return await integratorUsage({ relayStore, budgets: context.relayer.budgets, now: context.now }, integrator);
  } finally {
    await relayStore.close();
  }
}

async function move(context: IntegratorsCommandContext, command: IntegratorMove, slug: string, by: OperatorAction): Promise<number> {
  const result = await context.admin.changeStatus(slug, command, by);
  switch (result.outcome) {
    case "changed": {
      const after =
        command === "approve"
          ? "; its owner can now create API keys"
          : command === "suspend"
            ? "; its keys are refused on trading endpoints until reinstate"
            : command === "confirm"
              ? "; its demand for unsupported tokens now counts toward promotion"
              : "";
      context.print(`${command}${command.endsWith("e") ? "d" : "ed"} ${slug} (${result.from} → ${result.to})${after}`);
      return 0;
    }
    case "refused":
      if (command === "confirm" && result.status === "active") {
        context.print(`${slug} is already approved by an operator`);
        return 0;
      }
      if (result.status === integratorMoves[command].to) {
        context.print(`${slug} is already ${result.status}`);
        return 0;
      }
      context.print(`cannot ${command} ${slug}: it is ${result.status}; ${command} applies to ${integratorMoves[command].from.join(" or ")} profiles`);
      return 1;
    case "not_found":
      context.print(noProfile(slug));
      return 1;
  }
}

async function revokeKey(context: IntegratorsCommandContext, keyId: number, by: OperatorAction): Promise<number> {
  const result = await context.admin.revokeKey(keyId, by);
  if (result.outcome === "revoked") context.print(`revoked key ${keyId}; trading endpoints refuse it from the next request on`);
  else if (result.outcome === "already_revoked") context.print(`key ${keyId} is already revoked`);
  else context.print(noKey(keyId));
  return result.outcome === "not_found" ? 1 : 0;
}

async function profileLimits(context: IntegratorsCommandContext, slug: string, changes: LimitChanges, by: OperatorAction): Promise<number> {
  const result = await context.admin.changeProfileLimits(slug, changes, by);
  if (result.outcome === "not_found") {
    context.print(noProfile(slug));
    return 1;
  }
  context.print(`changed the limits of ${slug} (${describeChanges(changes)}); ${result.keysUpdated} live key(s) updated, new keys get them too`);
  return 0;
}

async function keyLimits(context: IntegratorsCommandContext, keyId: number, changes: LimitChanges, by: OperatorAction): Promise<number> {
  const result = await context.admin.changeKeyLimits(keyId, changes, by);
  if (result.outcome === "not_found") {
    context.print(noKey(keyId));
    return 1;
  }
  context.print(`changed the limits of key ${keyId} (${describeChanges(changes)}); its fee cap never exceeds its profile's`);
  return 0;
}

function describeChanges(changes: LimitChanges): string {
  const parts: string[] = [];
  if (changes.quoteRateLimitPerMinute !== undefined) parts.push(`quote ${changes.quoteRateLimitPerMinute}/min`);
  if (changes.swapRateLimitPerMinute !== undefined) parts.push(`swap ${changes.swapRateLimitPerMinute}/min`);
  if (changes.maxFeeBps !== undefined) parts.push(`fee cap ${changes.maxFeeBps} bps`);
  return parts.join(", ");
}

async function main(): Promise<void> {
  const config = loadApiConfig();
  const store = await openApiDatabase(config, () => openStore(config));
  const admin = await openApiDatabase(config, () => openIntegratorAdministration(config)).catch(async (error: unknown) => {
    await store.close();
    throw error;
  });
  try {
    process.exitCode = await runIntegratorsCommand(process.argv.slice(2), {
      store,
      admin,
      print: (line) => process.stdout.write(`${line}\n`),
      now: new Date(),
      defaultActor: userInfo().username,
      priceRateLimitMultiplier: config.priceRateLimitMultiplier,
      relayer: relayerDatabaseFromEnv(process.env),
    });
  } finally {
    await admin.close();
    await store.close();
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error("integrators:", error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}
