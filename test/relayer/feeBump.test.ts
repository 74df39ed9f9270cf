import { expect } from "chai";
import fc from "fast-check";
import { initialFees, isValidReplacement, replacementFees } from "../../relayer/broadcast/feeBump";

const wei = fc.bigInt({ min: 1n, max: 10n ** 13n });

describe("relayer fee bumping", () => {
  it("a replacement raises both fees by at least 10 % (rounded up), follows the network, and never exceeds the ceiling", () => {
    fc.assert(
      fc.property(wei, wei, wei, wei, fc.bigInt({ min: 1n, max: 10n ** 14n }), (fee, tipPart, baseFee, networkTip, ceiling) => {
        const previous = { maxFeePerGas: fee + tipPart, maxPriorityFeePerGas: tipPart };
        const next = replacementFees(previous, { baseFeePerGas: baseFee, priorityFeePerGas: networkTip }, ceiling);
        if (next === undefined) {
          // Only when even the ceiling is not a valid replacement.
          expect(isValidReplacement(previous, { maxFeePerGas: ceiling, maxPriorityFeePerGas: ceiling })).to.equal(false);
          return;
        }
        expect(next.maxFeePerGas * 100n >= previous.maxFeePerGas * 110n).to.equal(true);
        expect(next.maxPriorityFeePerGas * 100n >= previous.maxPriorityFeePerGas * 110n).to.equal(true);
        expect(next.maxFeePerGas <= ceiling).to.equal(true);
        expect(next.maxPriorityFeePerGas <= next.maxFeePerGas).to.equal(true);
        expect(isValidReplacement(previous, next)).to.equal(true);
        if (next.maxFeePerGas < ceiling) {
          expect(next.maxFeePerGas >= 2n * baseFee + next.maxPriorityFeePerGas).to.equal(true);
          expect(next.maxPriorityFeePerGas >= networkTip).to.equal(true);
        }
      }),
      { numRuns: 500 },
    );
  });

  it("rounds the 10 % up, as the mempool does, and adds a wei to fees too small to round", () => {
    expect(replacementFees({ maxFeePerGas: 101n, maxPriorityFeePerGas: 1n }, { baseFeePerGas: 0n, priorityFeePerGas: 0n }, 10n ** 18n)).to.deep.equal({
      maxFeePerGas: 112n,
      maxPriorityFeePerGas: 2n,
    });
  });

  it("waits (no replacement) once the ceiling leaves no valid bump", () => {
    expect(replacementFees({ maxFeePerGas: 100n, maxPriorityFeePerGas: 10n }, { baseFeePerGas: 0n, priorityFeePerGas: 0n }, 105n)).to.equal(undefined);
  });

  it("first fees are twice the base fee plus the tip, capped at the ceiling", () => {
    expect(initialFees(7n, 2n, 1000n)).to.deep.equal({ maxFeePerGas: 16n, maxPriorityFeePerGas: 2n });
    expect(initialFees(700n, 2n, 1000n)).to.deep.equal({ maxFeePerGas: 1000n, maxPriorityFeePerGas: 2n });
  });
});
