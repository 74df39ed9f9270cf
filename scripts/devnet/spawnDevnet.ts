import type { ChildProcess } from "node:child_process";
import { spawnService, type SpawnServiceOptions } from "./spawnService";

export type SpawnedDevnet = {
  child: ChildProcess;
  rpcUrl: string;
  apiUrl: string;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
  /** Ctrl-C, as a user would: resolves with the exit code once everything stopped (its relayer included). */
  stop(): Promise<number | null>;
};

/**
 * Runs `npm start`'s script (scripts/devnet.ts) in a child process of its own process group, with
 * `env` added to this process's environment (less Hardhat's own variables), and resolves once it has
 * printed its banner. Rejects, with everything it printed, if it exits first. Its relayer runs in
 * its group: stopping it, or the end of a test run that never got this handle, stops both.
 */
export async function spawnDevnet(env: NodeJS.ProcessEnv, options: Pick<SpawnServiceOptions, "readyWithinMs"> = {}): Promise<SpawnedDevnet> {
  const service = await spawnService("scripts/devnet.ts", env, /Devnet ready[\s\S]*?RPC URL\s+(\S+)[\s\S]*?API URL\s+(\S+)[\s\S]*Press Ctrl-C/, options);
  return {
    child: service.child,
    rpcUrl: service.ready[1]!,
    apiUrl: service.ready[2]!,
    output: service.output,
    stop: () => service.stop("SIGINT"),
  };
}
