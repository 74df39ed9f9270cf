import { expect } from "chai";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { relayStatuses, relayTransitions } from "../../sdk/relay/relayStatus";

const GASLESS_PAGE = join(__dirname, "..", "..", "docs", "integrators", "gasless.md");

/** The `from --> to` moves of the page's Mermaid state diagram (the start arrow `[*] --> x` aside). */
function diagramMoves(page: string): string[] {
  const diagram = /```mermaid\nstateDiagram-v2\n([\s\S]*?)```/.exec(page);
  expect(diagram, "docs/integrators/gasless.md has a stateDiagram-v2 of the relay's statuses").to.not.equal(null);
  return [...diagram![1]!.matchAll(/^\s*(\w+) --> (\w+)/gm)].map((match) => `${match[1]} → ${match[2]}`);
}

describe("the documented life of a gasless relay", () => {
  it("draws exactly the moves of relayTransitions (sdk/relay/relayStatus.ts), every status included", () => {
    const documented = diagramMoves(readFileSync(GASLESS_PAGE, "utf8")).sort();
    const declared = relayStatuses.flatMap((from) => relayTransitions[from].map((to) => `${from} → ${to}`)).sort();
    expect(documented).to.deep.equal(declared);
  });
});
