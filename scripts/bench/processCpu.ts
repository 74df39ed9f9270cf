import { readdirSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";

/** Clock ticks per second of /proc's CPU times (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** The fields of a /proc stat line after the command's closing parenthesis (state is field 3, so index 0 here is field 3). */
function statFields(path: string): string[] | undefined {
  try {
    const stat = readFileSync(path, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

/** CPU seconds (user + system) `pid` has used, all its threads, with those of its children it waited for; 0 once it is gone. */
function cpuSecondsOf(pid: number): number {
  // utime 14, stime 15, cutime 16, cstime 17.
  const fields = statFields(`/proc/${pid}/stat`);
  return fields === undefined ? 0 : (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / TICKS_PER_SECOND;
}

/** CPU seconds of `pid`'s main thread alone: for node, the event loop, which can use one core at most. */
function mainThreadSecondsOf(pid: number): number {
  const fields = statFields(`/proc/${pid}/task/${pid}/stat`);
  return fields === undefined ? 0 : (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

function parentOf(pid: number): number | undefined {
  const fields = statFields(`/proc/${pid}/stat`);
  return fields === undefined ? undefined : Number(fields[1]);
}

function allPids(): number[] {
  return readdirSync("/proc").filter((name) => /^\d+$/.test(name)).map(Number);
}

/** The PostgreSQL server whose data directory is `directory` (its postmaster) and the backends it started. */
export function postgresPids(directory: string): number[] {
  const pids = allPids();
  const postmaster = pids.find((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").includes(directory);
    } catch {
      return false;
    }
  });
  return postmaster === undefined ? [] : [postmaster, ...pids.filter((pid) => parentOf(pid) === postmaster)];
}

/** Named groups of processes (by pid, re-listed at each sample). */
export type ProcessGroups = Record<string, () => number[]>;
/** Named processes whose main thread is measured on its own (an API's event loop). */
export type MainThreads = Record<string, number>;

/** The name under which the bench's own process (autocannon's load) is reported. */
export const LOAD_GENERATOR = "load generator (this process)";

/** What a window of work cost, from /proc: CPU seconds by group (user + system), not wall-clock shares. */
export type CpuWindow<T> = {
  result: T;
  /** Wall-clock seconds of the window. */
  seconds: number;
  /** CPU seconds used meanwhile by each group, by each main thread (under its own name) and by this process ({@link LOAD_GENERATOR}). */
  cpuSeconds: Record<string, number>;
  /** Each entry of `cpuSeconds` as a share of one core over the window (100 % = one core busy the whole time). */
  cpuPercent: Record<string, number>;
  /** Every process on the machine, other work included, as a share of one core (up to 100 % per core). */
  machinePercent: number;
};

/**
 * Runs `work` and returns the CPU time each group of processes used meanwhile, measured from /proc:
 * unlike requests per second, CPU time per request does not depend on what else shares the cores.
 */
export async function measureCpu<T>(groups: ProcessGroups, work: () => Promise<T>, mainThreads: MainThreads = {}): Promise<CpuWindow<T>> {
  const sample = () => ({
    groups: Object.fromEntries(Object.entries(groups).map(([name, pids]) => [name, new Map(pids().map((pid) => [pid, cpuSecondsOf(pid)]))])),
    threads: Object.fromEntries(Object.entries(mainThreads).map(([name, pid]) => [name, mainThreadSecondsOf(pid)])),
  });
  const before = sample();
  const machineBefore = machineCpuTicks();
  const started = process.hrtime.bigint();
  const selfBefore = process.cpuUsage();
  const result = await work();
  const self = process.cpuUsage(selfBefore);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const after = sample();
  const machineAfter = machineCpuTicks();
  const cpuSeconds: Record<string, number> = {};
  for (const [name, pids] of Object.entries(after.groups)) {
    let used = 0;
    // A process that started during the run counts from zero; one that ended is counted by its parent's waited-for time.
    for (const [pid, cpu] of pids) used += cpu - (before.groups[name]!.get(pid) ?? 0);
    cpuSeconds[name] = used;
  }
  for (const [name, cpu] of Object.entries(after.threads)) cpuSeconds[name] = cpu - before.threads[name]!;
  cpuSeconds[LOAD_GENERATOR] = (self.user + self.system) / 1e6;
  const cpuPercent = Object.fromEntries(Object.entries(cpuSeconds).map(([name, used]) => [name, (used / seconds) * 100]));
  const machinePercent = ((machineAfter.busy - machineBefore.busy) / (machineAfter.total - machineBefore.total)) * 100 * availableParallelism();
  return { result, seconds, cpuSeconds, cpuPercent, machinePercent };
}

/** The machine's CPU ticks, busy and in all, summed over its cores (/proc/stat). */
function machineCpuTicks(): { busy: number; total: number } {
  const [line] = readFileSync("/proc/stat", "utf8").split("\n");
  const ticks = line!.trim().split(/\s+/).slice(1).map(Number);
  const idle = ticks[3]! + (ticks[4] ?? 0);
  const total = ticks.reduce((sum, value) => sum + value, 0);
  return { busy: total - idle, total };
}
