import { expect } from "chai";
import hre from "hardhat";
import { encodeErrorResult, zeroAddress } from "viem";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { relayerEnvironmentSchema } from "../../relayer/config";
import { apiEnvironmentSchema } from "../../api/config";
import { declaredErrorCodes, declaredExitCodes } from "../../scripts/docs/errorCodeReference";
import { markdownCell } from "../../scripts/docs/markdownCell";
import { devnetSettings } from "../../scripts/devnet/devnetConfig";
import { soakSettings } from "../../scripts/soak/soakSettings";
import { referencePages } from "../../scripts/docs/referencePages";

const ROOT = join(__dirname, "..", "..");

describe("docs/reference is generated from the code that declares it", function () {
  // Building the OpenAPI document imports the API's route modules.
  this.timeout(60_000);
  const pages = referencePages(ROOT);

  it("each committed reference page is exactly what npm run docs:reference writes", () => {
    for (const [path, expected] of Object.entries(pages)) {
      const committed = existsSync(join(ROOT, path)) ? readFileSync(join(ROOT, path), "utf8") : "(missing)";
      expect(committed === expected, `${path} differs from the code it is generated from: run npm run docs:reference and commit the result`).to.equal(true);
    }
  });

  it("lists every variable of the API's and the relayer's schemas, each with its meaning", () => {
    const environment = pages[join("docs", "reference", "environment.md")]!;
    for (const name of [...Object.keys(apiEnvironmentSchema.shape), ...Object.keys(relayerEnvironmentSchema.shape)]) expect(environment, name).to.include(`| \`${name}\` |`);
    // The relayer needs RELAYER_SIGNERS or RELAYER_PRIVATE_KEYS (either alone is optional); its token is required.
    expect(environment).to.match(/\| `RELAYER_INTERNAL_TOKEN` \| \*\*required\*\* \|/);
    expect(environment).to.match(/\| `API_PORT` \| `8080` \|/);
  });

  it("lists every variable of the devnet's and the soak's declarations with the meaning declared beside its parser", () => {
    const environment = pages[join("docs", "reference", "environment.md")]!;
    for (const settings of [devnetSettings, soakSettings]) {
      for (const [name, declaration] of Object.entries(settings)) expect(environment, name).to.match(new RegExp(`\\| \`${name}\` \\| [^|]+ \\| ${escapeRegExp(markdownCell(declaration.doc))} \\|`));
    }
    expect(environment).to.match(/\| `DEVNET_PORT` \| `8545` \| JSON-RPC port; 0 picks a free one\. \|/);
    expect(environment).to.match(/\| `SOAK_TAKERS` \| `20` \| Takers signing gasless relays/);
  });

  it("lists every error code of API_ERROR_STATUS with the one status it is answered with", () => {
    const codes = declaredErrorCodes(ROOT);
    expect(codes.map((entry) => entry.code)).to.include.members(["invalid_json", "rate_limited", "database_unavailable", "internal_error"]);
    const errorPage = pages[join("docs", "reference", "error-codes.md")]!;
    for (const { code } of codes) expect(errorPage, code).to.include(`| \`${code}\` |`);
    expect(codes.find((entry) => entry.code === "simulation_failed")?.status).to.equal(422);
    expect(errorPage).to.match(/\| `simulation_failed` \| 422 \|/);
    expect(errorPage).to.match(/\| `invalid_json` \| 400 \|/);
    expect(declaredExitCodes(ROOT).map((entry) => entry.code)).to.deep.equal([0, 1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it("lists the deployed contracts' custom errors with the selector a revert starts with and their natspec", async () => {
    const errorPage = pages[join("docs", "reference", "error-codes.md")]!;
    const { abi } = await hre.artifacts.readArtifact("RouterRegistry");
    const selector = encodeErrorResult({ abi, errorName: "RouterRegistryUnauthorized", args: [zeroAddress] }).slice(0, 10);
    expect(errorPage).to.match(new RegExp(`\\| \`RouterRegistryUnauthorized\\(address\\)\` \\| \`${selector}\` \\| RouterRegistry \\| \\w`));
    expect(errorPage).to.include("| `SwapFeaturePaused(uint128)` |");
  });

  it("lists every endpoint of the OpenAPI document", () => {
    const endpoints = pages[join("docs", "reference", "endpoints.md")]!;
    for (const endpoint of ["GET /quote", "POST /gasless/submit", "POST /gasless/cancel/{relay_id}", "GET /tokens/supported-tokens", "POST /internal/relays"]) expect(endpoints).to.include(`\`${endpoint}\``);
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
