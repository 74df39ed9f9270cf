import { expect } from "chai";
import fc from "fast-check";
import { PermitNonceAllocator } from "../../api/quote/nonces/permitNonces";

const TAKER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

describe("Permit2 nonce allocation", () => {
  it("never picks a bit already used on chain, and gives open quotes distinct nonces while bits are free", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 256n) - 2n }), fc.integer({ min: 1, max: 40 }), (bitmap, quotes) => {
        const allocator = new PermitNonceAllocator();
        const free = [...Array(256).keys()].filter((bit) => ((bitmap >> BigInt(bit)) & 1n) === 0n).length;
        const seen = new Set<bigint>();
        for (let index = 0; index < quotes; index++) {
          const result = allocator.allocate(4663, TAKER, 0n, bitmap, 1_000, 2_000)!;
          expect((bitmap >> result.nonce) & 1n).to.equal(0n);
          if (index < free) {
            expect(seen.has(result.nonce)).to.equal(false);
            seen.add(result.nonce);
          }
          expect(result.freshWord).to.equal(bitmap === 0n);
        }
      }),
    );
  });

  it("reuses the soonest-expiring reservation once every free bit is held, and a bit again after its quote expired", () => {
    const allocator = new PermitNonceAllocator();
    const bitmap = (1n << 256n) - 1n - 0b110n; // only bits 1 and 2 are free
    expect(allocator.allocate(4663, TAKER, 0n, bitmap, 0, 100)?.nonce).to.equal(1n);
    expect(allocator.allocate(4663, TAKER, 0n, bitmap, 0, 50)?.nonce).to.equal(2n);
    expect(allocator.allocate(4663, TAKER, 0n, bitmap, 0, 200)?.nonce).to.equal(2n);
    expect(allocator.allocate(4663, TAKER, 0n, bitmap, 150, 300)?.nonce).to.equal(1n);
  });

  it("with onlyFree (shared reservations), reports a word whose free bits are all held as full instead of reusing one", () => {
    const allocator = new PermitNonceAllocator({ onlyFree: true });
    const bitmap = (1n << 256n) - 1n - 0b110n; // only bits 1 and 2 are free
    expect(allocator.allocate(4663, TAKER, 0n, bitmap, 0, 100)?.nonce).to.equal(1n);
    expect(allocator.allocate(4663, TAKER, 0n, bitmap, 0, 50)?.nonce).to.equal(2n);
    expect(allocator.allocate(4663, TAKER, 0n, bitmap, 0, 200)).to.equal(undefined);
    // Once a reservation expired, its bit is free again.
    expect(allocator.allocate(4663, TAKER, 0n, bitmap, 60, 300)?.nonce).to.equal(2n);
  });

  it("reports a word with every bit used on chain as full, and keeps words and takers apart", () => {
    const allocator = new PermitNonceAllocator();
    expect(allocator.allocate(4663, TAKER, 0n, (1n << 256n) - 1n, 0, 1)).to.equal(undefined);
    expect(allocator.allocate(4663, TAKER, 3n, 0n, 0, 1)?.nonce).to.equal(3n << 8n);
    expect(allocator.allocate(4663, "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC", 0n, 0n, 0, 1)?.nonce).to.equal(0n);
  });
});
