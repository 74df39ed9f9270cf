/**
 * Runs the stand-in live chain until interrupted, for trying `npm run deploy` by hand:
 *
 *   npm run stand-in        prints its RPC URL and the chain file to deploy with
 *   npm run deploy -- --chain standin --chains-dir test/fixtures/chains --rpc <url> --deployer <address>
 */
import { STANDIN_CHAIN_FILE, startStandInChain } from "./standInChain";

async function main(): Promise<void> {
  const chain = await startStandInChain();
  console.log(`stand-in chain ${chain.chainFile.chainId} at ${chain.rpcUrl} (chain file ${STANDIN_CHAIN_FILE}); Ctrl-C stops it`);
  const stop = () => void chain.stop().then(() => process.exit(0));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
