/**
 * `npm run migrate-router -- <featureId> [signer]`: deploys a new router for feature 2 or 3 on the
 * chain and migrates the registry to it, so the dwell window can be watched (prev answers until it
 * closes). Reads the chain's manifest. The registry administrator signs: from an encrypted keystore
 * (`--keystore <file|name> [--keystore-dir <dir>] [--password-file <file>]`, see `npm run keystore`),
 * or a raw OPERATOR_PRIVATE_KEY only with `--unsafe-private-key`; or an unlocked account of the node
 * named with `--from <address>`; without any, the first account of a development node only (on the
 * devnet, development account #0, the administrator).
 *
 * Environment: RPC_URL (default the devnet's http://DEVNET_HOST:DEVNET_PORT), DEPLOYMENTS_DIR
 * (default deployments), as every script reads them, and the signer's variables (docs/operators/keys.md).
 */
import { parseArgs } from "node:util";
import { CLI_SIGNER_USAGE } from "../sdk";
import { OPERATOR_SIGNER_ARGS, operatorSigner, operatorSignerChoiceOf } from "./operatorWrites";

const USAGE = ["usage: npm run migrate-router -- <2|3> [signer]", `  ${CLI_SIGNER_USAGE}`, "  --from <address>   an unlocked account of the node (default: the first, on a development node only)"].join("\n");

async function main(): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({ args: process.argv.slice(2), options: OPERATOR_SIGNER_ARGS, allowPositionals: true, strict: true });
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    process.exit(2);
  }
  const [featureArgument, ...extra] = parsed.positionals;
  if (featureArgument === undefined || !/^[23]$/.test(featureArgument) || extra.length > 0) {
    console.error(USAGE);
    process.exit(2);
  }
  // Reach the chain first, so a failure names the URL it tried (Hardhat's own error does not).
  const { connectToChain, loadChainTarget } = await import("./chainConnection");
  const chain = await connectToChain(loadChainTarget());
  const { manifest, rpcUrl } = chain;
  // The key is decrypted before anything is deployed, so a wrong password costs nothing.
  const signer = await operatorSigner({ chain, print: (line) => process.stdout.write(`${line}\n`) }, operatorSignerChoiceOf(parsed.values));
  process.env.RPC_URL = rpcUrl;
  // The network must be chosen before Hardhat loads.
  process.env.HARDHAT_NETWORK = "devnet";
  const { default: hre } = await import("hardhat");
  const { createWalletClient, custom } = await import("viem");
  const { devnetChain } = await import("../sdk/chain/devnet");
  const { hardhatClients } = await import("./deploy/hardhatClients");
  const { migrateRouter } = await import("./deploy/migrateRouter");

  const clients = await hardhatClients(hre);
  // A local account signs in this process and sends raw transactions; the deploy steps only read
  // `account.address` and pass the client to hardhat-viem, which handles both kinds of account.
  const admin =
    typeof signer === "string"
      ? clients.walletClients.find((client) => client.account.address.toLowerCase() === signer.toLowerCase())
      : (createWalletClient({ chain: devnetChain, transport: custom(hre.network.provider, { retryCount: 0 }), account: signer, pollingInterval: 50, cacheTime: 0 }) as unknown as (typeof clients.walletClients)[number]);
  if (admin === undefined) throw new Error(`${String(signer)} is not an account Hardhat can send from at ${rpcUrl}: sign with --keystore <file|name> (see npm run keystore)`);
  const result = await migrateRouter(hre, clients, admin, manifest, BigInt(featureArgument));
  const lines = [
    `Feature ${result.featureId} migrated to ${result.router} (signed by ${admin.account.address})`,
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
