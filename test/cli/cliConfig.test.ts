import { expect } from "chai";
import { loadCliConfig } from "../../cli/cliConfig";
import { loadRelayerConfig } from "../../relayer/config";
import { devnetApiUrl } from "../../sdk";

/** One way to point every tool: the CLI, the relayer and the client's helper read the devnet's variables. */
describe("tools follow DEVNET_HOST/DEVNET_PORT and API_HOST/API_PORT when no URL is given", () => {
  const noManifest = { DEPLOYMENTS_DIR: "/nonexistent" };

  it("swap-api: RPC_URL, else the devnet's port; SWAP_API_URL, else the API's port; flags win", () => {
    expect(loadCliConfig({}, noManifest)).to.include({ rpcUrl: "http://127.0.0.1:8545", apiUrl: "http://127.0.0.1:8080" });
    expect(loadCliConfig({}, { ...noManifest, DEVNET_PORT: "9545", API_PORT: "9080" })).to.include({ rpcUrl: "http://127.0.0.1:9545", apiUrl: "http://127.0.0.1:9080" });
    expect(loadCliConfig({}, { ...noManifest, DEVNET_HOST: "0.0.0.0", API_HOST: "::", API_PORT: "9080" }), "wildcard binds are reached on loopback").to.include({
      rpcUrl: "http://127.0.0.1:8545",
      apiUrl: "http://127.0.0.1:9080",
    });
    expect(loadCliConfig({}, { ...noManifest, DEVNET_PORT: "9545", RPC_URL: "http://node:8545", API_PORT: "9080", SWAP_API_URL: "https://api.example.com/" })).to.include({
      rpcUrl: "http://node:8545",
      apiUrl: "https://api.example.com",
    });
    expect(loadCliConfig({ rpcUrl: "http://flag:1", apiUrl: "http://flag:2" }, { ...noManifest, DEVNET_PORT: "9545", API_PORT: "9080" })).to.include({ rpcUrl: "http://flag:1", apiUrl: "http://flag:2" });
  });

  it("the sdk's devnetApiUrl, for integrators' scripts", () => {
    expect(devnetApiUrl({})).to.equal("http://127.0.0.1:8080");
    expect(devnetApiUrl({ API_HOST: "::1", API_PORT: "1" })).to.equal("http://[::1]:1");
  });

  it("the relayer: RPC_URL, else the devnet's own port", () => {
    const required = { RELAYER_PRIVATE_KEYS: `0x${"11".repeat(32)}`, RELAYER_INTERNAL_TOKEN: "a-long-shared-secret-0123" };
    expect(loadRelayerConfig(required).rpcUrl).to.equal("http://127.0.0.1:8545");
    expect(loadRelayerConfig({ ...required, DEVNET_PORT: "9545" }).rpcUrl).to.equal("http://127.0.0.1:9545");
    expect(loadRelayerConfig({ ...required, DEVNET_PORT: "9545", RPC_URL: "http://node:8545" }).rpcUrl).to.equal("http://node:8545");
  });
});
