import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";

const ROOT = join(__dirname, "..", "..");

export type SpawnedDevnet = {
  child: ChildProcess;
  rpcUrl: string;
  apiUrl: string;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
  /** Ctrl-C, as a user would: resolves with the exit code once everything stopped. */
  stop(): Promise<number | null>;
};

/**
 * Runs `npm start`'s script (scripts/devnet.ts) in a child process with `env` added to this
 * process's environment (less Hardhat's own variables), and resolves once it has printed its banner.
 * Rejects, with everything it printed, if it exits first.
 */
export function spawnDevnet(env: NodeJS.ProcessEnv): Promise<SpawnedDevnet> {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("HARDHAT_")));
  const child = spawn(process.execPath, [require.resolve("ts-node/dist/bin.js"), "--transpile-only", "scripts/devnet.ts"], {
    cwd: ROOT,
    env: { ...inherited, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    let output = "";
    child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const rpcUrl = /Devnet ready[\s\S]*?RPC URL\s+(\S+)/.exec(output)?.[1];
      const apiUrl = /API URL\s+(\S+)/.exec(output)?.[1];
      if (rpcUrl && apiUrl && output.includes("Press Ctrl-C")) {
        resolve({
          child,
          rpcUrl,
          apiUrl,
          output: () => output,
          stop: () => {
            if (child.exitCode === null) child.kill("SIGINT");
            return exited;
          },
        });
      }
    });
    void exited.then((code) => reject(new Error(`devnet exited early with ${code}:\n${output}`)));
  });
}
