import { expect } from "chai";
import fc from "fast-check";
import hre from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { concatHex, erc20Abi, maxUint256, numberToHex, parseEther, parseEventLogs, parseUnits, type Address, type Hex } from "viem";
import {
  buildSwapPermitTypedData,
  encodeRouteActions,
  encodeSwapNative,
  encodeSwapWithPermit,
  NATIVE_TOKEN,
  patchSignature,
  takerSwapRouterAbi,
  type SwapOrder,
} from "../../sdk";
import { settlementFixture, type SettlementFixture } from "../fixtures/settlementFixture";
import { balanceOf, orderFor, testSplit } from "../fixtures/testRoute";
import { expectRevert } from "../helpers/expectRevert";
import { fuzzRuns } from "../helpers/fuzzRuns";

const QUOTE_ID: Hex = `0x${"5b".repeat(32)}`;
/** Permit2's nonce bitmaps outlive a fixture's first build; this file signs in its own range. */
const NONCE_BASE = 7n << 64n;

/** Three pool-disjoint USDC → WETH paths of the devnet market. */
const USDC_TO_WETH = [
  ["USDC", "WETH"],
  ["USDC", "USDT", "WETH"],
  ["USDC", "DAI", "WETH"],
] as const;

async function now(f: SettlementFixture): Promise<bigint> {
  return (await f.publicClient.getBlock()).timestamp;
}

async function permitReady() {
  const f = await settlementFixture();
  await f.publicClient.waitForTransactionReceipt({
    hash: await f.taker.writeContract({ address: f.token("USDC"), abi: erc20Abi, functionName: "approve", args: [f.contracts.permit2, maxUint256] }),
  });
  return f;
}

async function sendPermitSwap(f: SettlementFixture, order: SwapOrder, nonce: bigint, signedOrder: SwapOrder = order) {
  const typedData = buildSwapPermitTypedData({ chainId: 4663, permit2: f.contracts.permit2, router: f.routerAddress, order: signedOrder, nonce: NONCE_BASE + nonce });
  const signature = await f.signerOf(f.taker.account.address).signTypedData(typedData);
  const { data, signatureOffset } = encodeSwapWithPermit(order, NONCE_BASE + nonce);
  const hash = await f.taker.sendTransaction({ to: f.routerAddress, data: patchSignature(data, signatureOffset, signature) });
  return f.publicClient.waitForTransactionReceipt({ hash });
}

describe("Split routes (SPLIT action)", () => {
  describe("settlement", () => {
    it("sells 10 % of the USDC/WETH pool's depth across three paths in one transaction, paying the recipient exactly the quoted total", async () => {
      const f = await loadFixture(permitReady);
      const sellAmount = parseUnits("300000", 6);
      const split = await testSplit(f, USDC_TO_WETH, [6000, 2000, 2000], sellAmount);
      const order = orderFor(split, sellAmount, f.recipient.account.address, await now(f), QUOTE_ID);
      const usdcBefore = await balanceOf(f, f.token("USDC"), f.taker.account.address);
      const wethBefore = await balanceOf(f, f.token("WETH"), f.recipient.account.address);

      const receipt = await sendPermitSwap(f, order, 0n);

      expect(await balanceOf(f, f.token("USDC"), f.taker.account.address)).to.equal(usdcBefore - sellAmount);
      expect(await balanceOf(f, f.token("WETH"), f.recipient.account.address)).to.equal(wethBefore + split.buyAmount);
      // The split pays more than the direct pool alone would have.
      expect(split.buyAmount > split.singleBuyAmount).to.equal(true);
      expect(await balanceOf(f, f.token("USDC"), f.routerAddress)).to.equal(0n);
      expect(await balanceOf(f, f.token("WETH"), f.routerAddress)).to.equal(0n);
      const settled = parseEventLogs({ abi: takerSwapRouterAbi, logs: receipt.logs, eventName: "SwapSettled" });
      expect(settled).to.have.length(1);
      expect(settled[0]!.args).to.include({ sellAmount, buyAmount: split.buyAmount, feeAmount: 0n });
    });

    it("gives every leg but the last its share rounded down and the last leg the rest, nothing left in the router", async () => {
      const f = await loadFixture(permitReady);
      const sellAmount = parseUnits("12345.678901", 6);
      const split = await testSplit(f, USDC_TO_WETH, [3333, 3333, 3334], sellAmount);
      expect(split.legAmounts).to.deep.equal([(sellAmount * 3333n) / 10_000n, (sellAmount * 3333n) / 10_000n, sellAmount - 2n * ((sellAmount * 3333n) / 10_000n)]);
      const order = orderFor(split, sellAmount, f.recipient.account.address, await now(f), QUOTE_ID);
      const wethBefore = await balanceOf(f, f.token("WETH"), f.recipient.account.address);

      await sendPermitSwap(f, order, 1n);

      expect(await balanceOf(f, f.token("WETH"), f.recipient.account.address)).to.equal(wethBefore + split.buyAmount);
      expect(await balanceOf(f, f.token("USDC"), f.routerAddress)).to.equal(0n);
    });

    it("sells ETH: wraps, splits WETH into USDC over two paths, and takes the platform fee from the total", async () => {
      const f = await loadFixture(settlementFixture);
      const sellAmount = parseEther("50");
      const fee = { bps: 25, recipient: f.feeRecipient.account.address };
      const split = await testSplit(f, [["ETH", "USDC"], ["ETH", "DAI", "USDC"]], [7000, 3000], sellAmount, fee);
      const order = orderFor(split, sellAmount, f.recipient.account.address, await now(f), QUOTE_ID);
      const usdcBefore = await balanceOf(f, f.token("USDC"), f.recipient.account.address);
      const feeBefore = await balanceOf(f, f.token("USDC"), f.feeRecipient.account.address);

      const hash = await f.taker.sendTransaction({ to: f.routerAddress, data: encodeSwapNative(order), value: sellAmount });
      await f.publicClient.waitForTransactionReceipt({ hash });

      expect(await balanceOf(f, f.token("USDC"), f.recipient.account.address)).to.equal(usdcBefore + split.buyAmount);
      expect(await balanceOf(f, f.token("USDC"), f.feeRecipient.account.address)).to.equal(feeBefore + split.feeAmount);
      expect(split.feeAmount > 0n).to.equal(true);
      expect(await balanceOf(f, f.token("USDC"), f.routerAddress)).to.equal(0n);
    });

    it("buys ETH: splits USDC into WETH, unwraps the total and pays ether", async () => {
      const f = await loadFixture(permitReady);
      const sellAmount = parseUnits("90000", 6);
      const split = await testSplit(f, [["USDC", "ETH"], ["USDC", "WBTC", "ETH"]], [8000, 2000], sellAmount);
      const order = orderFor(split, sellAmount, f.recipient.account.address, await now(f), QUOTE_ID);
      const ethBefore = await balanceOf(f, NATIVE_TOKEN, f.recipient.account.address);

      await sendPermitSwap(f, order, 2n);

      expect(await balanceOf(f, NATIVE_TOKEN, f.recipient.account.address)).to.equal(ethBefore + split.buyAmount);
      expect(await balanceOf(f, f.token("WETH"), f.routerAddress)).to.equal(0n);
    });

    it("checks the minimum once, over the legs' total", async () => {
      const f = await loadFixture(permitReady);
      const sellAmount = parseUnits("50000", 6);
      const split = await testSplit(f, USDC_TO_WETH, [5000, 2500, 2500], sellAmount);
      const order = { ...orderFor(split, sellAmount, f.recipient.account.address, await now(f), QUOTE_ID), minBuyAmount: split.buyAmount + 1n };
      await expectRevert(sendPermitSwap(f, order, 3n), "SwapInsufficientOutput", [split.buyAmount, split.buyAmount + 1n]);
    });

    it("binds the split's shares in the witness: an order re-split after signing is refused by Permit2", async () => {
      const f = await loadFixture(permitReady);
      const sellAmount = parseUnits("40000", 6);
      const signed = orderFor(await testSplit(f, USDC_TO_WETH, [5000, 3000, 2000], sellAmount), sellAmount, f.recipient.account.address, await now(f), QUOTE_ID);
      const resplit = { ...signed, actions: (await testSplit(f, USDC_TO_WETH, [2000, 3000, 5000], sellAmount)).encoded, minBuyAmount: 0n };
      await expectRevert(sendPermitSwap(f, { ...resplit, minBuyAmount: signed.minBuyAmount }, 4n, signed), "InvalidSigner");
    });

    it("settles a leg whose share rounds to nothing without trading it", async () => {
      const f = await loadFixture(permitReady);
      const sellAmount = 9_999n; // 1 bps of it is 0
      const split = await testSplit(f, USDC_TO_WETH.slice(0, 2), [1, 9999], sellAmount);
      expect(split.legAmounts).to.deep.equal([0n, sellAmount]);
      const order = orderFor(split, sellAmount, f.recipient.account.address, await now(f), QUOTE_ID);
      const wethBefore = await balanceOf(f, f.token("WETH"), f.recipient.account.address);
      await sendPermitSwap(f, order, 5n);
      expect(await balanceOf(f, f.token("WETH"), f.recipient.account.address)).to.equal(wethBefore + split.buyAmount);
    });

    it("pays what the split's pools quote for any shares and amount (property)", async function () {
      this.timeout(300_000);
      const f = await loadFixture(permitReady);
      let nonce = 100n;
      const devTokenAbi = (await hre.artifacts.readArtifact("DevToken")).abi;
      // Every leg gets at least 5 % of at least 100 USDC: a leg too small to buy one wei of WETH is
      // refused by its pair, and a quote never builds one.
      const shares = fc.oneof(
        fc.integer({ min: 500, max: 9_500 }).map((first) => [first, 10_000 - first]),
        fc.tuple(fc.integer({ min: 500, max: 4_500 }), fc.integer({ min: 500, max: 4_500 })).map(([a, b]) => [a, b, 10_000 - a - b]),
      );
      await fc.assert(
        fc.asyncProperty(shares, fc.bigInt({ min: 100_000_000n, max: parseUnits("200000", 6) }), async (sharesBps, sellAmount) => {
          // Runs add up to more USDC than the devnet gives the taker: each run brings its own.
          const mint = await f.deployer.writeContract({ address: f.token("USDC"), abi: devTokenAbi, functionName: "mint", args: [f.taker.account.address, sellAmount] });
          await f.publicClient.waitForTransactionReceipt({ hash: mint });
          const split = await testSplit(f, USDC_TO_WETH.slice(0, sharesBps.length), sharesBps, sellAmount);
          const order = orderFor(split, sellAmount, f.recipient.account.address, await now(f), QUOTE_ID);
          const before = await balanceOf(f, f.token("WETH"), f.recipient.account.address);
          await sendPermitSwap(f, order, nonce++);
          expect(await balanceOf(f, f.token("WETH"), f.recipient.account.address)).to.equal(before + split.buyAmount);
        }),
        fuzzRuns(8),
      );
    });
  });

  describe("refusals", () => {
    async function nativeSender() {
      const f = await loadFixture(settlementFixture);
      const base = orderFor(await testSplit(f, [["ETH", "USDC"], ["ETH", "DAI", "USDC"]], [5000, 5000], 10n ** 15n), 10n ** 15n, f.recipient.account.address, await now(f), QUOTE_ID);
      const send = (actions: Hex, buyToken: Address = base.buyToken) =>
        f.taker.sendTransaction({ to: f.routerAddress, data: encodeSwapNative({ ...base, actions, buyToken, minBuyAmount: 0n }), value: base.sellAmount });
      // Each hop of a leg is a whole SWAP_V2 action, opcode included.
      const hop = (from: string, to: string) => concatHex(["0x01", f.pool(from, to), f.token(to), numberToHex(30, { size: 2 })]);
      const leg = (share: number, ...hops: Hex[]) => concatHex([numberToHex(share, { size: 2 }), numberToHex(hops.length, { size: 1 }), ...hops]);
      const split = (...legs: Hex[]) => concatHex(["0x02", "0x05", numberToHex(legs.length, { size: 1 }), ...legs]);
      return { f, send, hop, leg, split };
    }

    it("refuses splits of fewer than 2 or more than 3 legs", async () => {
      const { send, hop, leg, split } = await nativeSender();
      await expectRevert(send(split(leg(10_000, hop("WETH", "USDC")))), "SwapSplitLegCount", [1n, 1n]);
      const quarter = leg(2500, hop("WETH", "USDC"));
      await expectRevert(send(split(quarter, quarter, quarter, quarter)), "SwapSplitLegCount", [1n, 4n]);
    });

    it("refuses legs of no hops or more than 3", async () => {
      const { send, hop, leg, split } = await nativeSender();
      const good = leg(5000, hop("WETH", "USDC"));
      await expectRevert(send(split(good, leg(5000))), "SwapSplitHopCount", [1n, 0n]);
      const four = leg(5000, hop("WETH", "DAI"), hop("DAI", "USDC"), hop("USDC", "DAI"), hop("DAI", "USDC"));
      await expectRevert(send(split(good, four)), "SwapSplitHopCount", [1n, 4n]);
    });

    it("refuses a leg hop that is not a swap action, naming its opcode and byte", async () => {
      const { send, hop, leg, split } = await nativeSender();
      // A WRAP (0x02) where the second leg's hop belongs: legs hold only SWAP_V2, SWAP_V3 and SWAP_PROPAMM.
      const good = leg(5000, hop("WETH", "USDC"));
      await expectRevert(send(split(good, leg(5000, "0x02"))), "SwapUnknownAction", [2, 1n + 2n + 3n + 43n + 3n]);
      // A leg whose hop count runs past the end of the actions.
      await expectRevert(send(concatHex([split(good), "0x138801"]).replace(/^0x020501/, "0x020502") as Hex), "SwapTruncatedAction", [1n]);
    });

    it("refuses shares that do not add up to 10,000 or include a zero", async () => {
      const { send, hop, leg, split } = await nativeSender();
      await expectRevert(send(split(leg(5000, hop("WETH", "USDC")), leg(4999, hop("WETH", "DAI"), hop("DAI", "USDC")))), "SwapSplitShares", [1n, 9999n]);
      await expectRevert(send(split(leg(0, hop("WETH", "USDC")), leg(10_000, hop("WETH", "DAI"), hop("DAI", "USDC")))), "SwapSplitShares", [1n, 0n]);
      await expectRevert(send(split(leg(60_000, hop("WETH", "USDC")), leg(15_536, hop("WETH", "DAI"), hop("DAI", "USDC")))), "SwapSplitShares", [1n, 75_536n]);
    });

    it("refuses truncated splits without reading past the actions", async () => {
      const { send, hop, leg, split } = await nativeSender();
      const whole = split(leg(5000, hop("WETH", "USDC")), leg(5000, hop("WETH", "DAI"), hop("DAI", "USDC")));
      await expectRevert(send("0x0205"), "SwapTruncatedAction", [1n]);
      await expectRevert(send(concatHex(["0x020502", numberToHex(5000, { size: 2 })])), "SwapTruncatedAction", [1n]);
      await expectRevert(send(whole.slice(0, whole.length - 2) as Hex), "SwapTruncatedAction", [1n]);
    });

    it("refuses legs that end in different tokens, unknown pairs, and native tokens inside a leg", async () => {
      const { f, send, hop, leg, split } = await nativeSender();
      await expectRevert(send(split(leg(5000, hop("WETH", "USDC")), leg(5000, hop("WETH", "DAI")))), "SwapUnexpectedToken", [f.token("USDC"), f.token("DAI")]);
      const lookalike = concatHex(["0x01", f.pool("WETH", "DAI"), f.token("USDC"), numberToHex(30, { size: 2 })]);
      await expectRevert(send(split(leg(5000, hop("WETH", "USDC")), leg(5000, lookalike))), "SwapUnknownPair", [f.pool("WETH", "DAI"), f.pool("WETH", "USDC")]);
      // Without the wrap, the split would start from the native asset, which no pool trades.
      const unwrapped = encodeRouteActions([{ type: "split", legs: [{ shareBps: 5000, hops: [{ type: "swapV2", pair: f.pool("WETH", "USDC"), tokenOut: f.token("USDC"), feeBps: 30 }] }, { shareBps: 5000, hops: [{ type: "swapV2", pair: f.pool("WETH", "USDC"), tokenOut: f.token("USDC"), feeBps: 30 }] }] }]);
      await expectRevert(send(unwrapped), "SwapUnexpectedToken", [f.contracts.weth, NATIVE_TOKEN]);
    });

    it("refuses a leg too small to buy anything with the router's own error, naming the pair", async () => {
      const { f, hop, leg, split } = await nativeSender();
      // 10^11 wei split 9999:1 gives the second leg 10^7 wei: worth less than one unit of USDC at its last pool.
      const value = 10n ** 11n;
      const actions = split(leg(9999, hop("WETH", "USDC")), leg(1, hop("WETH", "DAI"), hop("DAI", "USDC")));
      const order: SwapOrder = { sellToken: NATIVE_TOKEN, sellAmount: value, buyToken: f.token("USDC"), minBuyAmount: 0n, recipient: f.recipient.account.address, deadline: maxUint256, quoteId: QUOTE_ID, actions };
      await expectRevert(f.taker.sendTransaction({ to: f.routerAddress, data: encodeSwapNative(order), value }), "SwapSplitLegTooSmall");
    });

    it("lets a swap follow a split, and a split end in another token than the buy token only when more actions follow", async () => {
      const { f, send, hop, leg, split } = await nativeSender();
      // WETH → (USDC | DAI→USDC) → USDC/WETH pool back to WETH, then unwrap: a legal (if pointless) route.
      const roundTrip = concatHex([split(leg(5000, hop("WETH", "USDC")), leg(5000, hop("WETH", "DAI"), hop("DAI", "USDC"))), hop("USDC", "WETH"), "0x03"]);
      const receipt = await f.publicClient.waitForTransactionReceipt({ hash: await send(roundTrip, NATIVE_TOKEN) });
      expect(receipt.status).to.equal("success");
      expect(await balanceOf(f, f.token("USDC"), f.routerAddress)).to.equal(0n);
      // A swap before a split hands its output to the router (not to a pair), and the split sells it on.
      const swapThenSplit = concatHex(["0x02", hop("WETH", "USDC"), "0x05", "0x02", leg(5000, hop("USDC", "DAI"), hop("DAI", "WETH")).slice(2) as Hex, leg(5000, hop("USDC", "WETH")).slice(2) as Hex, "0x03"]);
      const swapped = await f.publicClient.waitForTransactionReceipt({ hash: await send(swapThenSplit, NATIVE_TOKEN) });
      expect(swapped.status).to.equal("success");
      for (const token of [f.token("USDC"), f.token("DAI"), f.contracts.weth]) expect(await balanceOf(f, token, f.routerAddress)).to.equal(0n);
      // The same split as the last action, ending in USDC while the order buys ETH.
      await expectRevert(send(split(leg(5000, hop("WETH", "USDC")), leg(5000, hop("WETH", "DAI"), hop("DAI", "USDC"))), NATIVE_TOKEN), "SwapUnexpectedToken", [NATIVE_TOKEN, f.token("USDC")]);
    });
  });
});
