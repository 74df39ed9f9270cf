/**
 * The chain of `npm run bench:relayer`, in its own process: the in-process Hardhat network served
 * over JSON-RPC (as `npm start` serves it) with everything deployed and the manifest written to
 * `DEPLOYMENTS_DIR`. It runs apart from the load generator and the API so that executing and mining
 * a block of swaps never stalls the benchmark's clock, as a real node would not. The bench drives
 * mining (automine, interval mining, snapshots) over JSON-RPC.
 *
 * `BENCH_CHAIN=anvil`: Anvil instead (scripts/bench/anvilChain.ts), a child of this process, with the
 * same contracts deployed by the same code; this process only deploys and then waits to stop it.
 */
import hre from "hardhat";
import { manifestPath } from "../../sdk/chain/manifest";
import { startChainServer } from "../devnet/chainServer";
import { devAccounts } from "../devnet/devAccounts";
import { loadDevnetConfig } from "../devnet/devnetConfig";
import { deployDevnet } from "../deploy/deployDevnet";
import { startAnvilChain } from "./anvilChain";

/**
 * `BENCH_CHAIN_TRACE=1`: every 5 s, prints to stderr how many JSON-RPC calls of each method the chain
 * served and the time they took (to see what loads the node during a case).
 */
function traceRequests(): void {
  const provider = hre.network.provider;
  const original = provider.request.bind(provider);
  const stats = new Map<string, { count: number; ms: number; max: number }>();
  // Time with at least one call in flight: near 100 % means the node is the queue everyone waits in.
  let inFlight = 0;
  let busySince = 0;
  let busyMs = 0;
  provider.request = async (args) => {
    const started = performance.now();
    if (inFlight++ === 0) busySince = started;
    try {
      return await original(args);
    } finally {
      const ms = performance.now() - started;
      if (--inFlight === 0) busyMs += performance.now() - busySince;
      const key = args.method === "eth_estimateGas" || args.method === "eth_call" || args.method === "eth_getTransactionCount" ? `${args.method}:${String((args.params as unknown[] | undefined)?.[1] ?? "default")}` : args.method;
      const entry = stats.get(key) ?? { count: 0, ms: 0, max: 0 };
      entry.count++;
      entry.ms += ms;
      entry.max = Math.max(entry.max, ms);
      stats.set(key, entry);
    }
  };
  setInterval(() => {
    if (stats.size === 0) return;
    const lines = [...stats.entries()].sort((a, b) => b[1].ms - a[1].ms).map(([method, entry]) => `  ${method.padEnd(40)} ${String(entry.count).padStart(6)} calls ${entry.ms.toFixed(0).padStart(7)} ms total, max ${entry.max.toFixed(0)} ms`);
    const busy = busyMs + (inFlight > 0 ? performance.now() - busySince : 0);
    process.stderr.write(`[chain ${new Date().toISOString().slice(11, 19)}] JSON-RPC in the last 5 s (a call in flight ${((busy / 5000) * 100).toFixed(0)} % of the time)\n${lines.join("\n")}\n`);
    stats.clear();
    busyMs = 0;
    if (inFlight > 0) busySince = performance.now();
  }, 5000).unref();
}

async function main(): Promise<void> {
  const config = loadDevnetConfig();
  await hre.run("compile", { quiet: true });
  if (process.env.BENCH_CHAIN === "anvil") {
    const anvil = await startAnvilChain(hre, config.deploymentsDir);
    const stop = () => void anvil.stop().finally(() => process.exit(0));
    process.on("SIGTERM", stop);
    process.on("SIGINT", stop);
    process.stdout.write(`Deployer ${anvil.deployer}\nChain on ${anvil.rpcUrl}\n`);
    return;
  }
  if (process.env.BENCH_CHAIN_TRACE === "1") traceRequests();
  const server = await startChainServer(hre, config.host, config.port);
  const chainId = await (await hre.viem.getPublicClient()).getChainId();
  await deployDevnet(hre, manifestPath(config.deploymentsDir, chainId));
  const stop = () => void server.close().finally(() => process.exit(0));
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  process.stdout.write(`Deployer ${devAccounts(hre)[0]!.address}\nChain on ${server.url}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
