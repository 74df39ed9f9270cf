import { expect } from "chai";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

const root = join(__dirname, "..", "..");

/** The only 20-byte hex literals api/, relayer/ and sdk/ may hold, each with why no chain file gives it. */
const allowed: Readonly<Record<string, { file: string; reason: string }>> = {
  "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee": { file: "sdk/tokens/native.ts|api/quote/admission/quoteQuery.ts|api/openapi/openApiDocument.ts", reason: "the API's sentinel for the native asset (a convention of the wire format, no contract on any chain)" },
  "0x000000000022d473030f116ddee9f6b43ac78ba3": { file: "sdk/chain/permit2.ts", reason: "PERMIT2_ADDRESS: the documented default of TrustedContracts.permit2 / QuoteExpectation.permit2; every chain file names its own `permit2`, the API and relayer read the manifest's" },
  "0x000000000000000000000000000000000000006c": { file: "sdk/chain/networkFeeModel.ts", reason: "ArbGasInfo, an ArbOS precompile at a fixed address on every Arbitrum chain; the chain file's feeModel.l1 = arbitrum selects it" },
  "0x1111111111111111111111111111111111111111": { file: "api/openapi/openApiDocument.ts", reason: "an example value in the OpenAPI document (documentation, never called)" },
  "0x90f79bf6eb2c4f870365e785982e1f101e93b906": { file: "api/openapi/openApiDocument.ts", reason: "an example taker in the OpenAPI document (a well-known development account)" },
  "0x70997970c51812dc3a010c7d01b50e0d17dc79c8": { file: "api/openapi/openApiDocument.ts", reason: "an example wallet in the OpenAPI document (a well-known development account)" },
  "0xcf7ed3acca5a467e9e704c703e8d87f634fb0fc9": { file: "api/openapi/openApiDocument.ts", reason: "an example token address in the OpenAPI document's snapshot example" },
};

function sourceFiles(directory: string): string[] {
  return readdirSync(directory).flatMap((entry) => {
    const path = join(directory, entry);
    if (statSync(path).isDirectory()) return entry === "node_modules" ? [] : sourceFiles(path);
    return /\.(ts|js|json)$/.test(entry) ? [path] : [];
  });
}

/** Every `0x` + 40 hex digits standing alone (not the start of a hash, nor part of bytecode). */
function addressLiterals(text: string): string[] {
  return [...text.matchAll(/(?<![0-9a-zA-Z])0x[0-9a-fA-F]{40}(?![0-9a-fA-F])/g)].map((match) => match[0].toLowerCase());
}

describe("No address a chain file can give is hard-coded in api/, relayer/ or sdk/", () => {
  it("finds only the allowlisted 20-byte literals, each in the file its reason names", () => {
    const found: string[] = [];
    for (const folder of ["api", "relayer", "sdk"]) {
      for (const file of sourceFiles(join(root, folder))) {
        const name = relative(root, file).split("\\").join("/");
        for (const literal of addressLiterals(readFileSync(file, "utf8"))) {
          const entry = allowed[literal];
          if (entry === undefined || !entry.file.split("|").includes(name)) found.push(`${name}: ${literal}`);
        }
      }
    }
    expect(found, "take these from the chain file / manifest (or add them to the allowlist above with the reason no chain file can give them)").to.deep.equal([]);
  });

  it("the scan sees a literal: a checksummed address, a lower-case one, but neither a 32-byte hash nor a zero-padded word", () => {
    expect(addressLiterals('const a = "0x000000000022D473030F116dDEE9F6B43aC78BA3";')).to.deep.equal(["0x000000000022d473030f116ddee9f6b43ac78ba3"]);
    expect(addressLiterals("`0xe7f1725e7734ce288f8367e1bb143e90bb3f0512`")).to.have.length(1);
    expect(addressLiterals('"0x96e8ac4277198ff8b6f785478aa9a39f403cb768dd02cbee326c3e7da348845f"')).to.deep.equal([]);
    expect(addressLiterals("0x000000000000000000000000e7f1725e7734ce288f8367e1bb143e90bb3f0512")).to.deep.equal([]);
  });
});
