import { expect } from "chai";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { custom } from "viem";
import { fanOutSends } from "../../relayer/broadcast/sendFanOut";
import { isTransientRpcError } from "../../relayer/broadcast/transientRpcError";

/** A JSON-RPC endpoint on loopback that answers every call with `error`, or never answers (`silent`). */
async function endpoint(answer: { error: { code: number; message: string } } | "silent"): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    request.resume();
    if (answer === "silent") return;
    request.on("end", () => response.setHeader("content-type", "application/json").end(JSON.stringify({ jsonrpc: "2.0", id: 1, ...answer })));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/**
 * What eth_sendRawTransaction answers through RELAYER_SEND_URLS when no endpoint takes the transaction:
 * a refusal only when every endpoint answered no. An endpoint that timed out may have taken and
 * propagated it, so the send must stay open (transient: followed and checked against the chain)
 * rather than end the relay failed while its transaction mines (review finding, money path).
 */
describe("relayer send fan-out: the answer when no endpoint took the transaction", () => {
  const servers: Server[] = [];
  afterEach(() => {
    for (const server of servers.splice(0)) server.closeAllConnections(), server.close();
  });

  async function send(answers: Parameters<typeof endpoint>[0][]): Promise<unknown> {
    const endpoints = await Promise.all(answers.map(endpoint));
    servers.push(...endpoints.map((entry) => entry.server));
    const reads = custom({ request: async () => "0x1" });
    const transport = fanOutSends(reads, endpoints.map((entry) => entry.url), () => undefined, 300)({ retryCount: 0 });
    return transport.request({ method: "eth_sendRawTransaction", params: ["0x02"] }).then(
      () => "accepted",
      (error: unknown) => error,
    );
  }

  const refusal = { error: { code: -32000, message: "insufficient funds for gas * price + value" } };

  it("one endpoint refuses and another times out: the answer is transient, not the refusal", async () => {
    const answer = await send([refusal, "silent"]);
    expect(isTransientRpcError(answer), String(answer)).to.equal(true);
  });

  it("every endpoint refuses: the refusal is the answer, and 'already known' (ours is there) before any other", async () => {
    const refused = await send([refusal, refusal]);
    expect(isTransientRpcError(refused)).to.equal(false);
    expect(String(refused)).to.match(/insufficient funds/);
    const known = await send([refusal, { error: { code: -32000, message: "already known" } }]);
    expect(String(known)).to.match(/already known/);
  });
});
