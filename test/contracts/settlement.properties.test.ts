import { expect } from "chai";
import fc from "fast-check";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { erc20Abi, maxUint256, parseUnits, type Hex } from "viem";
import { buildSwapPermitTypedData, encodeSwapNative, encodeSwapWithAllowance, encodeSwapWithPermit, NATIVE_TOKEN, patchSignature } from "../../sdk";
import { settlementFixture } from "../fixtures/settlementFixture";
import { balanceOf, orderFor, testRoute } from "../fixtures/testRoute";

/** Route shapes over the devnet market, from direct hops to three hops, with native legs. */
const PATHS: readonly string[][] = [
  ["USDC", "WETH"],
  ["WETH", "USDC"],
  ["USDC", "DAI"],
  ["DAI", "WETH", "WBTC"],
  ["LINK", "WETH", "USDC"],
  ["USDT", "WETH", "LINK"],
  ["LINK", "WETH", "WBTC", "USDC"],
  ["ETH", "USDC"],
  ["ETH", "WBTC", "USDC"],
  ["USDC", "ETH"],
  ["LINK", "ETH"],
  ["WBTC", "USDC", "DAI"],
];

const SELL_UNITS: Readonly<Record<string, { decimals: number; max: number }>> = {
  USDC: { decimals: 6, max: 200_000 },
  USDT: { decimals: 6, max: 200_000 },
  DAI: { decimals: 18, max: 200_000 },
  WETH: { decimals: 18, max: 60 },
  ETH: { decimals: 18, max: 60 },
  WBTC: { decimals: 8, max: 3 },
  LINK: { decimals: 18, max: 10_000 },
};

async function ready() {
  const f = await settlementFixture();
  for (const symbol of ["USDC", "USDT", "DAI", "WBTC", "LINK"]) {
    for (const spender of [f.contracts.permit2, f.contracts.allowanceHolder]) {
      await f.taker.writeContract({ address: f.token(symbol), abi: erc20Abi, functionName: "approve", args: [spender, maxUint256] });
    }
  }
  // The taker also sells WETH in some paths.
  await f.taker.writeContract({ address: f.contracts.weth, abi: [{ type: "function", name: "deposit", stateMutability: "payable", inputs: [], outputs: [] }], functionName: "deposit", value: parseUnits("100", 18) });
  for (const spender of [f.contracts.permit2, f.contracts.allowanceHolder]) {
    await f.taker.writeContract({ address: f.contracts.weth, abi: erc20Abi, functionName: "approve", args: [spender, maxUint256] });
  }
  return f;
}

describe("settlement properties (fast-check)", function () {
  this.timeout(300_000);

  it("over random amounts, route shapes, fees and settlements: the recipient gets at least the signed minimum and no token stays in the router", async () => {
    let executed = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...PATHS),
        fc.double({ min: 0.0001, max: 1, noNaN: true }),
        fc.integer({ min: 0, max: 300 }),
        fc.boolean(),
        fc.nat({ max: 2 ** 40 }),
        async (path, fraction, feeBps, useAllowance, nonce) => {
          const f = await loadFixture(ready);
          const units = SELL_UNITS[path[0]!]!;
          const sellAmount = parseUnits((units.max * fraction).toFixed(Math.min(units.decimals, 8)), units.decimals);
          fc.pre(sellAmount > 0n);
          const fee = feeBps > 0 ? { bps: feeBps, recipient: f.feeRecipient.account.address } : undefined;
          const route = await testRoute(f, path, sellAmount, fee);
          fc.pre(route.buyAmount > 0n);
          const now = (await f.publicClient.getBlock()).timestamp;
          const quoteId = `0x${nonce.toString(16).padStart(64, "0")}` as Hex;
          const order = orderFor(route, sellAmount, f.recipient.account.address, now, quoteId);
          const before = await balanceOf(f, order.buyToken, f.recipient.account.address);

          let hash: Hex;
          if (order.sellToken === NATIVE_TOKEN) {
            hash = await f.taker.sendTransaction({ to: f.routerAddress, data: encodeSwapNative(order), value: sellAmount });
          } else if (useAllowance) {
            hash = await f.taker.sendTransaction({ to: f.contracts.allowanceHolder, data: encodeSwapWithAllowance(order, f.routerAddress) });
          } else {
            // Permit2's nonce bitmaps outlive the fixture's first build; this file signs in its own range.
            const permitNonce = (3n << 64n) + BigInt(nonce);
            const typedData = buildSwapPermitTypedData({ chainId: 4663, permit2: f.contracts.permit2, router: f.routerAddress, order, nonce: permitNonce });
            const signature = await f.signerOf(f.taker.account.address).signTypedData(typedData);
            const { data, signatureOffset } = encodeSwapWithPermit(order, permitNonce);
            hash = await f.taker.sendTransaction({ to: f.routerAddress, data: patchSignature(data, signatureOffset, signature) });
          }
          const receipt = await f.publicClient.waitForTransactionReceipt({ hash });
          expect(receipt.status).to.equal("success");
          executed++;

          const received = (await balanceOf(f, order.buyToken, f.recipient.account.address)) - before;
          expect(received >= order.minBuyAmount, `received ${received} < minimum ${order.minBuyAmount}`).to.equal(true);
          expect(received).to.equal(route.buyAmount);
          for (const token of [...f.tokens.map((t) => t.address), NATIVE_TOKEN]) {
            expect(await balanceOf(f, token, f.routerAddress), `router holds ${token}`).to.equal(0n);
          }
        },
      ),
      { numRuns: 40, seed: 4663 },
    );
    // Preconditions may skip a few draws; most must really have been swapped.
    expect(executed).to.be.greaterThan(30);
  });
});
