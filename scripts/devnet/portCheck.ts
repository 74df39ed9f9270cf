import { createServer } from "node:net";
import { PortInUseError } from "./portInUseError";

/** A port `npm start` will bind: what it is for, where, and the variable that moves it. */
export type PlannedPort = { what: string; host: string; port: number; variable: string };

function probe(planned: PlannedPort): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", (error: Error & { code?: string }) =>
      reject(error.code === "EADDRINUSE" ? new PortInUseError(planned.what, planned.host, planned.port, planned.variable) : error),
    );
    server.listen(planned.port, planned.host, () => server.close(() => resolve()));
  });
}

/**
 * Binds each planned port for a moment and lets it go: a busy one is a PortInUseError before anything
 * is deployed or written, so a second `npm start` beside a running devnet leaves that devnet and its
 * manifest alone. Port 0 (any free port) needs no check. A port can still be taken between this
 * check and the real bind; the later bind then reports it the same way.
 */
export async function assertPortsFree(ports: readonly PlannedPort[]): Promise<void> {
  for (const planned of ports) if (planned.port !== 0) await probe(planned);
}
