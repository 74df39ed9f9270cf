import { expect } from "chai";
import { generatePrivateKey } from "viem/accounts";
import { loadRelayerConfig, relayerEnvironmentSchema, relayerSettings } from "../../relayer/config";
import { InvalidSettingsError } from "../../sdk/config/settingDeclaration";

const required = { RELAYER_INTERNAL_TOKEN: "a-secret-of-16-chars", RELAYER_PRIVATE_KEYS: generatePrivateKey() };

describe("relayer settings, declared once", () => {
  it("reports every invalid setting of a start at once, each by name, not only the first", () => {
    let thrown: unknown;
    try {
      loadRelayerConfig({ RELAYER_INTERNAL_TOKEN: "short", RELAYER_PRIVATE_KEYS: required.RELAYER_PRIVATE_KEYS, RELAYER_BATCH_MAX: "0", WEBHOOK_POLL_MS: "soon" });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).to.be.instanceOf(InvalidSettingsError);
    expect((thrown as InvalidSettingsError).problems.map((problem) => problem.setting)).to.deep.equal(["RELAYER_INTERNAL_TOKEN", "RELAYER_BATCH_MAX", "WEBHOOK_POLL_MS"]);
    expect((thrown as Error).message).to.match(/^invalid RELAYER_INTERNAL_TOKEN: must be at least 16 characters .+; invalid RELAYER_BATCH_MAX: .+; invalid WEBHOOK_POLL_MS: /);
  });

  it("gives every variable the parser reads a meaning of its own, and the declared defaults", () => {
    for (const [name, declaration] of Object.entries(relayerSettings)) expect(declaration.doc, name).to.match(/\S.{10,}/);
    expect(Object.keys(relayerEnvironmentSchema.shape)).to.deep.equal(Object.keys(relayerSettings));
    const config = loadRelayerConfig(required);
    expect(config).to.deep.include({ host: "127.0.0.1", port: 8090, confirmations: 1, maxPendingPerSigner: 32, maxLossBps: 0, priorityFeeWei: 1_000_000_000n });
    expect(config.batch).to.deep.equal({ max: 32, gas: undefined, waitMs: 0 });
    expect(config.gasBudgets).to.deep.equal({ taker: 750_000n, integrator: 5_000_000n });
    expect(config.pushed).to.deep.include({ retryWindowMs: 24 * 3_600_000, breakerCooldownMs: 60_000, allowLoopback: true, retentionMs: 72 * 3_600_000 });
  });

  it("still refuses settings that contradict each other, by name", () => {
    expect(() => loadRelayerConfig({ ...required, RELAYER_MAX_FEE_GWEI: "1", RELAYER_PRIORITY_FEE_GWEI: "2" })).to.throw(/invalid RELAYER_MAX_FEE_GWEI: must be at least RELAYER_PRIORITY_FEE_GWEI/);
    expect(() => loadRelayerConfig({ ...required, RELAYER_SIGNERS: `unsafe:${generatePrivateKey()}` })).to.throw(/invalid RELAYER_PRIVATE_KEYS: give RELAYER_SIGNERS or RELAYER_PRIVATE_KEYS, not both/);
  });
});
