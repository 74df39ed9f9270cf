import { expect } from "chai";
import { resolve } from "node:path";
import { devnetEnvironmentSchema, devnetSettings, loadDevnetConfig } from "../../scripts/devnet/devnetConfig";
import { invalidSettingsOf } from "../helpers/invalidSettingsOf";

describe("npm start's settings (scripts/devnet/devnetConfig.ts)", () => {
  it("keeps its defaults: the devnet on 127.0.0.1:8545, the API on 8080, the relayer on 8090 and run by npm start, no fork", () => {
    const config = loadDevnetConfig({});
    expect(config).to.deep.equal({
      host: "127.0.0.1",
      port: 8545,
      deploymentsDir: resolve("deployments"),
      api: { host: "127.0.0.1", port: 8080 },
      relayer: { host: "127.0.0.1", port: 8090 },
      startRelayer: true,
      relayerToken: undefined,
      fork: undefined,
    });
    const fork = loadDevnetConfig({ FORK_URL: "http://127.0.0.1:9545", FORK_BLOCK: "12", FORK_CHAIN: "arbitrum-one", DEVNET_RELAYER: "off" });
    expect(fork.startRelayer).to.equal(false);
    expect(fork.fork).to.deep.include({ url: "http://127.0.0.1:9545", block: 12n, chainName: "arbitrum-one", logRange: 10_000n });
  });

  it("reports every invalid setting of a start at once, each by name, not only the first", () => {
    const thrown = invalidSettingsOf(loadDevnetConfig, { DEVNET_PORT: "70000", DEVNET_RELAYER: "maybe", RELAYER_INTERNAL_TOKEN: "short", FORK_CHAIN: "Not A Chain" });
    expect(thrown.problems.map((problem) => problem.setting)).to.deep.equal(["DEVNET_PORT", "DEVNET_RELAYER", "RELAYER_INTERNAL_TOKEN", "FORK_CHAIN"]);
    expect(thrown.message).to.match(
      /^invalid DEVNET_PORT: .+; invalid DEVNET_RELAYER: must be "on" or "off"; invalid RELAYER_INTERNAL_TOKEN: must be at least 16 characters .+; invalid FORK_CHAIN: must name a chain file/,
    );
  });

  it("declares each setting once with a meaning: every variable the parser reads has its doc and no other", () => {
    for (const [name, declaration] of Object.entries(devnetSettings)) expect(declaration.doc, name).to.match(/\S.{10,}/);
    expect(Object.keys(devnetEnvironmentSchema.shape)).to.deep.equal(Object.keys(devnetSettings));
  });
});
