import { expect } from "chai";
import { createServer } from "node:net";
import { createPublicClient, http } from "viem";
import { ChainConnectionError, createTradingClient, devnetChain, rpcConnectionFailure, UntrustedRouterError } from "../../sdk";
import { DEV_KEYS, sharedDevnet, type SharedDevnet } from "../fixtures/sharedDevnet";

/** A loopback URL nothing listens on (a port just freed). */
async function closedUrl(): Promise<string> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const port = (probe.address() as { port: number }).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

describe("an unreachable RPC is a connection error naming its URL, never an untrusted router", function () {
  this.timeout(120_000);
  let devnet: SharedDevnet;
  before(async function () {
    this.timeout(300_000);
    devnet = await sharedDevnet();
  });

  it("executeQuote, signGaslessQuote and verifyQuote with a dead publicClient throw ChainConnectionError with the URL; nothing is signed or sent", async () => {
    const { apiKey } = await devnet.onboardedClient();
    const rpcUrl = await closedUrl();
    const client = createTradingClient({
      apiUrl: devnet.apiUrl,
      apiKey,
      publicClient: createPublicClient({ chain: devnetChain, transport: http(rpcUrl, { retryCount: 0 }) }),
      contracts: { routerRegistry: devnet.manifest.contracts.routerRegistry },
    });
    const taker = devnet.wallet(DEV_KEYS[9]);
    const nonceBefore = await devnet.publicClient.getTransactionCount({ address: taker.account.address });
    const quote = await client.getQuote({ sellToken: devnet.token("USDC"), buyToken: devnet.token("WETH"), sellAmount: 1_000_000n, taker: taker.account.address });
    const gasless = await client.getQuote({ sellToken: devnet.token("USDC"), buyToken: devnet.token("WETH"), sellAmount: 1_000_000n, taker: taker.account.address, gasless: true });
    for (const attempt of [() => client.executeQuote(quote, taker), () => client.signGaslessQuote(gasless, taker), () => client.verifyQuote(quote)]) {
      const error = await attempt().then(() => undefined, (caught: unknown) => caught);
      expect(error).to.be.instanceOf(ChainConnectionError);
      expect(error).to.not.be.instanceOf(UntrustedRouterError);
      // viem reports the URL it requested, with the path it added.
      expect((error as ChainConnectionError).url).to.be.oneOf([rpcUrl, `${rpcUrl}/`]);
      expect((error as Error).message).to.include(`cannot reach ${rpcUrl}`).and.not.include("refusing");
    }
    expect(await devnet.publicClient.getTransactionCount({ address: taker.account.address })).to.equal(nonceBefore);
    client.close();
  });

  it("recognises another viem copy's errors by name (an integrator's ES module viem is not this package's CommonJS one): no answer vs. an answer", () => {
    // The shapes viem gives: a call error wrapping an HTTP failure, and one wrapping the node's revert.
    const unreachable = { name: "CallExecutionError", shortMessage: "HTTP request failed.", cause: { name: "HttpRequestError", url: "http://127.0.0.1:1", shortMessage: "HTTP request failed.", details: "fetch failed" } };
    expect(rpcConnectionFailure(unreachable)).to.deep.equal({ url: "http://127.0.0.1:1", reason: "HTTP request failed. fetch failed" });
    const reverted = { name: "CallExecutionError", cause: { name: "InternalRpcError", cause: { name: "RpcRequestError", url: "http://127.0.0.1:1", details: "reverted with custom error 'RouterRegistryNoPreviousRouter(2)'" } } };
    expect(rpcConnectionFailure(reverted)).to.equal(undefined);
  });

  it("a registry that answers with a revert (no router for the feature) is still UntrustedRouterError, naming what it accepts", async () => {
    const { apiKey } = await devnet.onboardedClient();
    // A token is not the registry: it reverts every registry read: it vouches for no router.
    const client = createTradingClient({ apiUrl: devnet.apiUrl, apiKey, publicClient: devnet.publicClient, contracts: { routerRegistry: devnet.token("USDC") } });
    const taker = devnet.wallet(DEV_KEYS[9]);
    const quote = await client.getQuote({ sellToken: devnet.token("USDC"), buyToken: devnet.token("WETH"), sellAmount: 1_000_000n, taker: taker.account.address });
    const error = await client.verifyQuote(quote).then(() => undefined, (caught: unknown) => caught);
    expect(error).to.be.instanceOf(UntrustedRouterError);
    expect((error as UntrustedRouterError).accepted).to.deep.equal([]);
    client.close();
  });
});
