/**
 * `npm run relayer`: the gasless relayer on its own, configured from the environment (see
 * docs/operators/relayer.md). Ctrl-C or SIGTERM stops taking work and closes the database; a crash is safe
 * too, since every signed transaction is stored before it is broadcast.
 */
import { loadRelayerConfig } from "./config";
import { relayerReadyLines } from "./readyLines";
import { startRelayer } from "./startRelayer";

async function main(): Promise<void> {
  const relayer = await startRelayer(loadRelayerConfig());
  process.stdout.write(relayerReadyLines(relayer.url, relayer.metricsUrl));
  for (const signer of relayer.signers) process.stdout.write(`  signer ${signer.address}  ${signer.balance} wei\n`);
  let stopping = false;
  const stop = () => {
    if (stopping) process.exit(130);
    stopping = true;
    relayer.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error("relayer: error while stopping:", error);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main().catch((error: unknown) => {
  console.error(`relayer: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
