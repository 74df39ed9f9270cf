import { expect } from "chai";
import { resolve } from "node:path";
import { loadSoakSettings, soakEnvironmentSchema, soakSettings } from "../../scripts/soak/soakSettings";
import { invalidSettingsOf } from "../helpers/invalidSettingsOf";

describe("npm run soak's settings (scripts/soak/soakSettings.ts)", () => {
  it("keeps its defaults: an hour at the normal rate, 1 s blocks, 20 takers, 4 integrators, a 6-minute drain", () => {
    const settings = loadSoakSettings({});
    expect(settings).to.deep.include({ minutes: 60, rate: 1, blockMs: 1000, outDir: resolve("bench-results"), drainSeconds: 360, takers: 20, integrators: 4 });
  });

  it("reports every invalid setting of a run at once, each by name, not only the first", () => {
    const thrown = invalidSettingsOf(loadSoakSettings, { SOAK_MINUTES: "0", SOAK_RATE: "fast", SOAK_BLOCK_MS: "50", SOAK_TAKERS: "1.5" });
    expect(thrown.problems.map((problem) => problem.setting)).to.deep.equal(["SOAK_MINUTES", "SOAK_RATE", "SOAK_BLOCK_MS", "SOAK_TAKERS"]);
    expect(thrown.message).to.match(/^invalid SOAK_MINUTES: .+; invalid SOAK_RATE: .+; invalid SOAK_BLOCK_MS: .+; invalid SOAK_TAKERS: .+/);
  });

  it("declares each setting once with a meaning: every variable the parser reads has its doc and no other", () => {
    for (const [name, declaration] of Object.entries(soakSettings)) expect(declaration.doc, name).to.match(/\S.{10,}/);
    expect(Object.keys(soakEnvironmentSchema.shape)).to.deep.equal(Object.keys(soakSettings));
  });
});
