import { expect } from "chai";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { createWalletClient, http } from "viem";
import { ApiError, createTradingClient, devnetChain } from "../../sdk";

/** A real HTTP server that answers every request 503, counting what it was sent. */
async function unavailableApi(): Promise<{ url: string; hits: string[]; server: Server }> {
  const hits: string[] = [];
  const server = createServer((request, response) => {
    hits.push(`${request.method} ${request.url}`);
    request.resume();
    response.writeHead(503, { "content-type": "application/json" }).end(JSON.stringify({ error: "try later", code: "unavailable" }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits, server };
}

describe("the client's advice after a retryable failure says what it did with that request", () => {
  let api: Awaited<ReturnType<typeof unavailableApi>>;
  before(async () => {
    api = await unavailableApi();
  });
  after(() => new Promise<void>((resolve) => api.server.close(() => resolve())));
  beforeEach(() => (api.hits.length = 0));

  const wallet = createWalletClient({ account: privateKeyToAccount(generatePrivateKey()), chain: devnetChain, transport: http("http://127.0.0.1:9") });

  it("a POST the client does not repeat (onboarding) is sent once, and the advice says so instead of claiming GETs were retried", async () => {
    const client = createTradingClient({ apiUrl: api.url, retryBaseDelayMs: 1 });
    const error = await client.apply(wallet, { displayName: "Acme", slug: "acme-advice", requestedMaxFeeBps: 0 }).catch((caught: unknown) => caught);
    expect(error).to.be.instanceOf(ApiError);
    expect(api.hits).to.deep.equal(["POST /integrators/nonce"]);
    const details = (error as ApiError).details!;
    expect(details).to.not.match(/GETs/);
    expect(details).to.include("did not repeat this POST").and.include("before sending it again");
    client.close();
  });

  it("a gasless submit was repeated with one idempotency key: the advice is to submit again with the same key", async () => {
    const client = createTradingClient({ apiUrl: api.url, apiKey: "k", maxAttempts: 3, retryBaseDelayMs: 1 });
    const error = await client.submitGasless("00000000-0000-4000-8000-000000000000", `0x${"11".repeat(65)}`, { idempotencyKey: "fixed" }).catch((caught: unknown) => caught);
    expect(api.hits).to.deep.equal(Array(3).fill("POST /gasless/submit"));
    const details = (error as ApiError).details!;
    expect(details).to.include("3 times").and.include("same idempotencyKey");
    expect(details).to.not.match(/GETs/);
    client.close();
  });

  it("a GET was retried: the advice counts the attempts of that GET", async () => {
    const client = createTradingClient({ apiUrl: api.url, maxAttempts: 2, retryBaseDelayMs: 1 });
    const error = await client.getSupportedTokens().catch((caught: unknown) => caught);
    expect(api.hits).to.have.length(2);
    expect((error as ApiError).details).to.include("already sent this GET 2 times");
    client.close();
  });
});
