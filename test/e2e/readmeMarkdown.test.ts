import { expect } from "chai";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const README = join(__dirname, "..", "..", "README.md");

type Line = { number: number; text: string; inCode: boolean };

/**
 * The README's lines with whether each lies inside a fenced code block, by CommonMark's rule: a fence
 * opens with 3+ backticks or tildes (up to 3 spaces of indent) and closes with a bare run of the same
 * character at least as long. Also returns the fence left open at the end, if any.
 */
function scan(text: string): { lines: Line[]; unclosed: Line | undefined } {
  const lines: Line[] = [];
  let open: { char: string; length: number; line: Line } | undefined;
  text.split("\n").forEach((raw, index) => {
    const line: Line = { number: index + 1, text: raw, inCode: open !== undefined };
    const fence = /^ {0,3}(`{3,}|~{3,})\s*([^`]*)$/.exec(raw);
    if (fence !== null) {
      const run = fence[1]!;
      if (open === undefined) open = { char: run[0]!, length: run.length, line };
      else if (run[0] === open.char && run.length >= open.length && fence[2]!.trim() === "") open = undefined;
      line.inCode = true;
    }
    lines.push(line);
  });
  return { lines, unclosed: open?.line };
}

describe("README.md renders as intended", () => {
  const { lines, unclosed } = scan(readFileSync(README, "utf8"));

  it("closes every code fence it opens", () => {
    expect(unclosed, unclosed && `the fence on line ${unclosed.number} is never closed`).to.equal(undefined);
  });

  it("keeps every section heading outside code blocks (a stray fence would swallow the sections after it)", () => {
    const swallowed = lines.filter((line) => line.inCode && /^#{2,6} /.test(line.text));
    expect(swallowed.map((line) => `${line.number}: ${line.text}`)).to.deep.equal([]);
    const headings = lines.filter((line) => !line.inCode && /^#{2,6} /.test(line.text)).map((line) => line.text);
    expect(headings).to.include.members(["### Throughput: `npm run bench:api`", "## Gasless swaps", "## Trading from TypeScript: the client", "## Running at scale"]);
  });

  it("finds the fault it guards against: a stray fence makes the following headings code", () => {
    const broken = scan("## A\n\n```sh\nls\n```\n\ntext\n```\n\n## B\n");
    expect(broken.unclosed?.number).to.equal(8);
    expect(broken.lines.find((line) => line.text === "## B")?.inCode).to.equal(true);
  });
});
