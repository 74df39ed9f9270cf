import { expect } from "chai";
import fc from "fast-check";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { getAddress, type Address, type Hex } from "viem";
import {
  EXACT_INPUT,
  EXACT_OUTPUT,
  decodeSettlementCall,
  encodeAllowanceCall,
  encodeGaslessCall,
  encodeNativeCall,
  encodePermitCall,
  encodeRouteActions,
  patchSignature,
  SwapCalldataError,
  type ExactOutputOrder,
  type SwapOrder,
} from "../../sdk";

const LIBRARIES = join(__dirname, "..", "..", "contracts", "libraries");

/** The string constants a WitnessHash library declares, by name. */
function solidityStrings(file: string): Map<string, string> {
  const source = readFileSync(join(LIBRARIES, file), "utf8");
  return new Map([...source.matchAll(/string internal constant (\w+)\s*=\s*"([^"]*)";/g)].map((match) => [match[1]!, match[2]!]));
}

/** EIP-712's encoding of one struct type: Name(type field,...). */
const structType = (name: string, fields: readonly { name: string; type: string }[]) => `${name}(${fields.map((field) => `${field.type} ${field.name}`).join(",")})`;

/** What Permit2 is handed as `witnessTypeString`, built from a kind's typed data: the witness field, then its struct, then TokenPermissions. */
function witnessTypeString(types: Record<string, readonly { name: string; type: string }[]>): string {
  const witness = types.PermitWitnessTransferFrom!.find((field) => field.name === "witness")!.type;
  return `${witness} witness)${structType(witness, types[witness]!)}${structType("TokenPermissions", types.TokenPermissions!)}`;
}

const address = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((bytes) => getAddress(`0x${Buffer.from(bytes).toString("hex")}`) as Address);
const word = fc.bigInt({ min: 0n, max: 2n ** 256n - 1n });
const bytes32 = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => `0x${Buffer.from(bytes).toString("hex")}` as Hex);
const actions = address.map((tokenOut) => encodeRouteActions([{ type: "swapV2", tokenOut, pair: tokenOut, feeBps: 30 }]).toLowerCase() as Hex);
const swapOrder: fc.Arbitrary<SwapOrder> = fc.record({ sellToken: address, sellAmount: word, buyToken: address, minBuyAmount: word, recipient: address, deadline: word, quoteId: bytes32, actions });
const exactOutputOrder: fc.Arbitrary<ExactOutputOrder> = fc.record({ sellToken: address, maxSellAmount: word, buyToken: address, buyAmount: word, recipient: address, deadline: word, quoteId: bytes32, actions });

describe("Order kinds, each declared once (sdk/orders/orderKinds.ts), drive typed data, calldata and decoding", () => {
  it("declares for each kind exactly the witness type strings the Solidity OrderWitnessHash library hands Permit2, feature 2 and gasless", () => {
    const solidity = solidityStrings("OrderWitnessHash.sol");
    expect(witnessTypeString(EXACT_INPUT.permitTypes)).to.equal(solidity.get("SWAP_WITNESS_TYPE_STRING"));
    expect(witnessTypeString(EXACT_INPUT.gaslessPermitTypes)).to.equal(solidity.get("GASLESS_WITNESS_TYPE_STRING"));
    expect(witnessTypeString(EXACT_OUTPUT.permitTypes)).to.equal(solidity.get("EXACT_OUTPUT_WITNESS_TYPE_STRING"));
    expect(witnessTypeString(EXACT_OUTPUT.gaslessPermitTypes)).to.equal(solidity.get("GASLESS_EXACT_OUTPUT_WITNESS_TYPE_STRING"));
  });

  it("decodes what it encodes in every settlement mode of either kind, and refuses another kind's calldata", () => {
    const cases = [
      { kind: EXACT_INPUT, other: EXACT_OUTPUT, order: swapOrder as fc.Arbitrary<SwapOrder | ExactOutputOrder> },
      { kind: EXACT_OUTPUT, other: EXACT_INPUT, order: exactOutputOrder as fc.Arbitrary<SwapOrder | ExactOutputOrder> },
    ] as const;
    for (const { kind, other, order: orders } of cases) {
      fc.assert(
        fc.property(orders, address, address, word, word, fc.uint8Array({ minLength: 65, maxLength: 65 }), (order, taker, router, nonce, fee, signatureBytes) => {
          const signature = `0x${Buffer.from(signatureBytes).toString("hex")}` as Hex;
          const typedKind = kind as typeof EXACT_INPUT;
          const typedOrder = order as SwapOrder;
          const permit = encodePermitCall(typedKind, typedOrder, nonce);
          const signedPermit = patchSignature(permit.data, permit.signatureOffset, signature);
          expect(decodeSettlementCall(typedKind, signedPermit)).to.deep.equal({ kind: "permit", order, nonce, signature, signatureOffset: permit.signatureOffset });
          const gasless = encodeGaslessCall(typedKind, typedOrder, taker, { relayerFee: fee, relayerFeeRecipient: router }, nonce);
          const decodedGasless = decodeSettlementCall(typedKind, patchSignature(gasless.data, gasless.signatureOffset, signature));
          expect(decodedGasless).to.deep.equal({ kind: "gasless", order, taker, relayerFee: fee, relayerFeeRecipient: router, nonce, signature, signatureOffset: gasless.signatureOffset });
          expect(decodeSettlementCall(typedKind, encodeNativeCall(typedKind, typedOrder))).to.deep.equal({ kind: "native", order });
          expect(decodeSettlementCall(typedKind, encodeAllowanceCall(typedKind, typedOrder, router))).to.deep.equal({ kind: "allowance", order, operator: router });
          expect(() => decodeSettlementCall(other as typeof EXACT_INPUT, signedPermit)).to.throw(SwapCalldataError);
          // Both kinds' allowance calls go through the holder's one exec: the inner call tells them apart.
          expect(() => decodeSettlementCall(other as typeof EXACT_INPUT, encodeAllowanceCall(typedKind, typedOrder, router))).to.throw(SwapCalldataError);
        }),
        { numRuns: 25 },
      );
    }
  });
});
