/**
 * The relayer bench's second chain: Anvil, from the `@foundry-rs/anvil` npm package (its platform
 * package ships the binary; nothing is downloaded at run time), with the devnet's chain id, accounts,
 * hardfork and block gas limit, and the devnet's contracts deployed by the devnet's own deploy code.
 * For the bench only: `npm start` stays on Hardhat.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { dirname, join } from "node:path";
import type { HardhatRuntimeEnvironment } from "hardhat/types";
import { createPublicClient, http, type Address } from "viem";
import { devnetChain } from "../../sdk/chain/devnet";
import { manifestPath, type DeploymentManifest } from "../../sdk/chain/manifest";
import { deployDevnet } from "../deploy/deployDevnet";
import { freePort } from "../devnet/freePort";
import { DEVNET_ACCOUNT_COUNT } from "../devnet/devAccounts";

export type AnvilChain = {
  rpcUrl: string;
  /** Development account #0 (the devnet's mnemonic, so the same address as on Hardhat). */
  deployer: Address;
  manifest: DeploymentManifest;
  /** SIGTERM, then SIGKILL if it has not exited within 5 s. */
  stop(): Promise<void>;
};

/** The `anvil` binary of the installed platform package (`@foundry-rs/anvil-<os>-<arch>`). */
export function anvilBinary(): string {
  const arch = process.arch === "x64" ? "amd64" : process.arch;
  const platform = process.platform === "win32" ? "win32" : process.platform;
  const packageJson = require.resolve(`@foundry-rs/anvil-${platform}-${arch}/package.json`);
  return join(dirname(packageJson), "bin", process.platform === "win32" ? "anvil.exe" : "anvil");
}

/**
 * The arguments that make Anvil the devnet's twin: chain 4663, the 20 development accounts with
 * 1,000,000 ETH each (hardhat.config.ts), Cancun, a 30M block gas limit (Hardhat's default), and
 * automine until the bench switches to interval mining (as it does on Hardhat).
 */
export function anvilArguments(port: number, accounts = DEVNET_ACCOUNT_COUNT, extra: readonly string[] = []): string[] {
  return [
    "--host", "127.0.0.1",
    "--port", String(port),
    "--chain-id", String(devnetChain.id),
    "--accounts", String(accounts),
    "--balance", "1000000",
    "--hardfork", "cancun",
    "--gas-limit", "30000000",
    // Its own per-request log would flood the bench's output.
    "--silent",
    ...extra,
  ];
}

export type AnvilNode = {
  rpcUrl: string;
  /** What the devnet's deploy takes as `provider`. */
  provider: { request(args: { method: string; params?: unknown }): Promise<unknown> };
  stop(): Promise<void>;
};

/**
 * Starts Anvil with `accounts` development accounts (the devnet's 20 by default) and `extra`
 * arguments, on `port` (a free one by default; a node restarted on its old port keeps its URL), and
 * waits for its JSON-RPC.
 */
export async function startAnvilNode(accounts = DEVNET_ACCOUNT_COUNT, extra: readonly string[] = [], port?: number): Promise<AnvilNode> {
  port ??= await freePort();
  const child = spawn(anvilBinary(), anvilArguments(port, accounts, extra), { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output = (output + chunk.toString()).slice(-16_384)));
  child.stderr?.on("data", (chunk: Buffer) => (output = (output + chunk.toString()).slice(-16_384)));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = () => stopChild(child, exited);
  try {
    const rpcUrl = `http://127.0.0.1:${port}`;
    const client = createPublicClient({ chain: devnetChain, transport: http(rpcUrl, { retryCount: 0 }) });
    await waitForRpc(() => client.getChainId(), exited, () => output);
    return { rpcUrl, provider: { request: (args) => client.request(args as never) }, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Starts Anvil on a free port (with `extra` arguments), deploys the devnet's contracts on it and writes the manifest to `deploymentsDir`. */
export async function startAnvilChain(hre: HardhatRuntimeEnvironment, deploymentsDir: string, extra: readonly string[] = []): Promise<AnvilChain> {
  const node = await startAnvilNode(DEVNET_ACCOUNT_COUNT, extra);
  try {
    const manifest = (await deployDevnet(hre, manifestPath(deploymentsDir, devnetChain.id), node.provider)).manifest;
    const [deployer] = (await node.provider.request({ method: "eth_accounts" })) as Address[];
    return { rpcUrl: node.rpcUrl, deployer: deployer!, manifest, stop: node.stop };
  } catch (error) {
    await node.stop();
    throw error;
  }
}

async function waitForRpc(probe: () => Promise<unknown>, exited: Promise<void>, output: () => string): Promise<void> {
  let gone = false;
  void exited.then(() => (gone = true));
  const until = Date.now() + 30_000;
  for (;;) {
    if (gone) throw new Error(`anvil exited before it answered:\n${output()}`);
    try {
      await probe();
      return;
    } catch (error) {
      if (Date.now() > until) throw new Error(`anvil did not answer within 30 s: ${String(error)}\n${output()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

async function stopChild(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
  await exited;
  clearTimeout(timer);
}
