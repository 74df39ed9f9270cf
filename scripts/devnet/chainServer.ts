import type { HardhatRuntimeEnvironment } from "hardhat/types";
import { TASK_NODE_CREATE_SERVER } from "hardhat/builtin-tasks/task-names";

export type ChainServer = { url: string; close(): Promise<void> };

type JsonRpcServer = {
  listen(): Promise<{ address: string; port: number }>;
  close(): Promise<void>;
};

/**
 * Serves the in-process Hardhat network over JSON-RPC, as `hardhat node` does, but inside this
 * process so that stopping the devnet stops the chain with it.
 */
export async function startChainServer(hre: HardhatRuntimeEnvironment, host: string, port: number): Promise<ChainServer> {
  const server = (await hre.run(TASK_NODE_CREATE_SERVER, {
    hostname: host,
    port,
    provider: hre.network.provider,
  })) as JsonRpcServer;
  const { address, port: boundPort } = await server.listen();
  return { url: `http://${address}:${boundPort}`, close: () => server.close() };
}
