/** Text safe inside a Markdown table cell: pipes escaped, line breaks folded. */
export function markdownCell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\s*\n\s*/g, " ");
}
