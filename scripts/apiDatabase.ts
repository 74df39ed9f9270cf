import type { ApiConfig } from "../api/config";

/**
 * Runs `open` (a store or the operator's writes on the API's database) and, when `DATABASE_URL`
 * selects PostgreSQL, turns its failure into one line that names the variable and the server (never
 * the password): pg's own errors say neither, and an unreachable host reports an empty message.
 */
export async function openApiDatabase<T>(config: Pick<ApiConfig, "databaseUrl">, open: () => Promise<T>): Promise<T> {
  try {
    return await open();
  } catch (error) {
    if (config.databaseUrl === undefined) throw error;
    throw new Error(`cannot use the PostgreSQL database at DATABASE_URL (${withoutPassword(config.databaseUrl)}): ${reason(error)}`, { cause: error });
  }
}

function withoutPassword(url: string): string {
  // A libpq keyword string is not a URL: say so rather than echo it (it may hold the password).
  if (!URL.canParse(url)) return "a value that is not a postgres:// URL";
  const parsed = new URL(url);
  parsed.password = "";
  return parsed.toString();
}

function reason(error: unknown): string {
  const first = error instanceof AggregateError ? (error.errors[0] as unknown) : error;
  const message = first instanceof Error ? first.message || (first as { code?: string }).code || first.name : String(first);
  return message.split("\n")[0]!;
}
