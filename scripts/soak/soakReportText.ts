/** The soak's report as text for stdout: the figures of soakReport.ts, tables and goals. */
import { printTable } from "../textTable";
import type { FaultRecord } from "./faultSchedule";
import type { SoakFigures } from "./soakReport";

function textTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const lines: string[] = [];
  printTable((line) => lines.push(`  ${line}`), [header, ...rows]);
  return lines.join("\n");
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(0)} s`;
const clock = (ms: number) => `${String(Math.floor(ms / 60_000)).padStart(2, "0")}:${String(Math.floor((ms % 60_000) / 1000)).padStart(2, "0")}`;

export function soakReportText(input: { title: string; figures: SoakFigures; faults: readonly FaultRecord[]; shed: number; chartPath: string; jsonPath: string }): string {
  const { figures } = input;
  const statuses = Object.keys(figures.requests.byStatus).sort();
  const lines: string[] = [input.title, ""];

  lines.push("Faults (mm:ss from the start of the load)");
  lines.push(textTable(["fault", "from", "to", "lasted"], input.faults.map((fault) => [fault.label, clock(fault.startMs), clock(fault.endMs), seconds(fault.endMs - fault.startMs)])), "");

  lines.push(`Requests by status (${figures.requests.total} sent, ${input.shed} shed by the generator's bound)`);
  lines.push(
    textTable(
      ["kind", ...statuses],
      [
        ...Object.entries(figures.requests.byKind).map(([kind, byStatus]) => [kind, ...statuses.map((status) => String(byStatus[status] ?? 0))]),
        ["all", ...statuses.map((status) => String(figures.requests.byStatus[status] ?? 0))],
      ],
    ),
    "",
  );
  lines.push(`Latency by kind over the run (p50 / p99 ms): ${Object.entries(figures.requests.latencyByKind).map(([kind, latency]) => `${kind} ${latency.p50Ms.toFixed(0)} / ${latency.p99Ms.toFixed(0)}`).join(", ")}`, "");
  lines.push("Refusals and failures by code");
  for (const [kind, codes] of Object.entries(figures.requests.codes)) lines.push(`  ${kind}: ${Object.entries(codes).map(([code, count]) => `${count} × ${code}`).join(", ")}`);
  lines.push("");
  const declared = Object.entries(figures.requests.declared);
  lines.push(declared.length === 0 ? "No 503 or unanswered request during an outage." : "503s and unanswered requests excused by an outage (each outage's window plus 10 s):");
  for (const [fault, codes] of declared) lines.push(`  ${fault}: ${Object.entries(codes).map(([code, count]) => `${count} × ${code}`).join(", ")}`);
  lines.push(figures.requests.undeclared.length === 0 ? "Undeclared 5xx: none." : `Undeclared 5xx and unanswered requests (${figures.requests.undeclared.length}):`);
  for (const error of figures.requests.undeclared) lines.push(`  ${clock(error.atMs)} ${error.kind} on ${error.instance}: ${error.status === 0 ? "no answer" : error.status}${error.code === undefined ? "" : ` ${error.code}`}`);
  lines.push("");

  const relays = figures.relays;
  lines.push(`Relays: ${relays.accepted} accepted; ${Object.entries(relays.byStatus).map(([status, count]) => `${count} ${status}`).join(", ")}; ${relays.settlements} SwapSettled on chain`);
  lines.push(`  lost: ${relays.lost.length}${relays.lost.length > 0 ? ` (${relays.lost.slice(0, 10).join(", ")})` : ""}; settled twice: ${relays.doubled.length}${relays.doubled.length > 0 ? ` (${relays.doubled.slice(0, 10).join(", ")})` : ""}; settled despite a final failure: ${relays.settledDespiteStatus.length}; settled without being accepted: ${relays.settledUnaccepted.length}`, "");

  const processes = [...new Set(figures.windows.flatMap((window) => Object.keys(window.memoryMiB)))].sort();
  lines.push("Per window (latency of every answered request; memory: median RSS in MiB)");
  lines.push(
    textTable(
      ["window", "requests/s", "p50 ms", "p99 ms", "5xx", ...processes],
      figures.windows.map((window) => [
        `${clock(window.fromMs)}-${clock(window.toMs)}`,
        window.perSecond.toFixed(1),
        window.p50Ms.toFixed(0),
        window.p99Ms.toFixed(0),
        String(window.serverErrors),
        ...processes.map((process) => (window.memoryMiB[process] === undefined ? "-" : window.memoryMiB[process]!.toFixed(0))),
      ]),
    ),
    "",
  );
  lines.push("Memory after warm-up, per process instance (median RSS of its first and last warm window)");
  lines.push(textTable(["process", "pid", "first MiB", "last MiB", "growth", "judged"], figures.memory.map((trend) => [trend.process, String(trend.pid), trend.firstMiB.toFixed(0), trend.lastMiB.toFixed(0), `${(trend.growth * 100).toFixed(1)} %`, trend.product ? "yes" : "no (infrastructure)"])), "");

  lines.push("Goals");
  for (const goal of figures.goals) lines.push(`  ${goal.pass ? "PASS" : "FAIL"}  ${goal.name}: ${goal.detail}`);
  lines.push("", `Chart: ${input.chartPath}`, `Report: ${input.jsonPath}`, "");
  return lines.join("\n");
}
