import { expect } from "chai";
import { type Hex } from "viem";
import { readBuildArtifact, runtimeCodeMismatch } from "../../scripts/deploy/buildArtifact";
import { DEPLOYED_CONTRACTS } from "../../scripts/deploy/create2Plan";

/** `code` with byte `offset` replaced by `byte`. */
function withByte(code: Hex, offset: number, byte: number): Hex {
  const bytes = Buffer.from(code.slice(2), "hex");
  bytes[offset] = byte;
  return `0x${bytes.toString("hex")}`;
}

describe("the deploy's check of deployed code against the build", () => {
  const artifact = readBuildArtifact(DEPLOYED_CONTRACTS.propAmmAllowlist);

  it("reads each deployed contract's immutable ranges from the build (PropAmmAllowlist's registry, the routers' venues)", () => {
    expect(artifact.immutableRanges.length).to.be.greaterThan(0);
    for (const key of Object.keys(DEPLOYED_CONTRACTS) as (keyof typeof DEPLOYED_CONTRACTS)[]) {
      const built = readBuildArtifact(DEPLOYED_CONTRACTS[key]);
      expect(built.deployedBytecode.length, key).to.be.greaterThan(2);
      expect(built.solcLongVersion, key).to.match(/^0\.8\.\d+\+commit\./);
    }
  });

  it("accepts code that differs only inside immutables (constructor arguments), and names the first byte of any other difference", () => {
    const { start } = artifact.immutableRanges[0]!;
    const withImmutable = withByte(artifact.deployedBytecode, start + 31, 0xab);
    expect(runtimeCodeMismatch(artifact, withImmutable)).to.equal(undefined);
    const outside = artifact.immutableRanges.some((range) => 5 >= range.start && 5 < range.start + range.length) ? 0 : 5;
    const original = Buffer.from(artifact.deployedBytecode.slice(2), "hex")[outside]!;
    expect(runtimeCodeMismatch(artifact, withByte(withImmutable, outside, original ^ 0xff))).to.equal(outside);
    expect(runtimeCodeMismatch(artifact, `${artifact.deployedBytecode}00`)).to.equal((artifact.deployedBytecode.length - 2) / 2);
  });
});
