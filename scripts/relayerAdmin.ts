/**
 * `npm run relayer-admin -- signers list [--json] | add <entry> | drain | retire | resume <address>`:
 * the relayer's signers as its database knows them, and the operator's switches. An added key is
 * opened by a running relayer; a drained signer takes no new relays on any relayer of that database
 * (each reads the decision within RELAYER_SIGNER_STATE_POLL_MS) and finishes the ones it has; a
 * retired one also has its key closed once idle; `resume` gives it work again. The database is the relayer's:
 * RELAYER_DATABASE_URL or DATABASE_URL (PostgreSQL, shared by every relayer), else RELAYER_DB_PATH.
 * On PostgreSQL it opens the CLIs' pool (SERVICE_POOLS.relayerCli, 2 connections), never the relayer's 10.
 */
import { parseArgs } from "node:util";
import { formatEther, getAddress, isAddress } from "viem";
import { openKeyBackend } from "../relayer/signing/openKeyBackends";
import { describeSignerSpec, parseSignerSpecs, SignerSpecError, type SignerSpec } from "../relayer/signing/signerSpecs";
import type { RelayStore, SignerState } from "../relayer/store/relayStore";
import { relayerDatabaseFromEnv } from "./gasBudgets";
import { printTable } from "./textTable";

const USAGE = [
  "usage: npm run relayer-admin -- signers <command>",
  "  signers list [--json]       every signer with a report or a decision: backend, state, balance, pending, daily spend, top-ups",
  "  signers add <entry>         a key running relayers open and sign with (a pkcs11: or keystore: entry of RELAYER_SIGNERS' form)",
  "      [--relayer <id>]        only the relayer with this RELAYER_ID opens it (default: the first relayer to poll)",
  "  signers drain <address>     no new relays for it on any relayer of this database; it finishes its pending ones",
  "      [--force]               also for an address no relayer has reported yet (drain a key before its relayer starts)",
  "  signers retire <address>    drained, and once its pending ones are final its relayer closes its key",
  "  signers resume <address>    it takes relays again (a retired key is opened again)",
  "  topups list [--json]        the treasury's top-ups of signers, newest first: signer, amount, status, transaction",
  "  (the relayer's database: RELAYER_DATABASE_URL or DATABASE_URL for PostgreSQL, else RELAYER_DB_PATH)",
].join("\n");

export type RelayerAdminContext = Readonly<{ open: () => Promise<RelayStore>; print: (line: string) => void; now: Date }>;

/** Runs one command and returns the process exit code (0 done, 1 refused: nothing to act on, 2 usage). */
export async function runRelayerAdminCommand(args: readonly string[], context: RelayerAdminContext): Promise<number> {
  let positionals: string[];
  let json: boolean;
  let force: boolean;
  let relayer: string | undefined;
  try {
    const parsed = parseArgs({ args: [...args], options: { json: { type: "boolean" }, force: { type: "boolean" }, relayer: { type: "string" } }, allowPositionals: true, strict: true });
    positionals = parsed.positionals;
    json = parsed.values.json === true;
    force = parsed.values.force === true;
    relayer = parsed.values.relayer;
  } catch (error) {
    return usage(context, error instanceof Error ? error.message : String(error));
  }
  const [group, command, target, ...extra] = positionals;
  if (group === "topups") {
    if (command !== "list") return usage(context, command === undefined ? "topups needs a command" : `unknown command topups ${command}`);
    if (target !== undefined) return usage(context, `topups list takes no argument (got ${target}); every top-up is listed, newest first`);
    if (force) return usage(context, "--force applies to signers drain only");
    return withStore(context, (store) => listTopUps(store, context, json));
  }
  if (group !== "signers") return usage(context, group === undefined ? undefined : `unknown command ${group}`);
  if (extra.length > 0) return usage(context, `unexpected argument ${extra[0]}`);
  if (force && command !== "drain") return usage(context, "--force applies to signers drain only");
  if (relayer !== undefined && command !== "add") return usage(context, "--relayer applies to signers add only");
  if (command === "add") {
    if (target === undefined) return usage(context, "signers add needs a key entry: pkcs11:…?module-path=…&pin-source=file:… or keystore:<file|name>?password-file=<file>");
    if (relayer !== undefined && relayer.trim() === "") return usage(context, "--relayer needs a RELAYER_ID");
    return withStore(context, (store) => addSigner(store, context, target, relayer));
  }
  if (command === "list") {
    if (target !== undefined) return usage(context, `signers list takes no argument (got ${target}); every signer on record is listed`);
    return withStore(context, (store) => listSigners(store, context, json));
  }
  if (command === "drain" || command === "resume" || command === "retire") {
    if (target === undefined) return usage(context, `signers ${command} needs a signer address (see signers list)`);
    if (!isAddress(target, { strict: false })) return usage(context, `${target} is not an address (0x and 40 hex digits)`);
    const state: SignerState = command === "drain" ? "drained" : command === "retire" ? "retired" : "active";
    return withStore(context, (store) => setState(store, context, getAddress(target), state, force));
  }
  return usage(context, command === undefined ? "signers needs a command" : `unknown command signers ${command}`);
}

function usage(context: RelayerAdminContext, problem: string | undefined): number {
  if (problem !== undefined) context.print(problem);
  context.print(USAGE);
  return 2;
}

async function withStore(context: RelayerAdminContext, work: (store: RelayStore) => Promise<number>): Promise<number> {
  const store = await context.open();
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/**
 * A typo'd address must not read as done: a drain of an address no relayer uses protects nothing.
 * Only a signer on record (reported by a relayer, or with a decision) is acted on, unless a drain
 * says `--force` (a key drained before its relayer first starts). A resume needs a drain to undo.
 */
async function setState(store: RelayStore, context: RelayerAdminContext, signer: `0x${string}`, state: SignerState, force: boolean): Promise<number> {
  const records = await store.signerStates();
  const known = records.find((record) => record.signer === signer);
  const command = COMMAND_OF_STATE[state];
  if (known === undefined && !(state === "drained" && force)) {
    context.print(`${signer} is not a known signer of this relayer database: no relayer has reported it and it has no decision on record`);
    context.print(records.length === 0 ? "known signers: none yet (a running relayer reports its signers within RELAYER_SIGNER_STATE_POLL_MS of its start)" : `known signers: ${records.map((record) => record.signer).join(", ")}`);
    const next = state === "drained" ? "; to drain a key before its relayer first starts, repeat with --force" : "";
    context.print(`check the address with \`npm run relayer-admin -- signers list\` and the database (RELAYER_DATABASE_URL, DATABASE_URL or RELAYER_DB_PATH)${next}`);
    return 1;
  }
  if (known?.state === state) {
    context.print(`${signer} is already ${state}: nothing to ${command}`);
    return 0;
  }
  await store.setSignerState(signer, state, context.now);
  const verb = {
    drained: "drained: it takes no new relays and finishes its pending ones",
    retired: "retired: it takes no new relays; once its pending ones are final its relayer closes its key (signers list: pending 0); `signers resume` opens it again",
    active: "resumed: it takes relays again",
  }[state];
  context.print(`${signer} ${verb} (running relayers pick this up within RELAYER_SIGNER_STATE_POLL_MS, default 2 s)`);
  if (known?.report === undefined) context.print(`note: no relayer on this database has reported ${signer} yet; the decision applies once one signs with it`);
  return 0;
}

const COMMAND_OF_STATE: Readonly<Record<SignerState, string>> = { drained: "drain", retired: "retire", active: "resume" };

/**
 * Records a key for running relayers to open. The entry is opened here first (its PIN or password
 * file read, the key found), so a typo fails now, at the operator's prompt, and the address is known;
 * then it is closed and only the entry (paths, never a secret) is stored. A raw key is refused: it
 * would sit in the database in clear. An address a relayer already signs with from its own
 * RELAYER_SIGNERS, or one drained or retired, is refused with what to do instead.
 */
async function addSigner(store: RelayStore, context: RelayerAdminContext, entry: string, relayerId: string | undefined): Promise<number> {
  let spec: SignerSpec;
  try {
    const specs = parseSignerSpecs(entry);
    if (specs.length > 1) throw new SignerSpecError("gives several signers: add one at a time");
    spec = specs[0]!;
  } catch (error) {
    context.print(`the entry is not a signer: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
  if (spec.kind === "unsafe") {
    context.print("a raw key (unsafe:) is never added to running relayers: it would be stored in the database in clear");
    context.print("encrypt it first (`npm run keystore -- import <name>`), then add keystore:<name>?password-file=<file>");
    return 2;
  }
  let address: `0x${string}`;
  try {
    // A raw key was refused above, so the environment's production flag changes nothing here.
    const backend = await openKeyBackend(spec, { production: true });
    address = backend.address;
    await backend.close();
  } catch (error) {
    context.print(`cannot open ${describeSignerSpec(spec)}: ${error instanceof Error ? error.message : String(error)}`);
    context.print("the relayers open the entry as written, so it must work here too: check the module, token and key label, or the keystore and its password file");
    return 1;
  }
  const known = (await store.signerStates()).find((record) => record.signer === address);
  if (known !== undefined && known.state !== "active") {
    context.print(`${address} is ${known.state}: \`npm run relayer-admin -- signers resume ${address}\` gives it work again (its key is opened again by the relayer that held it)`);
    return 1;
  }
  if (known !== undefined && known.added === undefined && known.report !== undefined) {
    context.print(`${address} is already a signer of relayer ${known.report.relayerId} (from its RELAYER_SIGNERS): nothing to add`);
    return 1;
  }
  if (known?.added !== undefined && known.added.entry === entry && known.added.relayerId === relayerId) {
    context.print(`${address} is already added: nothing to add`);
    return 0;
  }
  await store.addSignerKey(address, { entry, relayerId }, context.now);
  const holder = known?.report?.relayerId;
  if (known?.added !== undefined && holder !== undefined) {
    // Re-added (a new entry, another relayer named): the relayer holding the key keeps it until it lets it go.
    context.print(`${address}: its entry is updated (${describeSignerSpec(spec)}); relayer ${holder} holds the key and keeps it: to move it, retire it, wait for pending 0 in \`signers list\`, then resume it`);
    return 0;
  }
  const where = relayerId === undefined ? "the first running relayer to poll opens it" : `relayer ${relayerId} opens it`;
  context.print(`${address} added (${describeSignerSpec(spec)}): ${where} within RELAYER_SIGNER_STATE_POLL_MS (default 2 s) and gives it relays; \`signers list\` shows it once it has`);
  return 0;
}

/** What the treasury has paid each signer, all time: mined top-ups only (an intent or a failed one paid nothing yet). */
async function minedTopUpTotals(store: RelayStore): Promise<Map<string, { wei: bigint; count: number }>> {
  const totals = new Map<string, { wei: bigint; count: number }>();
  // Every row, not the list's default 1,000: a total over the newest thousand would be wrong.
  for (const topUp of await store.topUps({ limit: Number.MAX_SAFE_INTEGER })) {
    if (topUp.status !== "mined") continue;
    const total = totals.get(topUp.signer) ?? { wei: 0n, count: 0 };
    totals.set(topUp.signer, { wei: total.wei + topUp.amountWei, count: total.count + 1 });
  }
  return totals;
}

async function listSigners(store: RelayStore, context: RelayerAdminContext, json: boolean): Promise<number> {
  const topUps = await minedTopUpTotals(store);
  const rows = (await store.signerStates()).map((record) => ({
    address: record.signer,
    backend: record.report?.backend ?? null,
    state: record.state,
    added_entry: record.added?.entry ?? null,
    added_for_relayer: record.added?.relayerId ?? null,
    state_changed_at: record.stateChangedAt?.toISOString() ?? null,
    relayer_id: record.report?.relayerId ?? null,
    balance_wei: record.report?.balanceWei?.toString() ?? null,
    pending: record.report?.pending ?? null,
    daily_spend_wei: record.report?.dailySpendWei.toString() ?? null,
    reported_at: record.report?.at.toISOString() ?? null,
    topped_up_wei: (topUps.get(record.signer)?.wei ?? 0n).toString(),
    topups: topUps.get(record.signer)?.count ?? 0,
  }));
  if (json) {
    context.print(JSON.stringify(rows, null, 2));
    return 0;
  }
  if (rows.length === 0) {
    context.print("no signers on record: a running relayer reports its signers within RELAYER_SIGNER_STATE_POLL_MS of its start");
    return 0;
  }
  printTable(context.print, [
    ["address", "backend", "state", "balance (ETH)", "pending", "daily spend (ETH)", "topped up (ETH)", "relayer", "reported"],
    ...rows.map((row) => [
      row.address,
      row.backend ?? (row.added_entry === null ? "-" : `${row.added_entry.slice(0, row.added_entry.indexOf(":"))} (added, not opened yet)`),
      row.state,
      row.balance_wei === null ? "-" : formatEther(BigInt(row.balance_wei)),
      row.pending === null ? "-" : String(row.pending),
      row.daily_spend_wei === null ? "-" : formatEther(BigInt(row.daily_spend_wei)),
      row.topups === 0 ? "-" : `${formatEther(BigInt(row.topped_up_wei))} (${row.topups})`,
      row.relayer_id ?? "-",
      row.reported_at === null ? "-" : `${Math.round((context.now.getTime() - Date.parse(row.reported_at)) / 1000)} s ago`,
    ]),
  ]);
  return 0;
}

async function listTopUps(store: RelayStore, context: RelayerAdminContext, json: boolean): Promise<number> {
  const rows = (await store.topUps()).map((topUp) => ({
    id: topUp.id,
    signer: topUp.signer,
    amount_eth: formatEther(topUp.amountWei),
    status: topUp.status,
    tx_hash: topUp.txHash,
    treasury: topUp.treasury,
    nonce: topUp.nonce,
    created_at: topUp.createdAt.toISOString(),
    updated_at: topUp.updatedAt.toISOString(),
  }));
  if (json) {
    context.print(JSON.stringify(rows, null, 2));
    return 0;
  }
  if (rows.length === 0) {
    context.print("no top-ups on record: with RELAYER_TREASURY_SIGNER set, a signer below RELAYER_MIN_SIGNER_BALANCE_ETH is topped up and listed here");
    return 0;
  }
  printTable(context.print, [["signer", "amount (ETH)", "status", "transaction", "time"], ...rows.map((row) => [row.signer, row.amount_eth, row.status, row.tx_hash, row.created_at])]);
  return 0;
}

async function main(): Promise<void> {
  const { open } = relayerDatabaseFromEnv(process.env);
  process.exitCode = await runRelayerAdminCommand(process.argv.slice(2), { open, print: (line) => process.stdout.write(`${line}\n`), now: new Date() });
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error("relayer-admin:", error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}
