/**
 * The soak's faults: when each happens (a plan for an hour, scaled to SOAK_MINUTES), running them
 * against the processes, and which requests an outage excuses.
 */
import type { SoakSettings } from "./soakSettings";

export type FaultKind = "relayer-kill" | "api-kill" | "postgres-restart" | "rpc-outage" | "burst";

/** A fault to inject `atMs` after the load starts; `pauseMs`: how long the part stays down (or the burst lasts). */
export type PlannedFault = { kind: FaultKind; atMs: number; pauseMs: number; label: string };

/** What happened, in ms since the load started: `endMs` is when the part answered again (or the burst ended). */
export type FaultRecord = { kind: FaultKind; label: string; startMs: number; endMs: number };

/** The burst multiplies the normal load by this. */
export const BURST_FACTOR = 5;
/** After an outage ends, clients may still meet its 503s this long (pools reconnect, heads are re-read). */
export const OUTAGE_GRACE_MS = 10_000;

const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));

/**
 * The hour's plan, scaled: faults between 15 % and 80 % of the run, one at a time, so the first
 * window is undisturbed warm-up and the last one shows how things are after all of them.
 */
export function planFaults(settings: Pick<SoakSettings, "durationMs" | "scale">): PlannedFault[] {
  const at = (fraction: number) => Math.round(settings.durationMs * fraction);
  const killPause = Math.round(clamp(30_000 * settings.scale, 5_000, 30_000));
  const burst = Math.round(clamp(60_000 * settings.scale, 10_000, 60_000));
  return [
    { kind: "relayer-kill", atMs: at(0.15), pauseMs: killPause, label: "SIGKILL relayer-1" },
    { kind: "api-kill", atMs: at(0.3), pauseMs: killPause, label: "SIGKILL api-1" },
    { kind: "postgres-restart", atMs: at(0.45), pauseMs: 5_000, label: "PostgreSQL restart" },
    { kind: "rpc-outage", atMs: at(0.6), pauseMs: 10_000, label: "chain RPC unreachable 10 s" },
    { kind: "burst", atMs: at(0.7), pauseMs: burst, label: `${BURST_FACTOR}× load for ${Math.round(burst / 1000)} s` },
  ];
}

/** How each fault is done; each resolves once the part is down (`down`) or back and answering (`up`). */
export type FaultActions = {
  killRelayer(): Promise<void>;
  restartRelayer(): Promise<void>;
  killApi(): Promise<void>;
  restartApi(): Promise<void>;
  haltPostgres(): Promise<void>;
  resumePostgres(): Promise<void>;
  cutRpc(): Promise<void>;
  restoreRpc(): Promise<void>;
  setLoadFactor(factor: number): void;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** Runs the plan on the clock `now()` (ms since the load started); resolves with what happened. */
export async function runFaults(plan: readonly PlannedFault[], actions: FaultActions, now: () => number, log: (line: string) => void, stopped: () => boolean): Promise<FaultRecord[]> {
  const records: FaultRecord[] = [];
  const pairs: Record<FaultKind, [() => Promise<void> | void, () => Promise<void> | void]> = {
    "relayer-kill": [actions.killRelayer, actions.restartRelayer],
    "api-kill": [actions.killApi, actions.restartApi],
    "postgres-restart": [actions.haltPostgres, actions.resumePostgres],
    "rpc-outage": [actions.cutRpc, actions.restoreRpc],
    burst: [() => actions.setLoadFactor(BURST_FACTOR), () => actions.setLoadFactor(1)],
  };
  for (const fault of plan) {
    // In steps, so that an interrupted soak does not wait for the rest of the plan.
    while (!stopped() && now() < fault.atMs) await sleep(Math.min(1000, fault.atMs - now()));
    if (stopped()) break;
    const [down, up] = pairs[fault.kind];
    const startMs = now();
    log(`fault: ${fault.label}`);
    await down();
    await sleep(fault.pauseMs);
    await up();
    const endMs = now();
    log(`fault over: ${fault.label} (${((endMs - startMs) / 1000).toFixed(1)} s)`);
    records.push({ kind: fault.kind, label: fault.label, startMs, endMs });
  }
  return records;
}

/**
 * The outage (if any) that a request in flight from `fromMs` to `toMs` overlapped: the one it met
 * while it lasted, else the one whose grace it fell in (outages of a short run overlap with their
 * graces). A burst is load, not an outage.
 */
export function outageDuring(faults: readonly FaultRecord[], fromMs: number, toMs: number): FaultRecord | undefined {
  const outages = faults.filter((fault) => fault.kind !== "burst");
  return (
    outages.find((fault) => toMs >= fault.startMs && fromMs <= fault.endMs) ??
    outages.find((fault) => toMs >= fault.startMs && fromMs <= fault.endMs + OUTAGE_GRACE_MS)
  );
}
