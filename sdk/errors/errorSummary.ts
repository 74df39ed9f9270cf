/**
 * An error's first line, for a log field or a one-line reason: viem's and the SDK's messages put
 * the summary first and their details (request bodies, docs links, versions) on the lines after it.
 * Anything thrown that is not an Error is shown as its string form.
 */
export function errorSummary(error: unknown): string {
  return error instanceof Error ? error.message.split("\n")[0]! : String(error);
}
