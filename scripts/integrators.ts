/**
 * Operator CLI for integrator profiles, on the API's database (API_DB_PATH, default data/api.sqlite):
 *
 *   npm run integrators -- list             every profile with its status
 *   npm run integrators -- approve <slug>   pending → active, so the owner can create API keys
 *
 * It can run while the API is up: the database is in WAL mode and every write is one transaction.
 */
import { loadApiConfig } from "../api/config";
import { openSqliteStore } from "../api/store/sqlite/sqliteStore";
import type { Store } from "../api/store/store";

const USAGE = "usage: npm run integrators -- list | approve <slug>";

/** Runs one command and returns the process exit code (0 done, 1 refused, 2 usage). */
export async function runIntegratorsCommand(args: readonly string[], store: Store, print: (line: string) => void, now: Date): Promise<number> {
  const [command, ...rest] = args;
  if (command === "list" && rest.length === 0) {
    const integrators = await store.listIntegrators();
    if (integrators.length === 0) {
      print("no integrators");
      return 0;
    }
    const rows = [
      ["ID", "SLUG", "STATUS", "OWNER", "MAX_FEE_BPS", "CREATED", "NAME"],
      ...integrators.map((integrator) => [
        String(integrator.id),
        integrator.slug,
        integrator.status,
        integrator.ownerWallet,
        String(integrator.maxFeeBps),
        integrator.createdAt.toISOString(),
        integrator.displayName,
      ]),
    ];
    const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
    for (const row of rows) print(row.map((cell, column) => cell.padEnd(widths[column]!)).join("  ").trimEnd());
    return 0;
  }
  if (command === "approve" && rest.length === 1) {
    const slug = rest[0]!;
    const result = await store.approveIntegrator(slug, now);
    switch (result.outcome) {
      case "approved":
        print(`approved ${slug} (integrator ${result.integrator.id}); its owner can now create API keys`);
        return 0;
      case "already_active":
        print(`${slug} is already active`);
        return 0;
      case "not_found":
        print(`no integrator with slug ${slug}`);
        return 1;
    }
  }
  print(USAGE);
  return 2;
}

async function main(): Promise<void> {
  const store = openSqliteStore(loadApiConfig().dbPath);
  try {
    process.exitCode = await runIntegratorsCommand(process.argv.slice(2), store, (line) => process.stdout.write(`${line}\n`), new Date());
  } finally {
    await store.close();
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error("integrators:", error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}
