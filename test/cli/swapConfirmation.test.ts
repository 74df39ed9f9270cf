import { expect } from "chai";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { runCli } from "../fixtures/cliProcess";

describe("swap-api swap without --yes on a pipe refuses before it asks the API for anything", function () {
  this.timeout(60_000);
  let server: Server;
  const hits: string[] = [];
  let apiUrl: string;
  before(async () => {
    // A real API stand-in that counts what reaches it: a refused swap must reach nothing.
    server = createServer((request, response) => {
      hits.push(`${request.method} ${request.url}`);
      response.writeHead(503).end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("exit 2 naming --yes, and no request at all: no snapshot, no quote (nothing counted against the key)", async () => {
    const env = { SWAP_API_URL: apiUrl, SWAP_API_KEY: "tsk_unused", RPC_URL: "http://127.0.0.1:9", PRIVATE_KEY: `0x${"11".repeat(32)}`, ROUTER_REGISTRY: `0x${"22".repeat(20)}` };
    for (const args of [["swap", "USDC", "WETH", "1000000"], ["swap", "USDC", "WETH", "1000000", "--gasless", "--json"]]) {
      const result = await runCli(args, env);
      expect(result.code, result.stderr).to.equal(2);
      expect(result.stderr).to.include("--yes");
    }
    expect(hits).to.deep.equal([]);
  });
});
