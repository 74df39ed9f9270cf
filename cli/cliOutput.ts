/**
 * What the tool prints. With `--json`, stdout carries exactly one JSON document and nothing else;
 * without it, stdout carries tables for people. Progress and messages always go to stderr.
 */
export class CliOutput {
  constructor(readonly json: boolean) {}

  progress(message: string): void {
    process.stderr.write(`${message}\n`);
  }

  /**
   * The command's result: for people, a table or lines at once; with `--json`, kept until the command
   * ends, so that a command that reports and then fails (doctor, a relay that failed) still prints one
   * document, its result with the `error` added (`finishJson`).
   */
  result(value: unknown, human: () => string): void {
    if (this.json) pendingJson = { value };
    else process.stdout.write(`${human()}\n`);
  }
}

let pendingJson: { value: unknown } | undefined;

/** Writes the one JSON document of a `--json` run: the result, with `error` when the command failed. */
export function finishJson(error?: Record<string, unknown>): void {
  const result = pendingJson?.value;
  pendingJson = undefined;
  if (result === undefined && error === undefined) return;
  const document =
    error === undefined ? result : result === undefined ? { error } : typeof result === "object" && result !== null && !Array.isArray(result) ? { ...result, error } : { result, error };
  process.stdout.write(`${JSON.stringify(document, (_key, item: unknown) => (typeof item === "bigint" ? item.toString() : item), 2)}\n`);
}

/** A plain text table: one header row, then rows, columns padded to their widest cell. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((row) => (row[column] ?? "").length)));
  const line = (row: readonly string[]) => row.map((cell, column) => cell.padEnd(widths[column]!)).join("  ").trimEnd();
  return [line(header), line(widths.map((width) => "-".repeat(width))), ...rows.map(line)].join("\n");
}
