/**
 * `npm run migrate-router -- <featureId>`: deploys a new router for feature 2 or 3 on the running
 * devnet and migrates the registry to it, so the dwell window can be watched (prev answers until it
 * closes). Reads the devnet's manifest; the registry administrator is development account #0.
 *
 * Environment: DEVNET_RPC_URL (default http://127.0.0.1:8545), DEPLOYMENTS_DIR (default deployments).
 */
async function main(): Promise<void> {
  const featureArgument = process.argv[2];
  if (featureArgument === undefined || !/^[23]$/.test(featureArgument)) {
    console.error("usage: npm run migrate-router -- <2|3>");
    process.exit(2);
  }
  // The network must be chosen before Hardhat loads.
  process.env.HARDHAT_NETWORK = "devnet";
  const { default: hre } = await import("hardhat");
  const { hardhatClients } = await import("./deploy/hardhatClients");
  const { migrateRouter } = await import("./deploy/migrateRouter");
  const { manifestPath, readManifest } = await import("../sdk/chain/manifest");
  const { loadDevnetConfig } = await import("./devnet/devnetConfig");

  const clients = await hardhatClients(hre);
  const chainId = await clients.publicClient.getChainId();
  const manifest = readManifest(manifestPath(loadDevnetConfig().deploymentsDir, chainId));
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
