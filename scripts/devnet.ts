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
import { devnetRelayerSigners } from "./devnet/devnetRelayerSigners";
import { loadDevnetConfig, type DevnetConfig } from "./devnet/devnetConfig";
import { deployDevnet } from "./deploy/deployDevnet";
import { loadApiConfig } from "../api/config";
import { startApi } from "../api/startApi";
import { randomBytes } from "node:crypto";
import { spawnService } from "./devnet/spawnService";
import { PortInUseError, rethrowPortInUse } from "./devnet/portInUseError";
import { assertPortsFree } from "./devnet/portCheck";
import { preserveFile } from "./devnet/manifestRollback";
import { superviseService } from "./devnet/serviceSupervisor";
import { freePort } from "./devnet/freePort";
import { forkHardhatNetwork, ForkError, type ForkTarget } from "./fork/forkChain";
import { ChainFileError } from "../sdk/chain/chainFile";
import { deployForkDevnet, type ForkDevnet } from "./fork/forkDevnet";
import { RELAYER_READY_WITH_METRICS } from "../relayer/readyLines";

/** A relayer starts in seconds here; two minutes leaves room for a loaded machine. */
const RELAYER_READY_WITHIN_MS = 120_000;

type Stop = () => Promise<void>;

/** What the steps learn as they run; a later step may rely on what an earlier one filled in. */
type DevnetContext = {
  config: DevnetConfig;
  rpcUrl?: string;
  manifest?: DeploymentManifest;
  manifestFile?: string;
  /** Puts back the manifest the deploy replaced; a start that fails calls it. */
  restoreManifest?: () => void;
  apiUrl?: string;
  apiMetricsUrl?: string;
  /** Whether the API approves applications at once (the devnet's default; a deployment's is false). */
  autoApprove?: boolean;
  /** `byHand`: with DEVNET_RELAYER=off, the environment to run the relayer with (`npm run relayer`). */
  /** Fork mode (FORK_URL): the chain forked, and what the deploy step did on the fork. */
  fork?: ForkTarget & { devnet?: ForkDevnet };
  relayer?: { url: string; metricsUrl: string; token: string; feeRecipient: string; signers: { address: string; balance: bigint }[]; byHand?: Record<string, string> };
};

type Step = { name: string; run(context: DevnetContext): Promise<Stop | void> };

function required<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`devnet step order: ${what} is not available yet`);
  return value;
}

const steps: Step[] = [
  {
    // Every port first: a busy one must stop the start before a chain is deployed or a manifest written.
    name: "check ports",
    run: async ({ config }) => {
      await assertPortsFree([
        { what: "the devnet's JSON-RPC", host: config.host, port: config.port, variable: "DEVNET_PORT" },
        { what: "the API's", host: config.api.host, port: config.api.port, variable: "API_PORT" },
        ...(config.startRelayer ? [{ what: "the relayer's", host: config.relayer.host, port: config.relayer.port, variable: "RELAYER_PORT" }] : []),
      ]);
    },
  },
  {
    name: "compile contracts",
    run: async () => {
      await hre.run("compile", { quiet: true });
    },
  },
  {
    name: "start chain",
    run: async (context) => {
      // Fork mode: the in-process network becomes a fork of FORK_URL before it is served.
      if (context.config.fork !== undefined) context.fork = await forkHardhatNetwork(hre, context.config.fork);
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
      context.restoreManifest = preserveFile(context.manifestFile).restore;
      const { fork } = context;
      if (fork !== undefined) {
        fork.devnet = await deployForkDevnet(hre, fork, context.manifestFile, context.config.fork!.logRange, (line) => console.error(`devnet: ${line}`));
        context.manifest = fork.devnet.manifest;
        return;
      }
      context.manifest = (await deployDevnet(hre, context.manifestFile)).manifest;
    },
  },
  {
    // The relayer in its own process (as in production), with development accounts #16-#19 as its
    // signers and #15 as the operator's fee recipient: accounts no other part of the devnet uses.
    // Supervised: if it dies it is logged and started again (it reconciles its relays on start), on
    // the same port, so the API's RELAYER_URL stays right. DEVNET_RELAYER=off leaves it to be run by hand.
    name: "start relayer",
    run: async (context) => {
      const accounts = devAccounts(hre);
      // RELAYER_SIGNERS (an HSM or keystore key) replaces accounts #16-#19; its signers are funded.
      const signers = await devnetRelayerSigners(hre);
      const feeRecipient = accounts[15]!.address;
      const token = context.config.relayerToken ?? randomBytes(24).toString("hex");
      const { host } = context.config.relayer;
      const port = context.config.relayer.port === 0 ? await freePort() : context.config.relayer.port;
      // Metrics on a port of their own, chosen once (unless RELAYER_METRICS_PORT says) so a restart keeps it.
      const metricsPort = process.env.RELAYER_METRICS_PORT ?? String(await freePort());
      const env = {
        RELAYER_PORT: String(port),
        RELAYER_INTERNAL_TOKEN: token,
        ...signers.env,
        RPC_URL: required(context.rpcUrl, "rpcUrl"),
        CHAIN_ID: String(required(context.manifest, "manifest").chainId),
        DEPLOYMENTS_DIR: context.config.deploymentsDir,
        RELAYER_METRICS_PORT: metricsPort,
      };
      const client = await hre.viem.getPublicClient();
      const balances = await Promise.all(signers.addresses.map(async (address) => ({ address, balance: await client.getBalance({ address }) })));
      const reachable = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
      const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
      if (!context.config.startRelayer) {
        context.relayer = { url: `http://${reachable}:${port}`, metricsUrl, token, feeRecipient, signers: balances, byHand: env };
        return;
      }
      const relayer = await superviseService({
        name: "relayer",
        // In the devnet's process group: whoever stops the devnet's group stops its relayer too.
        // Bounded: a relayer stuck before serving names itself and prints its output instead of hanging the devnet.
        start: () => spawnService("relayer/main.ts", env, RELAYER_READY_WITH_METRICS, { ownGroup: false, readyWithinMs: RELAYER_READY_WITHIN_MS }),
        log: (line) => console.error(`devnet: ${line}`),
      }).catch((error: unknown) => {
        // The relayer names a busy port itself; say it the way the other ports are said.
        const busy = /relayer port (\d+) on (\S+) is in use/.exec(error instanceof Error ? error.message : "");
        if (busy !== null) throw new PortInUseError("the relayer's", busy[2]!, Number(busy[1]), "RELAYER_PORT");
        throw error;
      });
      context.relayer = { url: relayer.current().ready[1]!, metricsUrl: `${relayer.current().ready[2]!}/metrics`, token, feeRecipient, signers: balances };
      return relayer.stop;
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
      // GET /metrics on a port of its own: a free one unless METRICS_PORT says otherwise. Onboarding on a
      // devnet should not wait for an operator: AUTO_APPROVE is on unless the user set it (the API's own
      // default is off). The banner says so.
      const env = {
        METRICS_PORT: "0",
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
      context.apiMetricsUrl = `${required(api.metricsUrl, "metricsUrl")}/metrics`;
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
    ...forkLines(context),
    `  Manifest    ${required(context.manifestFile, "manifestFile")}`,
    `  API URL     ${required(context.apiUrl, "apiUrl")}`,
    `  Metrics     ${required(context.apiMetricsUrl, "apiMetricsUrl")} (API), ${required(context.relayer, "relayer").metricsUrl} (relayer); operators only`,
    required(context.autoApprove, "autoApprove")
      ? "  Onboarding  AUTO_APPROVE=true (devnet): applications are active at once; their token demand counts toward promotion after `npm run integrators -- confirm <slug>`"
      : "  Onboarding  AUTO_APPROVE=false: applications wait for `npm run integrators -- approve <slug>`",
    required(context.relayer, "relayer").byHand === undefined
      ? `  Relayer     ${required(context.relayer, "relayer").url} (internal; integrators use POST /gasless/submit on the API; restarted if it dies)`
      : `  Relayer     ${required(context.relayer, "relayer").url} (not started: DEVNET_RELAYER=off; run it by hand, below)`,
    `  Fee payee   ${required(context.relayer, "relayer").feeRecipient} (relayer fees, signed in every gasless quote)`,
    ...required(context.relayer, "relayer").signers.map((signer, index) => `  Signer #${index}   ${signer.address}  ${formatEther(signer.balance)} ETH`),
    ...relayerByHand(context),
    "",
    "In another terminal, so every tool (CLI, scripts, npm run api/relayer) reaches this devnet rather than a default port:",
    `  ${exportLine(context)}`,
    "",
    "Contracts",
    ...Object.entries(manifest.contracts).map(([name, address]) => `  ${name.padEnd(20)} ${address}`),
    "",
    "Tokens (the first 10 accounts hold grants of each; ETH sells use 0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE)",
    ...manifest.tokens.map((token) => `  ${token.symbol.padEnd(20)} ${token.address}  ${token.decimals} decimals${fundingOf(context, token.address)}`),
    "",
    "Funded development accounts (1,000,000 ETH each; well-known test keys, never use them on a real chain)",
    ...devAccounts(hre).map((account, index) => `  #${String(index).padEnd(2)} ${account.address}  ${account.privateKey}`),
    "",
    "Press Ctrl-C to stop.",
    "",
  ];
  process.stdout.write(lines.join("\n"));
}

/** Fork mode: what was forked, at which block, and what the devnet found there. */
function forkLines(context: DevnetContext): string[] {
  const { fork } = context;
  if (fork === undefined) return [];
  const manifest = required(context.manifest, "manifest");
  const venues = manifest.venues.map((venue) => `${venue.name} ${manifest.pools.filter((pool) => pool.source === venue.name).length}`).join(", ");
  return [
    `  Fork        a fork of ${fork.chainFile.name} (${fork.chainFile.displayName}) at ${fork.url}, block ${fork.block}; nothing done here reaches that chain`,
    `  Fork pools  ${manifest.pools.length} (${venues}) found from the factories' events since each venue's start block${fork.devnet !== undefined && fork.devnet.skippedPools.length > 0 ? `; ${fork.devnet.skippedPools.length} left out` : ""}`,
    `  Canonical   Permit2 ${manifest.contracts.permit2}, ${fork.chainFile.wrappedNative.symbol} ${manifest.contracts.weth} (the chain's own; our contracts deployed on the fork by the CREATE2 plan of npm run deploy)`,
  ];
}

/** Fork mode: how the development accounts got `token` (its storage slot, a deposit, or not at all). */
function fundingOf(context: DevnetContext, token: string): string {
  const funding = context.fork?.devnet?.fundings.find((entry) => entry.token.address === token);
  return funding === undefined ? "" : `  (${funding.how})`;
}

/**
 * `export …` of every URL and port variable this devnet resolved (a port of 0 is the one it got), as
 * the tools read them (sdk/chain/devnet.ts: RPC_URL, else DEVNET_HOST/DEVNET_PORT; SWAP_API_URL, else
 * API_HOST/API_PORT), so a second terminal never falls back to 8545 or 8080 silently.
 */
function exportLine(context: DevnetContext): string {
  const rpc = new URL(required(context.rpcUrl, "rpcUrl"));
  const api = new URL(required(context.apiUrl, "apiUrl"));
  const variables: [string, string][] = [
    ["RPC_URL", rpc.origin],
    ["SWAP_API_URL", api.origin],
    ["CHAIN_ID", String(required(context.manifest, "manifest").chainId)],
    ["DEPLOYMENTS_DIR", context.config.deploymentsDir],
    ["DEVNET_HOST", rpc.hostname],
    ["DEVNET_PORT", rpc.port],
    ["API_HOST", api.hostname],
    ["API_PORT", api.port],
    ["RELAYER_URL", required(context.relayer, "relayer").url],
  ];
  return `export ${variables.map(([name, value]) => `${name}=${/^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, "'\\''")}'`}`).join(" ")}`;
}

/** With DEVNET_RELAYER=off: the command that runs the devnet's relayer by hand, as npm start would. */
function relayerByHand(context: DevnetContext): string[] {
  const env = required(context.relayer, "relayer").byHand;
  if (env === undefined) return [];
  return ["", "Run the relayer by hand (the API expects it at the URL above, with this token):", `  ${Object.entries(env).map(([name, value]) => `${name}=${value}`).join(" ")} npm run relayer`];
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
      // Progress on stderr (the banner is stdout's): a slow or stuck start says where it is.
      console.error(`devnet: ${step.name}…`);
      const stop = await step.run(context);
      if (stop) stops.push(stop);
    } catch (error) {
      // A busy port is the user's to fix: say which and how, without a stack.
      if (error instanceof PortInUseError || error instanceof ForkError || error instanceof ChainFileError) console.error(`devnet: ${error.message}`);
      else console.error(`devnet: step "${step.name}" failed:`, error);
      // A failed start leaves the manifest as it was (another devnet may be running on it).
      context.restoreManifest?.();
      await stopAll(1);
    }
  }
  printBanner(context);
}

void main();
