/**
 * `npm run relayer-admin -- signers list [--json] | drain <address> | resume <address>`: the relayer's
 * signers as its database knows them, and the operator's drain switch. A drained signer takes no new
 * relays on any relayer of that database (each reads the decision within RELAYER_SIGNER_STATE_POLL_MS)
 * and finishes the ones it has; `resume` gives it work again. The database is the relayer's:
 * RELAYER_DATABASE_URL or DATABASE_URL (PostgreSQL, shared by every relayer), else RELAYER_DB_PATH.
 */
import { parseArgs } from "node:util";
import { formatEther, getAddress, isAddress } from "viem";
import type { RelayStore, SignerState } from "../relayer/store/relayStore";
import { relayerDatabaseFromEnv } from "./gasBudgets";
import { printTable } from "./textTable";

const USAGE = [
  "usage: npm run relayer-admin -- signers <command>",
  "  signers list [--json]       every signer with a report or a decision: backend, state, balance, pending, daily spend",
  "  signers drain <address>     no new relays for it on any relayer of this database; it finishes its pending ones",
  "  signers resume <address>    it takes relays again",
  "  topups list [--json]        the treasury's top-ups of signers, newest first: signer, amount, status, transaction",
  "  (the relayer's database: RELAYER_DATABASE_URL or DATABASE_URL for PostgreSQL, else RELAYER_DB_PATH)",
].join("\n");

export type RelayerAdminContext = Readonly<{ open: () => Promise<RelayStore>; print: (line: string) => void; now: Date }>;

/** Runs one command and returns the process exit code (0 done, 2 usage). */
export async function runRelayerAdminCommand(args: readonly string[], context: RelayerAdminContext): Promise<number> {
  let positionals: string[];
  let json: boolean;
  try {
    const parsed = parseArgs({ args: [...args], options: { json: { type: "boolean" } }, allowPositionals: true, strict: true });
    positionals = parsed.positionals;
    json = parsed.values.json === true;
  } catch (error) {
    return usage(context, error instanceof Error ? error.message : String(error));
  }
  const [group, command, target, ...extra] = positionals;
  if (group === "topups") {
    if (command === "list" && target === undefined && extra.length === 0) return withStore(context, (store) => listTopUps(store, context, json));
    return usage(context, command === undefined ? "topups needs a command" : `unknown command topups ${command}`);
  }
  if (group !== "signers") return usage(context, group === undefined ? undefined : `unknown command ${group}`);
  if (extra.length > 0) return usage(context, `unexpected argument ${extra[0]}`);
  if (command === "list" && target === undefined) return withStore(context, (store) => listSigners(store, context, json));
  if (command === "drain" || command === "resume") {
    if (target === undefined) return usage(context, `signers ${command} needs a signer address (see signers list)`);
    if (!isAddress(target, { strict: false })) return usage(context, `${target} is not an address (0x and 40 hex digits)`);
    const state: SignerState = command === "drain" ? "drained" : "active";
    return withStore(context, (store) => setState(store, context, getAddress(target), state));
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

async function setState(store: RelayStore, context: RelayerAdminContext, signer: `0x${string}`, state: SignerState): Promise<number> {
  const known = (await store.signerStates()).find((record) => record.signer === signer);
  await store.setSignerState(signer, state, context.now);
  const verb = state === "drained" ? "drained: it takes no new relays and finishes its pending ones" : "resumed: it takes relays again";
  context.print(`${signer} ${verb} (running relayers pick this up within RELAYER_SIGNER_STATE_POLL_MS, default 2 s)`);
  if (known?.report === undefined) context.print(`note: no relayer on this database has reported ${signer} yet; the decision applies once one signs with it`);
  return 0;
}

async function listSigners(store: RelayStore, context: RelayerAdminContext, json: boolean): Promise<number> {
  const rows = (await store.signerStates()).map((record) => ({
    address: record.signer,
    backend: record.report?.backend ?? null,
    state: record.state,
    state_changed_at: record.stateChangedAt?.toISOString() ?? null,
    relayer_id: record.report?.relayerId ?? null,
    balance_wei: record.report?.balanceWei?.toString() ?? null,
    pending: record.report?.pending ?? null,
    daily_spend_wei: record.report?.dailySpendWei.toString() ?? null,
    reported_at: record.report?.at.toISOString() ?? null,
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
    ["address", "backend", "state", "balance (ETH)", "pending", "daily spend (ETH)", "relayer", "reported"],
    ...rows.map((row) => [
      row.address,
      row.backend ?? "-",
      row.state,
      row.balance_wei === null ? "-" : formatEther(BigInt(row.balance_wei)),
      row.pending === null ? "-" : String(row.pending),
      row.daily_spend_wei === null ? "-" : formatEther(BigInt(row.daily_spend_wei)),
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
