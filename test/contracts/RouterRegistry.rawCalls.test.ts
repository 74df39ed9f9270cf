import { expect } from "chai";
import hre from "hardhat";
import { loadFixture, time } from "@nomicfoundation/hardhat-network-helpers";
import { decodeErrorResult, getAddress, toFunctionSelector, type Abi, type AbiFunction, type Hex } from "viem";
import { routerRegistryAbi } from "../../sdk/abis/routerRegistryAbi";
import { registryFixture } from "../fixtures/registryFixture";
import { revertDataOf } from "../helpers/expectRevert";

/**
 * The registry read as an integrator would per the spec: raw JSON-RPC `eth_call`, data = the
 * documented selector followed by the feature id as one 32-byte zero-padded word, block tag `latest`.
 * Everything here is built and decoded by hand, with no ABI on the request path.
 */
describe("RouterRegistry raw eth_call reads (spec selectors)", () => {
  const word = (featureId: bigint) => featureId.toString(16).padStart(64, "0");
  const lastTwentyBytes = (result: Hex) => getAddress(`0x${result.slice(-40)}`);

  async function ethCall(to: Hex, data: string): Promise<Hex> {
    return (await hre.network.provider.request({ method: "eth_call", params: [{ to, data }, "latest"] })) as Hex;
  }

  async function ethCallReverts(to: Hex, data: string): Promise<string> {
    try {
      await ethCall(to, data);
    } catch (error) {
      const revertData = revertDataOf(error);
      expect(revertData, "revert data").to.be.a("string");
      return decodeErrorResult({ abi: routerRegistryAbi, data: revertData! }).errorName;
    }
    expect.fail(`eth_call ${data} succeeded; expected a revert`);
  }

  async function migrated() {
    const fixture = await registryFixture();
    for (const router of [fixture.routers.a, fixture.routers.b]) {
      await fixture.registry.write.stage([2n, router]);
      await fixture.registry.write.activate([2n]);
    }
    await fixture.registry.write.stage([2n, fixture.routers.c]);
    return fixture;
  }

  it("ownerOf 0x6352211e returns the current router in the last 20 bytes of one word", async () => {
    const { registry, routers } = await loadFixture(migrated);
    const result = await ethCall(registry.address, `0x6352211e${word(2n)}`);
    expect(result).to.have.length(66);
    expect(result.slice(2, 26)).to.equal("0".repeat(24));
    expect(lastTwentyBytes(result)).to.equal(getAddress(routers.b));
  });

  it("prev 0xe2603dc2 returns the previous router during the dwell window", async () => {
    const { registry, routers } = await loadFixture(migrated);
    expect(lastTwentyBytes(await ethCall(registry.address, `0xe2603dc2${word(2n)}`))).to.equal(getAddress(routers.a));
  });

  it("next 0x74bcde51 returns the staged router, and the zero word when none is staged", async () => {
    const { registry, routers } = await loadFixture(migrated);
    expect(lastTwentyBytes(await ethCall(registry.address, `0x74bcde51${word(2n)}`))).to.equal(getAddress(routers.c));
    expect(await ethCall(registry.address, `0x74bcde51${word(3n)}`)).to.equal(`0x${"0".repeat(64)}`);
  });

  it("getFeature 0x46df01a4 returns previous, current, next and paused as four words", async () => {
    const { registry, routers } = await loadFixture(migrated);
    await registry.write.pause([2n]);
    const result = await ethCall(registry.address, `0x46df01a4${word(2n)}`);
    expect(result).to.have.length(2 + 4 * 64);
    const words = [0, 1, 2, 3].map((index) => result.slice(2 + index * 64, 2 + (index + 1) * 64));
    expect(words.slice(0, 3).map((w) => getAddress(`0x${w.slice(24)}`))).to.deep.equal(
      [routers.a, routers.b, routers.c].map((router) => getAddress(router)),
    );
    expect(BigInt(`0x${words[3]}`)).to.equal(1n);
  });

  it("getFeature reads previous as zero once the window has closed, and prev then reverts", async () => {
    const { registry, routers } = await loadFixture(migrated);
    await time.increase(3600);
    const result = await ethCall(registry.address, `0x46df01a4${word(2n)}`);
    expect(result.slice(2, 66)).to.equal("0".repeat(64));
    expect(getAddress(`0x${result.slice(66 + 24, 130)}`)).to.equal(getAddress(routers.b));
    expect(await ethCallReverts(registry.address, `0xe2603dc2${word(2n)}`)).to.equal("RouterRegistryDwellWindowClosed");
  });

  it("ownerOf reverts for a paused feature, an uninitialized one and an id above 2^128-1", async () => {
    const { registry } = await loadFixture(migrated);
    expect(await ethCallReverts(registry.address, `0x6352211e${word(3n)}`)).to.equal("RouterRegistryFeatureNotInitialized");
    expect(await ethCallReverts(registry.address, `0x6352211e${word(1n << 128n)}`)).to.equal("RouterRegistryFeatureIdTooLarge");
    await registry.write.pause([2n]);
    expect(await ethCallReverts(registry.address, `0x6352211e${word(2n)}`)).to.equal("RouterRegistryFeaturePaused");
  });

  it("prev reverts when no previous router was ever set", async () => {
    const { registry } = await loadFixture(migrated);
    expect(await ethCallReverts(registry.address, `0xe2603dc2${word(3n)}`)).to.equal("RouterRegistryNoPreviousRouter");
  });

  it("the compiled selectors are the ones the spec documents", async () => {
    const artifact = await hre.artifacts.readArtifact("RouterRegistry");
    const functions = (artifact.abi as Abi).filter((item): item is AbiFunction => item.type === "function");
    const selectors = Object.fromEntries(
      functions
        .filter((item) => ["ownerOf", "prev", "next", "getFeature"].includes(item.name))
        .map((item) => [item.name, toFunctionSelector(item)]),
    );
    expect(selectors).to.deep.equal({ ownerOf: "0x6352211e", prev: "0xe2603dc2", next: "0x74bcde51", getFeature: "0x46df01a4" });
  });
});
