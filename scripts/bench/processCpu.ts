import { readdirSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";

/** Clock ticks per second of /proc's CPU times (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** CPU seconds (user + system) `pid` has used, with those of its children it waited for; 0 once it is gone. */
function cpuSecondsOf(pid: number): number {
  try {
    // Fields after the command's closing parenthesis: state is field 3, utime 14, stime 15, cutime 16, cstime 17.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return undefined;
  }
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

/** Named groups of processes (by pid, re-listed at each sample), and this process itself. */
export type ProcessGroups = Record<string, () => number[]>;

/**
 * Runs `work` and returns, per group, the share of one core its processes used meanwhile (100 % =
 * one core busy the whole time), measured from /proc: what a run on shared cores was limited by.
 */
export async function measureCpu<T>(groups: ProcessGroups, work: () => Promise<T>): Promise<{ result: T; cpuPercent: Record<string, number> }> {
  const sample = () => Object.fromEntries(Object.entries(groups).map(([name, pids]) => [name, new Map(pids().map((pid) => [pid, cpuSecondsOf(pid)]))]));
  const before = sample();
  const machineBefore = machineCpuTicks();
  const started = process.hrtime.bigint();
  const selfBefore = process.cpuUsage();
  const result = await work();
  const self = process.cpuUsage(selfBefore);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const after = sample();
  const machineAfter = machineCpuTicks();
  const cpuPercent: Record<string, number> = {};
  for (const [name, pids] of Object.entries(after)) {
    let used = 0;
    // A process that started during the run counts from zero; one that ended is counted by its parent's waited-for time.
    for (const [pid, cpu] of pids) used += cpu - (before[name]!.get(pid) ?? 0);
    cpuPercent[name] = (used / seconds) * 100;
  }
  cpuPercent["load generator (this process)"] = ((self.user + self.system) / 1e6 / seconds) * 100;
  // Every process on the machine, other work included: 100 % per core.
  cpuPercent["whole machine"] = ((machineAfter.busy - machineBefore.busy) / (machineAfter.total - machineBefore.total)) * 100 * availableParallelism();
  return { result, cpuPercent };
}

/** The machine's CPU ticks, busy and in all, summed over its cores (/proc/stat). */
function machineCpuTicks(): { busy: number; total: number } {
  const [line] = readFileSync("/proc/stat", "utf8").split("\n");
  const ticks = line!.trim().split(/\s+/).slice(1).map(Number);
  const idle = ticks[3]! + (ticks[4] ?? 0);
  const total = ticks.reduce((sum, value) => sum + value, 0);
  return { busy: total - idle, total };
}
