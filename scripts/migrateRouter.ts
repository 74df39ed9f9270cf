/**
 * `npm run migrate-router -- <featureId>`: deploys a new router for feature 2 or 3 on the running
 * devnet and migrates the registry to it, so the dwell window can be watched (prev answers until it
 * closes). Reads the devnet's manifest; the registry administrator is development account #0.
 *
 * Environment: RPC_URL (default the devnet's http://DEVNET_HOST:DEVNET_PORT), DEPLOYMENTS_DIR
 * (default deployments), as every script reads them.
 */
async function main(): Promise<void> {
  const featureArgument = process.argv[2];
  if (featureArgument === undefined || !/^[23]$/.test(featureArgument)) {
    console.error("usage: npm run migrate-router -- <2|3>");
    process.exit(2);
  }
  // Reach the chain first, so a failure names the URL it tried (Hardhat's own error does not).
  const { connectToChain, loadChainTarget } = await import("./chainConnection");
  const { manifest, rpcUrl } = await connectToChain(loadChainTarget());
  process.env.RPC_URL = rpcUrl;
  // The network must be chosen before Hardhat loads.
  process.env.HARDHAT_NETWORK = "devnet";
  const { default: hre } = await import("hardhat");
  const { hardhatClients } = await import("./deploy/hardhatClients");
  const { migrateRouter } = await import("./deploy/migrateRouter");

  const clients = await hardhatClients(hre);
  const [admin] = clients.walletClients;
  if (admin === undefined) throw new Error("the devnet exposes no unlocked account");
  const result = await migrateRouter(hre, clients, admin, manifest, BigInt(featureArgument));
  const lines = [
    `Feature ${result.featureId} migrated to ${result.router}`,
    `  previous  ${result.state.previous}  (accepted until ${new Date(Number(result.dwellUntil) * 1000).toISOString()})`,
    `  current   ${result.state.current}`,
    `  next      ${result.state.next}`,
    `  paused    ${result.state.paused}`,
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
