/** Prints rows as aligned columns for people (the first row is the header); machines use --json. */
export function printTable(print: (line: string) => void, rows: readonly (readonly string[])[]): void {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  for (const row of rows) print(row.map((cell, column) => cell.padEnd(widths[column]!)).join("  ").trimEnd());
}
