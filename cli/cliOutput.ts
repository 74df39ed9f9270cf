/**
 * What the tool prints. With `--json`, stdout carries exactly one JSON document and nothing else;
 * without it, stdout carries tables for people. Progress and messages always go to stderr.
 */
export class CliOutput {
  constructor(readonly json: boolean) {}

  progress(message: string): void {
    process.stderr.write(`${message}\n`);
  }

  /** The command's result: JSON (bigints as strings) or, for people, a table or lines. */
  result(value: unknown, human: () => string): void {
    if (this.json) process.stdout.write(`${JSON.stringify(value, (_key, item: unknown) => (typeof item === "bigint" ? item.toString() : item), 2)}\n`);
    else process.stdout.write(`${human()}\n`);
  }
}

/** A plain text table: one header row, then rows, columns padded to their widest cell. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((row) => (row[column] ?? "").length)));
  const line = (row: readonly string[]) => row.map((cell, column) => cell.padEnd(widths[column]!)).join("  ").trimEnd();
  return [line(header), line(widths.map((width) => "-".repeat(width))), ...rows.map(line)].join("\n");
}
