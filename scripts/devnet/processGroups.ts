import type { ChildProcess } from "node:child_process";

/**
 * Every child this process started through spawnService (the devnet, relayers, APIs), so none
 * outlives it: a child that leads its own process group (a devnet with its relayer, say) is stopped
 * with its whole group, so a grandchild is never orphaned. Stopped
 * - by its owner's `stop()` (its signal to the child, then SIGKILL to the group after a grace period
 *   and to whatever of the group is left once the child exited);
 * - by a mocha root `after` hook, when this runs inside a test run (a test that failed or timed out
 *   before it could stop what it started);
 * - on SIGINT/SIGTERM when nothing else in this process handles them (the signal is then raised again);
 * - with SIGKILL when this process exits, however it exits short of being killed itself.
 */
type Tracked = { child: ChildProcess; group: boolean };

const tracked = new Set<Tracked>();

/** How long a child gets to stop on its own signal before its group is killed. */
export const STOP_GRACE_MS = 10_000;

function signalTree(entry: Tracked, signal: NodeJS.Signals): void {
  const pid = entry.child.pid;
  if (pid === undefined) return;
  try {
    // A negative pid signals the whole group, which survives its leader while any member lives.
    process.kill(entry.group ? -pid : pid, signal);
  } catch {
    // Already gone.
  }
}

function exitedOf(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

/** Registers a child; `group`: it was spawned `detached`, leading a process group of its own. */
export function trackChild(child: ChildProcess, group: boolean): void {
  installHandlers();
  const entry = { child, group };
  tracked.add(entry);
  // A group outlives its leader while a member lives: forget it only when it is stopped.
  if (!group) void exitedOf(child).then(() => tracked.delete(entry));
}

/**
 * Stops `child` with `signal`; if it has not exited after `graceMs`, SIGKILLs it (its whole group if it
 * leads one). Once it exited, SIGKILLs what is left of its group. Resolves when the child exited.
 */
export async function stopTrackedChild(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM", graceMs = STOP_GRACE_MS): Promise<void> {
  const entry = [...tracked].find((candidate) => candidate.child === child) ?? { child, group: false };
  const exited = exitedOf(child);
  if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  const timer = setTimeout(() => signalTree(entry, "SIGKILL"), graceMs);
  await exited;
  clearTimeout(timer);
  if (entry.group) signalTree(entry, "SIGKILL");
  tracked.delete(entry);
}

/** Stops every tracked child and its group: SIGTERM, then SIGKILL after `graceMs`. */
export async function stopAllTrackedChildren(graceMs = STOP_GRACE_MS): Promise<void> {
  await Promise.all([...tracked].map((entry) => stopTrackedChild(entry.child, "SIGTERM", graceMs)));
}

let installed = false;

function installHandlers(): void {
  if (installed) return;
  installed = true;
  process.on("exit", () => {
    for (const entry of tracked) signalTree(entry, "SIGKILL");
  });
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    const onSignal = () => {
      // Another handler (npm start's, a bench's) stops its children itself, and the exit hook catches the rest.
      if (process.listenerCount(signal) > 1) return;
      for (const entry of tracked) signalTree(entry, "SIGKILL");
      process.off(signal, onSignal);
      process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}

// Inside a mocha run, a root hook: runs once, when the whole run ends, after every suite's own hooks.
if (typeof after === "function") after(() => stopAllTrackedChildren(2_000));
