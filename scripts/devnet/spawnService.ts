import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";

const ROOT = join(__dirname, "..", "..");
const OUTPUT_KEPT = 64 * 1024;

export type SpawnedService = {
  child: ChildProcess;
  /** The capture groups of the ready line. */
  ready: RegExpExecArray;
  /** What the process printed (the last 64 KiB). */
  output(): string;
  /** SIGTERM (or the given signal); resolves with the exit code once it exited. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  exited: Promise<number | null>;
};

/**
 * Runs a TypeScript entry point of this repository (such as `relayer/main.ts`) in a child process with
 * `env` added to this process's environment (less Hardhat's own variables), and resolves once its
 * output matches `readyLine`; rejects with everything it printed if it exits first. `echo` forwards
 * its output to this process's, prefixed with its name.
 */
export function spawnService(entry: string, env: NodeJS.ProcessEnv, readyLine: RegExp, options: { echo?: string } = {}): Promise<SpawnedService> {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("HARDHAT_")));
  const child = spawn(process.execPath, [require.resolve("ts-node/dist/bin.js"), "--transpile-only", entry], {
    cwd: ROOT,
    env: { ...inherited, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
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
    const check = () => {
      const ready = readyLine.exec(output);
      if (ready === null) return;
      child.stdout?.off("data", check);
      resolve({
        child,
        ready,
        output: () => output,
        exited,
        stop: (signal: NodeJS.Signals = "SIGTERM") => {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
          return exited;
        },
      });
    };
    child.stdout?.on("data", check);
    void exited.then((code) => reject(new Error(`${entry} exited early with ${code}:\n${output}`)));
  });
}
