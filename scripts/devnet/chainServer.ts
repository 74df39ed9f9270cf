import type { HardhatRuntimeEnvironment } from "hardhat/types";
import { TASK_NODE_CREATE_SERVER } from "hardhat/builtin-tasks/task-names";
import { rethrowPortInUse } from "./portInUseError";

export type ChainServer = { url: string; close(): Promise<void> };

type ErrorEmitter = { once(event: "error", listener: (error: Error) => void): unknown; off(event: "error", listener: (error: Error) => void): unknown };

/** Hardhat's JsonRpcServer; its `listen()` never rejects, so a bind error is caught on its servers. */
type JsonRpcServer = {
  listen(): Promise<{ address: string; port: number }>;
  close(): Promise<void>;
  _httpServer: ErrorEmitter;
  _wsServer: ErrorEmitter;
};

/**
 * Serves the in-process Hardhat network over JSON-RPC, as `hardhat node` does, but inside this
 * process so that stopping the devnet stops the chain with it. A busy port is a PortInUseError.
 */
export async function startChainServer(hre: HardhatRuntimeEnvironment, host: string, port: number): Promise<ChainServer> {
  const server = (await hre.run(TASK_NODE_CREATE_SERVER, {
    hostname: host,
    port,
    provider: hre.network.provider,
  })) as JsonRpcServer;
  // The WebSocket server re-emits the HTTP server's errors; unheard, that would crash the process.
  const { address, port: boundPort } = await new Promise<{ address: string; port: number }>((resolve, reject) => {
    const failed = (error: Error) => reject(error);
    server._httpServer.once("error", failed);
    server._wsServer.once("error", () => undefined);
    void server.listen().then((bound) => {
      server._httpServer.off("error", failed);
      resolve(bound);
    });
  }).catch((error: unknown) => rethrowPortInUse(error, "the devnet's JSON-RPC", host, port, "DEVNET_PORT"));
  return { url: `http://${address}:${boundPort}`, close: () => server.close() };
}
