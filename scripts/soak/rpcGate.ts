import { createServer, connect, type Server, type Socket } from "node:net";

export type RpcGate = {
  /** The URL the APIs and relayers use as RPC_URL. */
  url: string;
  /** Stops listening and cuts every open connection: the node is unreachable (connections refused). */
  cut(): Promise<void>;
  /** Listens again on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
};

/**
 * A TCP proxy in front of the chain's JSON-RPC: the soak cuts it to make the node unreachable for the
 * APIs and relayers (refused connections, as a node that went away) while the chain keeps mining and
 * the soak itself still reads it directly. Bytes pass through untouched.
 */
export async function startRpcGate(target: string): Promise<RpcGate> {
  const { hostname, port: targetPort } = new URL(target);
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;

  const open = () =>
    new Promise<void>((resolve, reject) => {
      const listening = createServer((client) => {
        const upstream = connect(Number(targetPort), hostname);
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.once("close", () => sockets.delete(socket));
          // A cut connection errors on both sides; the other side is closed with it.
          socket.on("error", () => undefined);
        }
        client.once("close", () => upstream.destroy());
        upstream.once("close", () => client.destroy());
        client.pipe(upstream);
        upstream.pipe(client);
      });
      listening.once("error", reject);
      listening.listen(port, "127.0.0.1", () => {
        port = (listening.address() as { port: number }).port;
        server = listening;
        resolve();
      });
    });

  const shut = () =>
    new Promise<void>((resolve) => {
      const closing = server;
      server = undefined;
      for (const socket of sockets) socket.destroy();
      if (closing === undefined) resolve();
      else closing.close(() => resolve());
    });

  await open();
  return { url: `http://127.0.0.1:${port}`, cut: shut, restore: open, close: shut };
}
