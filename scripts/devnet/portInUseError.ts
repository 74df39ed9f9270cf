/** A port `npm start` needs is taken: an expected condition, reported without a stack. */
export class PortInUseError extends Error {
  override readonly name = "PortInUseError";

  constructor(
    readonly what: string,
    readonly host: string,
    readonly port: number,
    readonly variable: string,
  ) {
    super(`${what} port ${port} on ${host} is already in use; stop whatever listens there, or set ${variable} to another port (0 picks a free one)`);
  }
}

/** Turns a listen failure for a busy port into a PortInUseError; anything else is rethrown. */
export function rethrowPortInUse(error: unknown, what: string, host: string, port: number, variable: string): never {
  const code = error instanceof Error ? (error as Error & { code?: unknown }).code : undefined;
  if (code === "EADDRINUSE") throw new PortInUseError(what, host, port, variable);
  throw error;
}
