import { expect } from "chai";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import hre from "hardhat";

function sourceFiles(directory: string): string[] {
  return readdirSync(directory).flatMap((entry) => {
    const path = join(directory, entry);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith(".ts") ? [path] : [];
  });
}

function importsOf(file: string): string[] {
  return [...readFileSync(file, "utf8").matchAll(/(?:from|import|require)\s*\(?\s*["']([^"']+)["']/g)].map((match) => match[1]!);
}

describe("module boundaries of the API and the relayer", () => {
  const root = hre.config.paths.root;

  it("api/ imports sdk/ but never relayer/", () => {
    for (const file of sourceFiles(join(root, "api"))) {
      const offending = importsOf(file).filter((specifier) => /(^|\/)relayer(\/|$)/.test(specifier));
      expect(offending, relative(root, file)).to.deep.equal([]);
    }
  });

  it("relayer/ imports sdk/ but never api/", () => {
    for (const file of sourceFiles(join(root, "relayer"))) {
      const offending = importsOf(file).filter((specifier) => /(^|\/)api(\/|$)/.test(specifier));
      expect(offending, relative(root, file)).to.deep.equal([]);
    }
  });

  it("sdk/ never imports api/ or relayer/", () => {
    for (const file of sourceFiles(join(root, "sdk"))) {
      const offending = importsOf(file).filter((specifier) => /(^|\/)(api|relayer)(\/|$)/.test(specifier));
      expect(offending, relative(root, file)).to.deep.equal([]);
    }
  });
});
