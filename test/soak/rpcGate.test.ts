import { expect } from "chai";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { startRpcGate } from "../../scripts/soak/rpcGate";

describe("soak RPC gate: the node made unreachable and reachable again", () => {
  let target: Server;
  let targetUrl: string;

  before(async () => {
    target = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ echoed: Buffer.concat(chunks).toString() })));
    });
    await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
    targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => target.close(() => resolve())));

  const ask = (url: string) => fetch(url, { method: "POST", body: '{"method":"eth_blockNumber"}', signal: AbortSignal.timeout(5_000) }).then((response) => response.json());

  it("passes requests through, refuses connections while cut (open ones are cut too), and serves on the same URL once restored", async () => {
    const gate = await startRpcGate(targetUrl);
    try {
      expect(await ask(gate.url)).to.deep.equal({ echoed: '{"method":"eth_blockNumber"}' });
      await gate.cut();
      const refused = await ask(gate.url).then(
        () => undefined,
        (error: unknown) => (error as { cause?: { code?: string } }).cause?.code,
      );
      // A kept-alive connection the cut closed may be noticed as closed before the new one is refused.
      expect(["ECONNREFUSED", "ECONNRESET", "UND_ERR_SOCKET"]).to.include(refused);
      const again = await ask(gate.url).then(
        () => undefined,
        (error: unknown) => (error as { cause?: { code?: string } }).cause?.code,
      );
      expect(again).to.equal("ECONNREFUSED");
      await gate.restore();
      expect(await ask(gate.url)).to.deep.equal({ echoed: '{"method":"eth_blockNumber"}' });
    } finally {
      await gate.close();
    }
  });
});
