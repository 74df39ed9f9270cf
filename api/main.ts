/**
 * `npm run api`: the integrator API on its own, configured from the environment (see
 * docs/operators/configuration.md). Ctrl-C or SIGTERM closes the server and the database.
 */
import { loadApiConfig } from "./config";
import { startApi } from "./startApi";

async function main(): Promise<void> {
  const api = await startApi(loadApiConfig());
  process.stdout.write(`Integrator API on ${api.url}\n`);
  if (api.metricsUrl !== undefined) process.stdout.write(`Metrics on ${api.metricsUrl}/metrics\n`);
  let stopping = false;
  const stop = () => {
    if (stopping) process.exit(130);
    stopping = true;
    api.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error("api: error while stopping:", error);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main().catch((error: unknown) => {
  console.error("api: failed to start:", error instanceof Error ? error.message : error);
  process.exit(1);
});
