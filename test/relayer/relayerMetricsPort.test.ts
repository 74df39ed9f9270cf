import { expect } from "chai";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { gaslessReadyFixture, RELAYER_TOKEN, startGaslessStack, type GaslessStack } from "../fixtures/gaslessStack";

/**
 * The relayer's metrics tell its signers' balances: they are served on RELAYER_METRICS_PORT only,
 * never on the internal endpoint every API instance reaches, nor on the API's public port.
 */
describe("relayer metrics on a port of their own", function () {
  this.timeout(60_000);
  let stack: GaslessStack | undefined;
  afterEach(async () => {
    await stack?.close();
    stack = undefined;
  });

  it("serves GET /metrics, signer balances included, on RELAYER_METRICS_PORT, and not on the internal port even with the token", async () => {
    stack = await startGaslessStack(await loadFixture(gaslessReadyFixture));
    const relayer = stack.relayer!;
    expect(relayer.metricsUrl).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
    const scraped = await (await fetch(`${relayer.metricsUrl}/metrics`)).text();
    expect(scraped).to.match(/^relayer_signer_balance_wei\{signer="0x[0-9a-fA-F]{40}"\} [0-9.e+]+$/m);
    const internal = await fetch(`${relayer.url}/metrics`, { headers: { authorization: `Bearer ${RELAYER_TOKEN}` } });
    expect(internal.status).to.equal(404);
    const publicApi = await stack.api.request("GET", "/metrics");
    expect(publicApi.status).to.equal(404);
    for (const path of ["/health", "/ready"]) expect((await stack.api.request("GET", path)).text).to.not.match(/balance/i);
  });

  it("serves no metrics at all without RELAYER_METRICS_PORT", async () => {
    stack = await startGaslessStack(await loadFixture(gaslessReadyFixture), { relayerEnv: { RELAYER_METRICS_PORT: undefined } });
    expect(stack.relayer!.metricsUrl).to.equal(undefined);
    expect((await fetch(`${stack.relayer!.url}/metrics`)).status).to.equal(401);
  });
});
