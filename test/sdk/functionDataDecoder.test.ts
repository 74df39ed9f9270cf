import { expect } from "chai";
import fc from "fast-check";
import { decodeFunctionData, encodeFunctionData, type Hex } from "viem";
import { gaslessTokenPermitAbi } from "../../sdk/abis/gaslessTokenPermitAbi";
import { functionDataDecoder } from "../../sdk/calldata/functionDataDecoder";
import { address, bytesOf, swapOrderWith, uint256 } from "../fixtures/abiArbitraries";

const decodeRouterCall = functionDataDecoder(gaslessTokenPermitAbi);
const order = fc.record({
  params: swapOrderWith(bytesOf(0, 200)),
  taker: address,
  relayerFee: uint256,
  relayerFeeRecipient: address,
  nonce: uint256,
  signature: bytesOf(65, 65),
});

/** The decoder with selectors hashed once must read every calldata exactly as viem's decodeFunctionData does. */
describe("functionDataDecoder (sdk/calldata/functionDataDecoder.ts)", () => {
  it("decodes any call of the ABI as viem's decodeFunctionData does (fast-check)", () => {
    fc.assert(
      fc.property(order, fc.boolean(), (signed, fromContract) => {
        const { params, taker, relayerFee, relayerFeeRecipient, nonce, signature } = signed;
        const data = fromContract
          ? encodeFunctionData({ abi: gaslessTokenPermitAbi, functionName: "swapGaslessFromContract", args: [signed] })
          : encodeFunctionData({ abi: gaslessTokenPermitAbi, functionName: "swapGasless", args: [params, taker, relayerFee, relayerFeeRecipient, nonce, signature] });
        expect(decodeRouterCall(data)).to.deep.equal(decodeFunctionData({ abi: gaslessTokenPermitAbi, data }));
      }),
      { numRuns: 200 },
    );
  });

  it("refuses an unknown selector and malformed arguments with viem's own errors", () => {
    const unknown = "0xdeadbeef" + "00".repeat(32);
    const ours = (data: string) => {
      try {
        decodeRouterCall(data as Hex);
      } catch (error) {
        return (error as Error).name;
      }
      return "decoded";
    };
    const viems = (data: string) => {
      try {
        decodeFunctionData({ abi: gaslessTokenPermitAbi, data: data as Hex });
      } catch (error) {
        return (error as Error).name;
      }
      return "decoded";
    };
    expect(ours(unknown)).to.equal("AbiFunctionSignatureNotFoundError");
    expect(ours(unknown)).to.equal(viems(unknown));
    expect(ours("0x12")).to.equal(viems("0x12"));
    // A function without arguments, and a known selector followed by too few bytes.
    const status = encodeFunctionData({ abi: gaslessTokenPermitAbi, functionName: "status" });
    expect(decodeRouterCall(status)).to.deep.equal(decodeFunctionData({ abi: gaslessTokenPermitAbi, data: status }));
    const truncated = encodeFunctionData({ abi: gaslessTokenPermitAbi, functionName: "swapGaslessFromContract", args: [fc.sample(order, 1)[0]!] }).slice(0, 100);
    expect(ours(truncated)).to.not.equal("decoded");
    expect(ours(truncated)).to.equal(viems(truncated));
    // The selector alone, and an upper-case selector (viem compares it as given).
    const selectorOnly = truncated.slice(0, 10);
    expect(ours(selectorOnly)).to.equal(viems(selectorOnly));
    const upper = `0x${status.slice(2).toUpperCase()}`;
    expect(ours(upper)).to.equal(viems(upper));
  });
});
