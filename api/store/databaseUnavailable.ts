import { isPostgresUnavailableError } from "../../sdk/storage/postgresUnavailable";
import { ApiError } from "../../sdk/server/apiError";

/** What a client waits before retrying while the database is out: long enough for a restart, short enough not to give up. */
export const DATABASE_RETRY_AFTER_SECONDS = 3;

/**
 * The answer to a request the database could not serve (PostgreSQL down, restarting or unreachable):
 * 503 `database_unavailable` with `Retry-After`, which clients retry. What the driver said is kept as
 * the cause, for the operator's log only.
 */
export function databaseUnavailableError(cause: unknown): ApiError {
  return new ApiError("database_unavailable", "the API's database cannot be reached right now; retry shortly", {
    headers: { "Retry-After": String(DATABASE_RETRY_AFTER_SECONDS) },
    cause,
  });
}

/** `error` as the 503 above when it is a database outage; anything else unchanged. */
export function classifyDatabaseError(error: unknown): unknown {
  return error instanceof ApiError || !isPostgresUnavailableError(error) ? error : databaseUnavailableError(error);
}
