/**
 * The soak's processes: the APIs and relayers (real child processes, `api/main.ts` and
 * `relayer/main.ts` as `npm run api` / `npm run relayer` run them), killed and restarted on the
 * fault schedule, and the resident memory of every process read from /proc.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnService, type SpawnedService } from "../devnet/spawnService";
import type { MemorySample, ProcessLife } from "./soakReport";

/** VmRSS of one process in KiB; undefined once it is gone. */
export function readRssKiB(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match === null ? undefined : Number(match[1]);
  } catch {
    return undefined;
  }
}

/** The RSS of a process and all its descendants (PostgreSQL is a postmaster and one backend per connection). */
export function readTreeRssKiB(rootPid: number): number | undefined {
  const root = readRssKiB(rootPid);
  if (root === undefined) return undefined;
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command name sits in parentheses and may hold spaces: the parent pid is the second field after it.
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // Gone between the listing and the read.
    }
  }
  let total = root;
  const stack = [...(children.get(rootPid) ?? [])];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    total += readRssKiB(pid) ?? 0;
    stack.push(...(children.get(pid) ?? []));
  }
  return total;
}

type Definition = { entry: string; env: NodeJS.ProcessEnv; readyLine: RegExp };

export type SoakFleet = {
  /** Starts a named service (again, after a kill, with the same environment and so the same port). */
  start(name: string, definition?: Definition): Promise<SpawnedService>;
  /** SIGKILL, as an OOM killer or a lost machine would; resolves once it exited. */
  kill(name: string): Promise<void>;
  /** An extra process to sample (the chain, PostgreSQL), named; `pid` undefined while it is down. */
  watch(name: string, pid: () => number | undefined, product: boolean): void;
  /** Reads every process's RSS once. */
  sample(atMs: number): void;
  samples: MemorySample[];
  lives: ProcessLife[];
  /** Stops every service (SIGTERM) and writes each instance's last output to `logDir`. */
  stopAll(): Promise<void>;
};

/** `now()`: ms since the load started (negative before). */
export function soakFleet(logDir: string, now: () => number): SoakFleet {
  const definitions = new Map<string, Definition>();
  const running = new Map<string, SpawnedService>();
  const instances: { name: string; service: SpawnedService }[] = [];
  const watched = new Map<string, { pid: () => number | undefined; product: boolean }>();
  const samples: MemorySample[] = [];
  const lives: ProcessLife[] = [];
  const seen = new Set<string>();

  const note = (name: string, pid: number, product: boolean) => {
    if (seen.has(`${name}:${pid}`)) return;
    seen.add(`${name}:${pid}`);
    lives.push({ process: name, pid, startedMs: now(), product });
  };

  return {
    samples,
    lives,
    async start(name, definition) {
      if (definition !== undefined) definitions.set(name, definition);
      const known = definitions.get(name);
      if (known === undefined) throw new Error(`soak: no definition for ${name}`);
      const service = await spawnService(known.entry, known.env, known.readyLine);
      running.set(name, service);
      instances.push({ name, service });
      note(name, service.child.pid!, true);
      return service;
    },
    async kill(name) {
      const service = running.get(name);
      if (service === undefined) throw new Error(`soak: ${name} is not running`);
      running.delete(name);
      await service.stop("SIGKILL");
    },
    watch(name, pid, product) {
      watched.set(name, { pid, product });
    },
    sample(atMs) {
      for (const [name, service] of running) {
        const rssKiB = readRssKiB(service.child.pid!);
        if (rssKiB !== undefined) samples.push({ atMs, process: name, pid: service.child.pid!, rssKiB });
      }
      for (const [name, { pid, product }] of watched) {
        const current = pid();
        if (current === undefined) continue;
        note(name, current, product);
        const rssKiB = readTreeRssKiB(current);
        if (rssKiB !== undefined) samples.push({ atMs, process: name, pid: current, rssKiB });
      }
    },
    async stopAll() {
      // A service that does not stop within 15 s of SIGTERM is killed: the soak must leave nothing behind.
      await Promise.all(
        [...running.values()].map((service) => {
          const timer = setTimeout(() => void service.stop("SIGKILL"), 15_000);
          return service.stop("SIGTERM").finally(() => clearTimeout(timer));
        }),
      );
      running.clear();
      mkdirSync(logDir, { recursive: true });
      for (const { name, service } of instances) writeFileSync(join(logDir, `${name}-${service.child.pid}.log`), service.output());
    },
  };
}
