import { expect } from "chai";
import hre from "hardhat";
import fc from "fast-check";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { getAddress, zeroAddress, type Hex } from "viem";
import {
  decodeFeatureState,
  decodeRegistryAddress,
  encodeRegistryRead,
  FeatureIdRangeError,
  readActiveRouter,
  readFeatureState,
  readNextRouter,
  readPreviousRouter,
  RegistryResponseError,
  routerRegistryAbi,
} from "../../sdk";
import { registryFixture } from "../fixtures/registryFixture";

describe("sdk registry reads", () => {
  describe("encodeRegistryRead", () => {
    it("is the selector followed by the id as one zero-padded 32-byte word, for every id in range", () => {
      fc.assert(
        fc.property(fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }), fc.constantFrom("ownerOf", "prev", "next", "getFeature" as const), (id, read) => {
          const data = encodeRegistryRead(read, id);
          expect(data).to.have.length(2 + 8 + 64);
          expect(BigInt(`0x${data.slice(10)}`)).to.equal(id);
        }),
      );
      expect(encodeRegistryRead("ownerOf", 2n)).to.equal(`0x6352211e${"0".repeat(63)}2`);
    });

    it("rejects ids outside uint128 with a FeatureIdRangeError", () => {
      expect(() => encodeRegistryRead("ownerOf", 1n << 128n)).to.throw(FeatureIdRangeError, /out of range/);
      expect(() => encodeRegistryRead("ownerOf", -1n)).to.throw(FeatureIdRangeError);
    });
  });

  describe("decoders", () => {
    it("round-trips any address through a returned word", () => {
      fc.assert(
        fc.property(fc.uint8Array({ minLength: 20, maxLength: 20 }), (bytes) => {
          const hex = Buffer.from(bytes).toString("hex");
          expect(decodeRegistryAddress("next", `0x${"0".repeat(24)}${hex}`)).to.equal(getAddress(`0x${hex}`));
        }),
      );
    });

    it("rejects empty data, short data and words with dirty high bytes", () => {
      for (const data of ["0x", "0x1234", `0x${"f".repeat(64)}`] as Hex[]) {
        expect(() => decodeRegistryAddress("ownerOf", data)).to.throw(RegistryResponseError);
      }
      expect(() => decodeFeatureState(`0x${"0".repeat(192)}`)).to.throw(RegistryResponseError);
      expect(() => decodeFeatureState(`0x${"0".repeat(255)}2`)).to.throw(RegistryResponseError);
    });
  });

  it("the SDK ABI equals the compiled IRouterRegistry ABI", async () => {
    const artifact = await hre.artifacts.readArtifact("IRouterRegistry");
    const key = (item: { type: string; name?: string }) => `${item.type}:${item.name ?? ""}`;
    const sorted = (abi: readonly { type: string; name?: string }[]) => [...abi].sort((a, b) => key(a).localeCompare(key(b)));
    expect(JSON.parse(JSON.stringify(sorted(routerRegistryAbi)))).to.deep.equal(sorted(artifact.abi));
  });

  it("reads a live registry through a viem public client", async () => {
    const { registry, routers, publicClient } = await loadFixture(registryFixture);
    await registry.write.stage([2n, routers.a]);
    await registry.write.activate([2n]);
    await registry.write.stage([2n, routers.b]);
    await registry.write.activate([2n]);
    const params = { registry: registry.address, featureId: 2n };
    expect(await readActiveRouter(publicClient, params)).to.equal(getAddress(routers.b));
    expect(await readPreviousRouter(publicClient, params)).to.equal(getAddress(routers.a));
    expect(await readNextRouter(publicClient, params)).to.equal(zeroAddress);
    expect(await readFeatureState(publicClient, params)).to.deep.equal({
      previous: getAddress(routers.a),
      current: getAddress(routers.b),
      next: zeroAddress,
      paused: false,
    });
    let rejected = false;
    await readActiveRouter(publicClient, { ...params, featureId: 3n }).catch(() => (rejected = true));
    expect(rejected, "ownerOf of an uninitialized feature must reject").to.equal(true);
  });
});
