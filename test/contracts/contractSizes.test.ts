import { expect } from "chai";
import hre from "hardhat";

/** EIP-170's limit on deployed code. */
const CODE_SIZE_LIMIT = 24_576;
/** Room every deployable contract must keep under the limit, so that a fix or a venue still fits. */
const REQUIRED_HEADROOM = 1_024;

describe("Contract sizes", () => {
  it(`keeps every deployable production contract at least ${REQUIRED_HEADROOM} bytes under the ${CODE_SIZE_LIMIT}-byte limit`, async function () {
    // Coverage builds instrumented bytecode, several times the deployed size: only the real build counts.
    if (process.env.SOLIDITY_COVERAGE === "true") this.skip();
    const names = (await hre.artifacts.getAllFullyQualifiedNames()).filter((name) => name.startsWith("contracts/") && !name.startsWith("contracts/test/"));
    const sizes: { name: string; bytes: number }[] = [];
    for (const name of names) {
      const artifact = await hre.artifacts.readArtifact(name);
      const bytes = (artifact.deployedBytecode.length - 2) / 2;
      // Interfaces and abstract contracts deploy nothing.
      if (bytes > 0) sizes.push({ name, bytes });
    }
    expect(sizes.map((size) => size.name)).to.include.members(["contracts/routers/GaslessBatchSwapRouterV2.sol:GaslessBatchSwapRouterV2", "contracts/routers/TakerSwapRouterV3.sol:TakerSwapRouterV3"]);
    const tooLarge = sizes.filter((size) => size.bytes > CODE_SIZE_LIMIT - REQUIRED_HEADROOM).map((size) => `${size.name}: ${size.bytes} bytes`);
    expect(tooLarge, `within ${REQUIRED_HEADROOM} bytes of the limit`).to.deep.equal([]);
  });
});
