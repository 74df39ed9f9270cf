import { expect } from "chai";
import fc from "fast-check";
import { decodeFunctionData, toFunctionSelector } from "viem";
import { encodeInvalidateNonce, permit2Abi, permit2NonceBit } from "../../sdk";

describe("encodeInvalidateNonce: Permit2's invalidateUnorderedNonces for one order's nonce", () => {
  it("spends exactly the nonce's bit: word nonce >> 8, mask 1 << (nonce & 255)", () => {
    expect(permit2NonceBit(0n)).to.deep.equal({ wordPos: 0n, mask: 1n });
    expect(permit2NonceBit(255n)).to.deep.equal({ wordPos: 0n, mask: 1n << 255n });
    expect(permit2NonceBit(256n)).to.deep.equal({ wordPos: 1n, mask: 1n });
    expect(permit2NonceBit((1n << 256n) - 1n)).to.deep.equal({ wordPos: (1n << 248n) - 1n, mask: 1n << 255n });
  });

  it("is calldata of invalidateUnorderedNonces(uint256,uint256) whose word and single-bit mask give back the nonce", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }), (nonce) => {
        const data = encodeInvalidateNonce(nonce);
        expect(data.slice(0, 10)).to.equal(toFunctionSelector("invalidateUnorderedNonces(uint256,uint256)"));
        const { functionName, args } = decodeFunctionData({ abi: permit2Abi, data });
        expect(functionName).to.equal("invalidateUnorderedNonces");
        const [wordPos, mask] = args as readonly [bigint, bigint];
        expect(mask & (mask - 1n), "exactly one bit").to.equal(0n);
        expect(wordPos * 256n + BigInt(mask.toString(2).length - 1)).to.equal(nonce);
      }),
    );
  });

  it("refuses a nonce outside uint256, naming it", () => {
    expect(() => encodeInvalidateNonce(-1n)).to.throw(RangeError, /uint256; got -1/);
    expect(() => encodeInvalidateNonce(1n << 256n)).to.throw(RangeError, /uint256/);
  });
});
