import { formatTable } from "./printTable";
import { LOAD_GENERATOR, totalMicros, type Case, type Summary } from "./apiTargets";
import type { ScaleOut, ScaleOutWindow } from "./apiScaleOut";
import type { RatioRange } from "./roundRatios";

const percent = (ratio: number) => `${(ratio * 100).toFixed(1)} %`;
const range = (ratios: RatioRange, format: (value: number) => string) => `${format(ratios.median)} (${format(ratios.lowest)}–${format(ratios.highest)})`;
const micros = (value: number | undefined) => (value === undefined ? "" : value.toFixed(0));

/** The cases' table: each target's median rate, and each case as a share of its own round's baseline; PostgreSQL against each SQLite round by round. */
export function ratesTable(cases: readonly Case[], devnet: readonly Summary[], sqliteProcess: readonly Summary[] | undefined, postgres: readonly Summary[] | undefined, pgOverProcess: readonly RatioRange[] | undefined, pgOverDevnet: readonly RatioRange[] | undefined): string {
  const rows = cases.map((benchCase, index) => {
    const result = devnet[index]!;
    const alone = sqliteProcess?.[index];
    const pg = postgres?.[index];
    return [
      benchCase.name,
      result.rps.toFixed(0),
      `${result.p50.toFixed(1)} ms`,
      `${result.p99.toFixed(1)} ms`,
      percent(result.ofBaseline.median),
      index === 0 ? "" : `${percent(result.ofBaseline.lowest)} – ${percent(result.ofBaseline.highest)}`,
      benchCase.goal === undefined ? "" : `${benchCase.goal * 100} % ${result.ofBaseline.median >= benchCase.goal ? "met" : "MISSED"}`,
      alone === undefined ? "" : alone.rps.toFixed(0),
      alone === undefined ? "" : percent(alone.ofBaseline.median),
      pg === undefined ? "" : pg.rps.toFixed(0),
      pg === undefined ? "" : `${pg.p99.toFixed(1)} ms`,
      pg === undefined ? "" : percent(pg.ofBaseline.median),
      pgOverProcess === undefined ? "" : range(pgOverProcess[index]!, (value) => `${(value * 100).toFixed(0)} %`),
      pgOverDevnet === undefined ? "" : range(pgOverDevnet[index]!, (value) => `${(value * 100).toFixed(0)} %`),
    ];
  });
  return formatTable(
    ["case", "SQLite req/s", "p50", "p99", "of baseline", "rounds' range", "goal", "SQLite process req/s", "of baseline", "PostgreSQL req/s", "p99", "of baseline", "PG / SQLite process (rounds)", "PG / devnet (rounds)"],
    rows,
  );
}

/** The API column first, then the other processes, then the load generator; main threads beside their process. */
const CPU_COLUMNS = ["API", "API main thread", "chain (devnet)", "PostgreSQL", LOAD_GENERATOR] as const;

/** CPU µs per request of each process group, case by case and target by target: what each answer costs, whatever else shares the cores. */
export function cpuTable(cases: readonly Case[], targets: readonly { label: string; summaries: readonly Summary[] }[]): string {
  const rows = cases.flatMap((benchCase, index) =>
    targets.map((target) => {
      const perRequest = target.summaries[index]!.cpuMicrosPerRequest;
      return [`${benchCase.name.slice(0, 3)} ${target.label}`, ...CPU_COLUMNS.map((name) => micros(perRequest[name])), micros(totalMicros(perRequest)), `${target.summaries[index]!.machinePercent.toFixed(0)} %`];
    }),
  );
  return formatTable(["case on target (CPU µs per request)", "API", "its main thread", "chain", "PostgreSQL", "load generator", "all", "machine busy"], rows);
}

function scaleOutRow(label: string, window: ScaleOutWindow): string[] {
  const cpu = window.cpuMicrosPerQuote;
  return [
    label,
    window.rps.toFixed(0),
    `${micros(cpu["API #1"])} (${micros(cpu["API #1 main thread"])})`,
    `${micros(cpu["API #2"])} (${micros(cpu["API #2 main thread"])})`,
    micros(cpu["PostgreSQL"]),
    micros(cpu["chain (devnet)"]),
    micros(cpu[LOAD_GENERATOR]),
    micros(window.quoteCpu.totalMicros),
    window.ceilingPerSecond.toFixed(0),
    `${window.machinePercent.toFixed(0)} %`,
  ];
}

/** The full quote on one PostgreSQL API and on two: rates, CPU per quote, the ceilings they imply, and the goal. */
export function scaleOutReport(scaleOut: ScaleOut, transactionsPerQuote: number | undefined): string {
  const table = formatTable(
    ["full quote on PostgreSQL", "req/s (median)", "API #1 µs/quote (main thread)", "API #2", "PostgreSQL", "chain", "load generator", "all µs/quote", `ceiling on ${scaleOut.cores} cores, req/s`, "machine busy"],
    [scaleOutRow("one API", scaleOut.one), scaleOutRow("two APIs at once", scaleOut.two)],
  );
  const times = (value: number) => `${value.toFixed(2)} ×`;
  return (
    `${table}\n` +
    `(an API's CPU is per quote it answered; the others' per quote of all; "all" leaves out the main threads, counted in their process)\n` +
    `two APIs / one: measured ${range(scaleOut.ratio, times)} over ${scaleOut.ratio.rounds.length} adjacent pairs (goal ≥ 1.4 ×: ${scaleOut.ratio.median >= 1.4 ? "met" : "MISSED"}); ` +
    `ceiling on this machine (${scaleOut.cores} cores) ${times(scaleOut.ceiling.ratio)}; with a core for every process ${times(scaleOut.ceilingWithCorePerProcess.ratio)}` +
    (transactionsPerQuote === undefined ? "" : `; PostgreSQL transactions per quote: ${transactionsPerQuote.toFixed(3)}`) +
    "\n"
  );
}

/** Issue 22's goals for PostgreSQL against SQLite, from the round-by-round ratios. */
export function postgresGoals(cases: readonly Case[], pgOverDevnet: readonly RatioRange[], pgOverProcess: readonly RatioRange[], goals: ReadonlyMap<number, number>): string {
  const lines = [...goals].map(([index, goal]) => {
    const devnet = pgOverDevnet[index]!;
    const alone = pgOverProcess[index]!;
    const asPercent = (value: number) => `${(value * 100).toFixed(0)} %`;
    return `  ${cases[index]!.name}: against the devnet's API ${range(devnet, asPercent)} (goal ≥ ${goal * 100} %: ${devnet.median >= goal ? "met" : "MISSED"}); against the SQLite API process ${range(alone, asPercent)}`;
  });
  return `PostgreSQL against SQLite, median of the rounds' req/s ratios (range):\n${lines.join("\n")}\n`;
}
