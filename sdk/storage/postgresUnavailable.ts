/**
 * Whether a PostgreSQL error means the server cannot be reached or cannot serve right now (down,
 * restarting, unreachable, out of connections, a pool that waited too long), rather than that the
 * statement was wrong: the one place the API's error handler, its shared rate limiters and any other
 * caller tell an outage (retry later, 503) from a bug (500). It reads only the error's shape, so it
 * does not load `pg`.
 */
export function isPostgresUnavailableError(error: unknown): boolean {
  return unavailable(error, 0);
}

/** SQLSTATE 08xxx: connection exceptions (08001 cannot connect, 08006 connection failure, …). */
const CONNECTION_EXCEPTION_CLASS = "08";

/** Server states that end or refuse sessions: shutdown by an operator, a crash, starting up, full. */
const UNAVAILABLE_SQLSTATES: ReadonlySet<string> = new Set([
  "57P01", // admin_shutdown: the server is stopping (a fast shutdown ends every session)
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now: starting up or in recovery
  "53300", // too_many_connections
]);

/** Socket errors of Node on the way to the server. */
const NETWORK_CODES: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "EHOSTDOWN",
  "ENETUNREACH",
  "ENETDOWN",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EPIPE",
]);

/** node-postgres' own messages for a connection it lost or could not get in time. */
const DRIVER_MESSAGES = [
  /^Connection terminated/, // "… unexpectedly", "… due to connection timeout"
  /^timeout exceeded when trying to connect$/, // the pool's connectionTimeoutMillis
  /^Client has encountered a connection error and is not queryable$/,
  /^Query read timeout$/,
];

function unavailable(error: unknown, depth: number): boolean {
  if (typeof error !== "object" || error === null || depth > 3) return false;
  const { code, message, errors, cause } = error as { code?: unknown; message?: unknown; errors?: unknown; cause?: unknown };
  if (typeof code === "string") {
    if (code.startsWith(CONNECTION_EXCEPTION_CLASS) && code.length === 5) return true;
    if (UNAVAILABLE_SQLSTATES.has(code) || NETWORK_CODES.has(code)) return true;
  }
  if (typeof message === "string" && DRIVER_MESSAGES.some((pattern) => pattern.test(message))) return true;
  // Node's happy-eyeballs connect raises an AggregateError of one error per address tried.
  if (Array.isArray(errors) && errors.length > 0 && errors.every((inner) => unavailable(inner, depth + 1))) return true;
  return cause !== undefined && unavailable(cause, depth + 1);
}
