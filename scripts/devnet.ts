/**
 * `npm start`: a chain-4663 devnet with everything deployed, in one process.
 *
 * Each step is one entry of `steps`; adding a service (the API, the relayer) is one line there. A step
 * may return a stop function; Ctrl-C (or SIGTERM) runs them in reverse order and exits, so nothing the
 * devnet started outlives it.
 */
import hre from "hardhat";
import { custom, formatEther } from "viem";
import { manifestPath, type DeploymentManifest } from "../sdk/chain/manifest";
import { startChainServer } from "./devnet/chainServer";
import { devAccounts } from "./devnet/devAccounts";
import { loadDevnetConfig, type DevnetConfig } from "./devnet/devnetConfig";
import { deployDevnet } from "./deploy/deployDevnet";
import { loadApiConfig } from "../api/config";
import { startApi } from "../api/startApi";
import { randomBytes } from "node:crypto";
import { spawnService } from "./devnet/spawnService";
import { PortInUseError, rethrowPortInUse } from "./devnet/portInUseError";

type Stop = () => Promise<void>;

/** What the steps learn as they run; a later step may rely on what an earlier one filled in. */
type DevnetContext = {
  config: DevnetConfig;
  rpcUrl?: string;
  manifest?: DeploymentManifest;
  manifestFile?: string;
  apiUrl?: string;
  /** Whether the API approves applications at once (the devnet's default; a deployment's is false). */
  autoApprove?: boolean;
  relayer?: { url: string; token: string; feeRecipient: string; signers: { address: string; balance: bigint }[] };
};

type Step = { name: string; run(context: DevnetContext): Promise<Stop | void> };

function required<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`devnet step order: ${what} is not available yet`);
  return value;
}

const steps: Step[] = [
  {
    name: "compile contracts",
    run: async () => {
      await hre.run("compile", { quiet: true });
    },
  },
  {
    name: "start chain",
    run: async (context) => {
      const server = await startChainServer(hre, context.config.host, context.config.port);
      context.rpcUrl = server.url;
      return server.close;
    },
  },
  {
    name: "deploy contracts",
    run: async (context) => {
      const chainId = await (await hre.viem.getPublicClient()).getChainId();
      context.manifestFile = manifestPath(context.config.deploymentsDir, chainId);
      context.manifest = (await deployDevnet(hre, context.manifestFile)).manifest;
    },
  },
  {
    // The relayer in its own process (as in production), with development accounts #16-#19 as its
    // signers and #15 as the operator's fee recipient: accounts no other part of the devnet uses.
    name: "start relayer",
    run: async (context) => {
      const accounts = devAccounts(hre);
      const signers = accounts.slice(16, 20);
      const feeRecipient = accounts[15]!.address;
      const token = randomBytes(24).toString("hex");
      const relayer = await spawnService(
        "relayer/main.ts",
        {
          RELAYER_PRIVATE_KEYS: signers.map((account) => account.privateKey).join(","),
          RELAYER_INTERNAL_TOKEN: token,
          RPC_URL: required(context.rpcUrl, "rpcUrl"),
          CHAIN_ID: String(required(context.manifest, "manifest").chainId),
          DEPLOYMENTS_DIR: context.config.deploymentsDir,
        },
        /^Relayer on (\S+)$/m,
      ).catch((error: unknown) => {
        // The relayer names a busy port itself; say it the way the other ports are said.
        const busy = /relayer port (\d+) on (\S+) is in use/.exec(error instanceof Error ? error.message : "");
        if (busy !== null) throw new PortInUseError("the relayer's", busy[2]!, Number(busy[1]), "RELAYER_PORT");
        throw error;
      });
      const client = await hre.viem.getPublicClient();
      const balances = await Promise.all(signers.map(async (account) => ({ address: account.address, balance: await client.getBalance({ address: account.address }) })));
      context.relayer = { url: relayer.ready[1]!, token, feeRecipient, signers: balances };
      return async () => {
        await relayer.stop();
      };
    },
  },
  {
    // The API on API_HOST:API_PORT (default 127.0.0.1:8080): onboarding, the supported-token snapshot and
    // quotes, reading the manifest just written (the same DEPLOYMENTS_DIR). It reads this chain
    // in-process, as the chain runs here; RPC_URL still names the devnet's endpoint for anything else.
    name: "start integrator API",
    run: async (context) => {
      const chainId = required(context.manifest, "manifest").chainId;
      const relayer = required(context.relayer, "relayer");
      // Onboarding on a devnet should not wait for an operator: AUTO_APPROVE is on unless the user set it
      // (the API's own default is off). The banner says so.
      const env = {
        ...process.env,
        AUTO_APPROVE: process.env.AUTO_APPROVE ?? "true",
        RELAYER_URL: relayer.url,
        RELAYER_INTERNAL_TOKEN: relayer.token,
        RELAYER_FEE_RECIPIENT: relayer.feeRecipient,
      };
      const config = { ...loadApiConfig(env), chainId, rpcUrl: required(context.rpcUrl, "rpcUrl"), deploymentsDir: context.config.deploymentsDir };
      const api = await startApi(config, undefined, new Map([[chainId, custom(hre.network.provider, { retryCount: 0 })]])).catch((error: unknown) =>
        rethrowPortInUse(error, "the API's", config.host, config.port, "API_PORT"),
      );
      context.apiUrl = api.url;
      context.autoApprove = config.autoApprove;
      return api.close;
    },
  },
];

function printBanner(context: DevnetContext): void {
  const manifest = required(context.manifest, "manifest");
  const lines = [
    "",
    "Devnet ready",
    `  RPC URL     ${required(context.rpcUrl, "rpcUrl")}`,
    `  Chain id    ${manifest.chainId} (0x${manifest.chainId.toString(16)})`,
    `  Manifest    ${required(context.manifestFile, "manifestFile")}`,
    `  API URL     ${required(context.apiUrl, "apiUrl")}`,
    required(context.autoApprove, "autoApprove")
      ? "  Onboarding  AUTO_APPROVE=true (devnet): applications are active at once; their token demand counts toward promotion after `npm run integrators -- confirm <slug>`"
      : "  Onboarding  AUTO_APPROVE=false: applications wait for `npm run integrators -- approve <slug>`",
    `  Relayer     ${required(context.relayer, "relayer").url} (internal; integrators use POST /gasless/submit on the API)`,
    `  Fee payee   ${required(context.relayer, "relayer").feeRecipient} (relayer fees, signed in every gasless quote)`,
    ...required(context.relayer, "relayer").signers.map((signer, index) => `  Signer #${index}   ${signer.address}  ${formatEther(signer.balance)} ETH`),
    "",
    "Contracts",
    ...Object.entries(manifest.contracts).map(([name, address]) => `  ${name.padEnd(20)} ${address}`),
    "",
    "Tokens (the first 10 accounts hold grants of each; ETH sells use 0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE)",
    ...manifest.tokens.map((token) => `  ${token.symbol.padEnd(20)} ${token.address}  ${token.decimals} decimals`),
    "",
    "Funded development accounts (1,000,000 ETH each; well-known test keys, never use them on a real chain)",
    ...devAccounts(hre).map((account, index) => `  #${String(index).padEnd(2)} ${account.address}  ${account.privateKey}`),
    "",
    "Press Ctrl-C to stop.",
    "",
  ];
  process.stdout.write(lines.join("\n"));
}

async function main(): Promise<void> {
  const context: DevnetContext = { config: loadDevnetConfig() };
  const stops: Stop[] = [];
  let stopping = false;

  const stopAll = async (exitCode: number): Promise<never> => {
    if (stopping) process.exit(exitCode === 0 ? 130 : exitCode);
    stopping = true;
    for (const stop of stops.reverse()) {
      await stop().catch((error: unknown) => console.error("devnet: error while stopping:", error));
    }
    process.exit(exitCode);
  };
  process.on("SIGINT", () => void stopAll(0));
  process.on("SIGTERM", () => void stopAll(0));

  for (const step of steps) {
    try {
      const stop = await step.run(context);
      if (stop) stops.push(stop);
    } catch (error) {
      // A busy port is the user's to fix: say which and how, without a stack.
      if (error instanceof PortInUseError) console.error(`devnet: ${error.message}`);
      else console.error(`devnet: step "${step.name}" failed:`, error);
      await stopAll(1);
    }
  }
  printBanner(context);
}

void main();
