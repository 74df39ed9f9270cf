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

  it("every PostgreSQL pool of the API, the relayer and their CLIs is opened through SERVICE_POOLS (sdk/storage/servicePools.ts), so their sum is declared in one place", () => {
    const callers = ["api", "relayer", "scripts", "sdk"].flatMap((folder) => sourceFiles(join(root, folder)));
    const direct = callers.filter((file) => !file.endsWith(join("storage", "postgresPool.ts")) && !file.endsWith(join("storage", "servicePools.ts")) && /openPostgresPool\s*\(|new pg\.Pool\s*\(/.test(readFileSync(file, "utf8")));
    expect(direct.map((file) => relative(root, file))).to.deep.equal([]);
    const declared = callers.filter((file) => /openServicePool\(/.test(readFileSync(file, "utf8")));
    expect(declared.length, "the services open their pools through openServicePool").to.be.greaterThanOrEqual(5);
  });

  it("relayer/ and api/quote/ are grouped by stage: only the relayer's entry (and the ready lines it prints), configuration, metrics and readiness sit at its top, nothing at api/quote's", () => {
    const topFiles = (folder: string) => readdirSync(join(root, folder)).filter((entry) => entry.endsWith(".ts")).sort();
    expect(topFiles("relayer")).to.deep.equal(["config.ts", "main.ts", "readyLines.ts", "relayerMetrics.ts", "relayerReadiness.ts", "startRelayer.ts"]);
    expect(topFiles(join("api", "quote"))).to.deep.equal([]);
  });
});
