import { expect } from "chai";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { apiEnvironmentSchema } from "../../api/config";
import { relayerEnvironmentSchema } from "../../relayer/config";
import { devnetEnvironmentSchema } from "../../scripts/devnet/devnetConfig";
import { declaredErrorCodes } from "../../scripts/docs/errorCodeReference";
import { explainingPages } from "../../scripts/docs/referencePages";
import { documentationText } from "../fixtures/documentation";

const ROOT = join(__dirname, "..", "..");

/** README.md, SECURITY.md and docs/ without the generated reference: where a person reads what a thing means. */
const explained = () => explainingPages(ROOT).map((file) => readFileSync(file, "utf8")).join("\n");

describe("what the code declares is documented", () => {
  it("names every npm script of package.json in README.md or docs/", () => {
    const scripts = Object.keys((JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts);
    const text = documentationText(ROOT);
    const missing = scripts.filter((name) => !text.includes(`npm run ${name}`) && !(["start", "test"].includes(name) && text.includes(`npm ${name}`)));
    expect(missing, "scripts no page mentions as `npm run <name>` (docs/README.md lists every script)").to.deep.equal([]);
  });

  it("explains every API error code on a page a person reads (not only in the generated reference)", () => {
    const text = explained();
    const missing = declaredErrorCodes(ROOT).filter(({ code }) => !text.includes(`\`${code}\``)).map(({ code }) => code);
    expect(missing, "error codes of sdk/server/apiError.ts that no page of README.md, SECURITY.md or docs/ names in backticks").to.deep.equal([]);
  });

  it("explains every variable of the API, the relayer and the devnet on a page a person reads", () => {
    const text = explained();
    const names = [...Object.keys(apiEnvironmentSchema.shape), ...Object.keys(relayerEnvironmentSchema.shape), ...Object.keys(devnetEnvironmentSchema.shape)];
    const missing = [...new Set(names)].filter((name) => !text.includes(`\`${name}\``) && !text.includes(`\`${name}=`));
    expect(missing, "settings no page of README.md, SECURITY.md or docs/ names in backticks (docs/operators/ is their home)").to.deep.equal([]);
  });
});
