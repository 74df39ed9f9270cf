import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { stopTrackedChild, trackChild } from "./processGroups";

const ROOT = join(__dirname, "..", "..");
const OUTPUT_KEPT = 64 * 1024;

export type SpawnedService = {
  child: ChildProcess;
  /** The capture groups of the ready line. */
  ready: RegExpExecArray;
  /** What the process printed (the last 64 KiB). */
  output(): string;
  /**
   * SIGTERM (or the given signal), then SIGKILL to its process group if it has not exited within
   * 10 s; resolves with the exit code once it exited, and nothing it started is left.
   */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  exited: Promise<number | null>;
};

export type SpawnServiceOptions = {
  /** Forwards its output to this process's. */
  echo?: string;
  /**
   * Runs it in a process group of its own (default), stopped as a whole: what it starts goes with it.
   * False for a service that belongs to its parent's group (npm start's relayer is in the devnet's).
   */
  ownGroup?: boolean;
  /** Stops it and rejects, with what it printed, if it is not ready this long after the spawn (default: no bound). */
  readyWithinMs?: number;
};

/**
 * Runs a TypeScript entry point of this repository (such as `relayer/main.ts`) in a child process with
 * `env` added to this process's environment (less Hardhat's own variables), and resolves once its
 * output matches `readyLine`; rejects with everything it printed if it exits first. The child is
 * tracked (processGroups.ts): it is stopped when this process ends or, in a test run, when the run
 * ends, even if whoever started it never got a handle to stop it (a start that timed out).
 */
export function spawnService(entry: string, env: NodeJS.ProcessEnv, readyLine: RegExp, options: SpawnServiceOptions = {}): Promise<SpawnedService> {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("HARDHAT_")));
  const ownGroup = options.ownGroup ?? true;
  // CPU_PROF_DIR: each service writes a V8 CPU profile there when it exits (Node refuses --cpu-prof in NODE_OPTIONS).
  const profile = process.env.CPU_PROF_DIR === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${process.env.CPU_PROF_DIR}`];
  const child = spawn(process.execPath, [...profile, require.resolve("ts-node/dist/bin.js"), "--transpile-only", entry], {
    cwd: ROOT,
    env: { ...inherited, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: ownGroup,
  });
  trackChild(child, ownGroup);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  let output = "";
  const collect = (stream: NodeJS.WritableStream) => (chunk: Buffer) => {
    // A long-running service prints without end: keep the recent part, enough for an error report.
    output = (output + chunk.toString()).slice(-OUTPUT_KEPT);
    if (options.echo !== undefined) stream.write(chunk);
  };
  child.stdout?.on("data", collect(process.stdout));
  child.stderr?.on("data", collect(process.stderr));
  return new Promise((resolve, reject) => {
    const bound = options.readyWithinMs;
    const late =
      bound === undefined
        ? undefined
        : setTimeout(() => {
            reject(new Error(`${entry} was not ready within ${bound} ms; it printed:\n${output}`));
            void stopTrackedChild(child, "SIGTERM");
          }, bound);
    const check = () => {
      const ready = readyLine.exec(output);
      if (ready === null) return;
      clearTimeout(late);
      child.stdout?.off("data", check);
      resolve({
        child,
        ready,
        output: () => output,
        exited,
        stop: async (signal: NodeJS.Signals = "SIGTERM") => {
          await stopTrackedChild(child, signal);
          return exited;
        },
      });
    };
    child.stdout?.on("data", check);
    void exited.then((code) => {
      clearTimeout(late);
      reject(new Error(`${entry} exited early with ${code}:\n${output}`));
    });
  });
}
