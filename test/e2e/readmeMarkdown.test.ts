import { expect } from "chai";
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { documentationFiles, scanMarkdown } from "../fixtures/documentation";

const ROOT = join(__dirname, "..", "..");

describe("README.md and docs/ render as intended", () => {
  const pages = documentationFiles(ROOT).map((file) => ({ name: relative(ROOT, file), ...scanMarkdown(readFileSync(file, "utf8")) }));

  it("closes every code fence it opens, on every page", () => {
    const unclosed = pages.filter((page) => page.unclosed !== undefined).map((page) => `${page.name}: the fence on line ${page.unclosed!.number} is never closed`);
    expect(unclosed).to.deep.equal([]);
  });

  it("keeps every section heading outside code blocks (a stray fence would swallow the sections after it)", () => {
    const swallowed = pages.flatMap((page) => page.lines.filter((line) => line.inCode && /^#{2,6} /.test(line.text)).map((line) => `${page.name}:${line.number}: ${line.text}`));
    expect(swallowed).to.deep.equal([]);
    const headings = (name: string) => pages.find((page) => page.name === name)!.lines.filter((line) => !line.inCode && /^#{1,6} /.test(line.text)).map((line) => line.text);
    expect(headings(join("docs", "benchmarks.md"))).to.include("## Throughput of the API: `npm run bench:api`");
    expect(headings(join("docs", "integrators", "gasless.md"))).to.include("# Gasless swaps");
  });

  it("gives every docs page one title and, when it has sections, a contents list", () => {
    const missing = pages
      .filter((page) => page.name !== "README.md")
      .flatMap((page) => {
        const prose = page.lines.filter((line) => !line.inCode);
        const titles = prose.filter((line) => /^# /.test(line.text));
        const sections = prose.filter((line) => /^## /.test(line.text));
        const problems: string[] = [];
        if (titles.length !== 1 || prose.find((line) => line.text.trim() !== "") !== titles[0]) problems.push(`${page.name}: must start with exactly one "# " title`);
        if (sections.length > 1 && !prose.some((line) => /^Contents:?$/.test(line.text.trim()))) problems.push(`${page.name}: has ${sections.length} sections but no "Contents:" list`);
        return problems;
      });
    expect(missing).to.deep.equal([]);
  });

  it("keeps the front door short: README.md is at most about 300 lines", () => {
    const readme = pages.find((page) => page.name === "README.md")!;
    expect(readme.lines.length).to.be.at.most(320);
  });

  it("finds the fault it guards against: a stray fence makes the following headings code", () => {
    const broken = scanMarkdown("## A\n\n```sh\nls\n```\n\ntext\n```\n\n## B\n");
    expect(broken.unclosed?.number).to.equal(8);
    expect(broken.lines.find((line) => line.text === "## B")?.inCode).to.equal(true);
  });
});
