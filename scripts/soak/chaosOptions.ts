/**
 * The command line of `npm run soak` as the chaos run reads it: `--chaos` selects it, `--restarts N`
 * sets how many times the node is stopped and started again from its dumped state during the load
 * (default 1; each restart loses the node's mempool). Parsed once by soak.ts, before anything starts.
 */
import { parseArgs } from "node:util";

/** One restart, as issue 34 asks: the run's goals were measured with it. */
export const DEFAULT_NODE_RESTARTS = 1;
/** The load lasts about 10 s (500 relays at 50/s): more restarts than this leave the node no time to work between them. */
export const MAX_NODE_RESTARTS = 5;

export type SoakCommandLine = { chaos: boolean; restarts: number };

/** `args` is process.argv after the script; an invalid flag throws an Error that says what is accepted. */
export function parseSoakCommandLine(args: readonly string[]): SoakCommandLine {
  let values: { chaos?: boolean; restarts?: string };
  try {
    ({ values } = parseArgs({ args: [...args], options: { chaos: { type: "boolean" }, restarts: { type: "string" } }, strict: true, allowPositionals: false }));
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)}; usage: npm run soak [-- --chaos [--restarts N]]`);
  }
  const chaos = values.chaos === true;
  if (values.restarts === undefined) return { chaos, restarts: DEFAULT_NODE_RESTARTS };
  if (!chaos) throw new Error("--restarts applies to the chaos run only: npm run soak -- --chaos --restarts N (the plain soak's faults are set by faultSchedule.ts)");
  const restarts = Number(values.restarts);
  if (!/^[0-9]+$/.test(values.restarts) || restarts < 1 || restarts > MAX_NODE_RESTARTS) {
    throw new Error(`--restarts must be a whole number from 1 to ${MAX_NODE_RESTARTS} (default ${DEFAULT_NODE_RESTARTS}), got ${values.restarts}`);
  }
  return { chaos, restarts };
}

/** When restart `index` (0-based) of `restarts` happens, in ms after the load starts: evenly inside the load, never at its edges. */
export function restartAtMs(index: number, restarts: number, loadMs: number): number {
  return Math.round(((index + 1) * loadMs) / (restarts + 1));
}
