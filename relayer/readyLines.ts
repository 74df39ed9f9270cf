/**
 * What `npm run relayer` prints once it serves, and the pattern supervisors (the devnet, benches, tests)
 * wait for. The lines leave in one write: the logger writes from another thread, and a log line landing
 * between two writes once hid the second line from an adjacent-lines pattern and hung `npm start` in CI.
 * The pattern still tolerates anything between the two lines.
 */
export function relayerReadyLines(url: string, metricsUrl: string | undefined): string {
  return `Relayer on ${url}\n${metricsUrl === undefined ? "" : `Relayer metrics on ${metricsUrl}/metrics\n`}`;
}

/** Group 1: the internal endpoint's URL; group 2: the metrics server's base URL. */
export const RELAYER_READY_WITH_METRICS = /^Relayer on (\S+)$[\s\S]*?^Relayer metrics on (\S+)\/metrics$/m;
