/**
 * `npm run docs:reference`: compiles the contracts, then writes docs/reference/ (endpoints, environment
 * variables, error codes, contract errors) from the one place each is declared, so the pages cannot drift from the code. A test
 * (test/e2e/referencePages.test.ts) fails when the committed pages differ from what this writes.
 */
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { renderEndpointReference } from "./endpointReference";
import { renderEnvironmentReference } from "./environmentReference";
import { renderErrorCodeReference } from "./errorCodeReference";

const REFERENCE = join("docs", "reference");

/** README.md, SECURITY.md and the docs pages other than the generated ones: where a code is explained. */
export function explainingPages(root: string): string[] {
  const pages: string[] = [];
  const walk = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) {
        if (path !== join(root, REFERENCE)) walk(path);
      } else if (entry.name.endsWith(".md")) pages.push(path);
    }
  };
  walk(join(root, "docs"));
  return [join(root, "README.md"), join(root, "SECURITY.md"), ...pages.sort()];
}

/** Each generated page's path (relative to the root) and its content. */
export function referencePages(root: string): Record<string, string> {
  return {
    [join(REFERENCE, "endpoints.md")]: renderEndpointReference(root),
    [join(REFERENCE, "environment.md")]: renderEnvironmentReference(),
    [join(REFERENCE, "error-codes.md")]: renderErrorCodeReference(root, explainingPages(root)),
  };
}

if (require.main === module) {
  const root = join(__dirname, "..", "..");
  for (const [path, content] of Object.entries(referencePages(root))) {
    writeFileSync(join(root, path), content);
    process.stdout.write(`wrote ${path}\n`);
  }
}
