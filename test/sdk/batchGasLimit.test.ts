import { expect } from "chai";
import fc from "fast-check";
import { getAddress, type Hex } from "viem";
import { encodeSwapGasless, encodeSwapGaslessFromContract, MAX_GASLESS_BATCH_ORDERS, decodeSwapGasless, patchSignature } from "../../sdk";
import { BATCH_ORDER_GAS, BATCH_ORDER_LOOP_GAS, BATCH_ORDER_SKIP_GAS, BATCH_OVERHEAD_GAS, batchGasLimit, batchOrderGasCap, batchOrderGasNeeded } from "../../sdk/relay/batchGasLimit";
import { calldataGas, INTRINSIC_GAS } from "../../sdk/relay/calldataGas";
import { relayGasLimitOfCalldata } from "../../sdk/relay/relayGasLimit";
import { fitsBatch } from "../../relayer/batching/batchBroadcast";

const SIGNATURE: Hex = `0x${"ab".repeat(64)}1b`;

function swapGaslessData(sellAmount: bigint): Hex {
  const order = {
    sellToken: getAddress(`0x${"11".repeat(20)}`),
    sellAmount,
    buyToken: getAddress(`0x${"22".repeat(20)}`),
    minBuyAmount: 1n,
    recipient: getAddress(`0x${"33".repeat(20)}`),
    deadline: 1_900_000_000n,
    quoteId: `0x${"44".repeat(32)}` as Hex,
    actions: "0x" as Hex,
  };
  const { data, signatureOffset } = encodeSwapGasless(order, getAddress(`0x${"55".repeat(20)}`), { relayerFee: 1_000n, relayerFeeRecipient: getAddress(`0x${"66".repeat(20)}`) }, 7n);
  return patchSignature(data, signatureOffset, SIGNATURE);
}

describe("batch gas arithmetic (sdk/relay/batchGasLimit.ts)", () => {
  it("a member's cap is its single-swap limit less the 21,000 intrinsic gas, its calldata and its loop overhead, never below zero", () => {
    const data = swapGaslessData(123_456_789n);
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 3_000_000n }), (limit) => {
        const cap = batchOrderGasCap(limit, data);
        const share = limit - INTRINSIC_GAS - calldataGas(data) - BATCH_ORDER_LOOP_GAS;
        expect(cap).to.equal(share > 0n ? share : 0n);
        // What the member can cost a batch, its cap burnt and its loop paid, is below its own limit by the 21,000 the batch pays once.
        if (share > 0n) expect(cap + BATCH_ORDER_LOOP_GAS + calldataGas(data) + INTRINSIC_GAS).to.equal(limit);
      }),
    );
  });

  it("the batch's limit lets every order burn its whole cap and still leaves each next order the gas the router checks for (its cap, cap / 63 and the skip room)", () => {
    fc.assert(
      fc.property(fc.array(fc.bigInt({ min: 0n, max: BATCH_ORDER_GAS }), { minLength: 1, maxLength: MAX_GASLESS_BATCH_ORDERS }), fc.bigInt({ min: 0n, max: 200_000n }), (caps, dataGas) => {
        const limit = batchGasLimit(caps, dataGas);
        // Before the first order: the limit less the intrinsic gas, the calldata and the batch's own overhead.
        let left = limit - INTRINSIC_GAS - dataGas - BATCH_OVERHEAD_GAS;
        for (const cap of caps) {
          expect(left - BATCH_ORDER_LOOP_GAS >= batchOrderGasNeeded(cap), `before an order of cap ${cap}`).to.equal(true);
          left -= cap + BATCH_ORDER_LOOP_GAS;
        }
        expect(left >= BATCH_OVERHEAD_GAS, "the batch's work after its orders").to.equal(true);
        // With caps of similar size it is the sum of caps and loops plus the last order's reservation.
        const last = caps[caps.length - 1]!;
        const sum = caps.reduce((total, cap) => total + cap + BATCH_ORDER_LOOP_GAS, 0n);
        const formula = INTRINSIC_GAS + dataGas + 2n * BATCH_OVERHEAD_GAS + sum + last / 63n + BATCH_ORDER_SKIP_GAS;
        if (caps.every((cap) => cap === last) && last / 63n + BATCH_ORDER_SKIP_GAS >= BATCH_OVERHEAD_GAS) expect(limit).to.equal(formula - BATCH_OVERHEAD_GAS);
        expect(limit <= formula + BATCH_ORDER_GAS / 63n).to.equal(true);
      }),
    );
  });

  it("a relay joins a batch only as a plain swapGasless whose cap fits BATCH_ORDER_GAS; a costlier route or another entry point goes alone", () => {
    const data = swapGaslessData(1_000n);
    const estimatedGasFor = (limit: bigint) => Number((limit * 100n) / 150n);
    expect(fitsBatch({ data, estimatedGas: 200_000 })).to.equal(true);
    const atMost = relayGasLimitOfCalldata(estimatedGasFor(BATCH_ORDER_GAS + 600_000n), data);
    expect(fitsBatch({ data, estimatedGas: estimatedGasFor(BATCH_ORDER_GAS + 600_000n) }), `limit ${atMost}`).to.equal(false);
    expect(fitsBatch({ data: encodeSwapGaslessFromContract(decodeSwapGasless(data)), estimatedGas: 200_000 })).to.equal(false);
  });
});
