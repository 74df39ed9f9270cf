import { expect } from "chai";
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { documentationFiles, headingAnchors, headingSlug, markdownLinks } from "../fixtures/documentation";

const ROOT = join(__dirname, "..", "..");

/** What is wrong with one relative link of `file`, or undefined when it resolves (file, and anchor when it has one). */
function brokenLink(file: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined; // https:, mailto:: not ours to check offline
  const [path = "", anchor] = target.split("#", 2);
  const destination = path === "" ? file : resolve(dirname(file), decodeURI(path));
  if (!destination.startsWith(ROOT)) return `leaves the repository (${target})`;
  if (!existsSync(destination)) return `no such file: ${relative(ROOT, destination)}`;
  if (anchor === undefined || anchor === "") return undefined;
  if (statSync(destination).isDirectory() || !destination.endsWith(".md")) return `an anchor into a file that is not Markdown: ${target}`;
  if (!headingAnchors(readFileSync(destination, "utf8")).has(anchor)) return `no heading in ${relative(ROOT, destination)} has the anchor #${anchor}`;
  return undefined;
}

describe("links between README.md and docs/", () => {
  it("every relative link and anchor resolves (SECURITY.md's too)", () => {
    const broken = [...documentationFiles(ROOT), join(ROOT, "SECURITY.md")].flatMap((file) =>
      markdownLinks(readFileSync(file, "utf8")).flatMap(({ line, target }) => {
        const problem = brokenLink(file, target);
        return problem === undefined ? [] : [`${relative(ROOT, file)}:${line}: ${problem}`];
      }),
    );
    expect(broken, broken.join("\n")).to.deep.equal([]);
  });

  it("every page under docs/ is reachable by a link from README.md or another page", () => {
    const files = documentationFiles(ROOT);
    const linked = new Set(
      files.flatMap((file) =>
        markdownLinks(readFileSync(file, "utf8"))
          .map(({ target }) => target.split("#", 1)[0]!)
          .filter((path) => path !== "" && !/^[a-z][a-z0-9+.-]*:/i.test(path))
          .map((path) => resolve(dirname(file), decodeURI(path))),
      ),
    );
    const orphans = files.slice(1).filter((file) => !linked.has(file)).map((file) => relative(ROOT, file));
    expect(orphans).to.deep.equal([]);
  });

  it("finds the faults it guards against: a missing file, a missing anchor, a link inside code", () => {
    const readme = join(ROOT, "README.md");
    expect(brokenLink(readme, "docs/no-such-page.md")).to.match(/no such file/);
    expect(brokenLink(readme, "SECURITY.md#no-such-heading")).to.match(/no heading in SECURITY.md/);
    expect(brokenLink(readme, "#no-such-heading")).to.match(/no heading in README.md/);
    expect(brokenLink(readme, "https://example.com/x")).to.equal(undefined);
    expect(markdownLinks("text [a](x.md)\n```\n[b](y.md)\n```\n`[c](z.md)`\n").map((link) => link.target)).to.deep.equal(["x.md"]);
  });

  it("names headings as GitHub does, repeated ones numbered", () => {
    expect(headingSlug("Throughput: `npm run bench:api`")).to.equal("throughput-npm-run-benchapi");
    expect(headingSlug("Cancelling a relay: `POST /gasless/cancel/{relay_id}`")).to.equal("cancelling-a-relay-post-gaslesscancelrelay_id");
    expect(headingSlug("`GET /price`: an indicative price")).to.equal("get-price-an-indicative-price");
    expect([...headingAnchors("## Errors\n\n## Errors\n\n```\n## Errors\n```\n")]).to.deep.equal(["errors", "errors-1"]);
  });
});
