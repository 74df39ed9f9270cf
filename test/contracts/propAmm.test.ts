import { expect } from "chai";
import fc from "fast-check";
import hre from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { concatHex, encodeFunctionData, erc20Abi, getAddress, parseEventLogs, parseUnits, toFunctionSelector, zeroAddress, type Address } from "viem";
import { devPropAmmAbi } from "../../sdk/abis/devPropAmmAbi";
import { propAmmAbi } from "../../sdk/abis/propAmmAbi";
import { propAmmAllowlistAbi } from "../../sdk/abis/propAmmAllowlistAbi";
import { PROPAMM_HOP_GAS } from "../../api/quote/venues/propAmmPricing";
import { propAmmPriceFromDecimal, propAmmPriceToDecimal } from "../../sdk/amm/propAmmPrice";
import { GreedyMode, propAmmFixture, swapPropAmmAction, type PropAmmFixture } from "../fixtures/propAmmFixture";
import { expectRevert } from "../helpers/expectRevert";
import { fuzzRuns } from "../helpers/fuzzRuns";

const SWAP_EXACT_IN = toFunctionSelector("swapExactIn(bool,uint256,uint256,address,uint256)");

const balanceOf = (f: PropAmmFixture, token: Address, account: Address) =>
  f.publicClient.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [account] });
const allowanceOf = (f: PropAmmFixture, token: Address, owner: Address, spender: Address) =>
  f.publicClient.readContract({ address: token, abi: erc20Abi, functionName: "allowance", args: [owner, spender] });
const deadline = async (f: PropAmmFixture) => (await f.publicClient.getBlock()).timestamp + 600n;

async function greedyPropAmm(f: PropAmmFixture, listed = true) {
  const client = { public: f.publicClient, wallet: f.deployer };
  const greedy = await hre.viem.deployContract("GreedyPropAmm", [f.token("USDC"), f.token("DAI")], { client });
  await f.publicClient.waitForTransactionReceipt({ hash: await f.deployer.writeContract({ address: f.token("DAI"), abi: [...erc20Abi, { type: "function", name: "mint", stateMutability: "nonpayable", inputs: [{ name: "to", type: "address" }, { name: "amount", type: "uint256" }], outputs: [] }], functionName: "mint", args: [greedy.address, parseUnits("1000000", 18)] }) });
  if (listed) {
    await f.publicClient.waitForTransactionReceipt({ hash: await f.allowlist.write.add([greedy.address, f.token("USDC"), f.token("DAI")]) });
    // The harness copies the new filter itself (propAmmFixture): no registry feature names it.
    await f.publicClient.waitForTransactionReceipt({ hash: await f.harness.write.sync() });
  }
  return greedy;
}

describe("propAMM venue", () => {
  describe("DevPropAmm (the devnet's reference propAMM)", () => {
    it("quotes at the operator's price less the spread in both directions, and swapExactIn pulls the input and pays `to` exactly the quote", async () => {
      const f = await loadFixture(propAmmFixture);
      const price = await f.wethUsdc.read.price();
      expect(price).to.equal(propAmmPriceFromDecimal("3001.5", 18, 6));
      expect(propAmmPriceToDecimal(price, 18, 6)).to.equal("3001.5");
      await fc.assert(
        fc.asyncProperty(fc.boolean(), fc.bigInt({ min: 1n, max: 10n ** 18n }), async (zeroForOne, raw) => {
          const amountIn = zeroForOne ? raw : raw % 10n ** 9n;
          const gross = zeroForOne ? (amountIn * price) / 10n ** 18n : (amountIn * 10n ** 18n) / price;
          expect(await f.wethUsdc.read.getAmountOut([zeroForOne, amountIn])).to.equal((gross * 9995n) / 10_000n);
        }),
        fuzzRuns(40),
      );

      const amountIn = parseUnits("3001.5", 6);
      const quoted = await f.wethUsdc.read.getAmountOut([false, amountIn]);
      expect(quoted).to.equal((10n ** 18n * 9995n) / 10_000n);
      const usdc = f.token("USDC");
      const weth = f.token("WETH");
      await f.publicClient.waitForTransactionReceipt({
        hash: await f.taker.writeContract({ address: usdc, abi: erc20Abi, functionName: "approve", args: [f.wethUsdc.address, amountIn] }),
      });
      const before = await balanceOf(f, weth, f.recipient.account.address);
      const hash = await f.taker.writeContract({
        address: f.wethUsdc.address,
        abi: propAmmAbi,
        functionName: "swapExactIn",
        args: [false, amountIn, quoted, f.recipient.account.address, await deadline(f)],
      });
      const receipt = await f.publicClient.waitForTransactionReceipt({ hash });
      expect(await balanceOf(f, weth, f.recipient.account.address)).to.equal(before + quoted);
      const [swap] = parseEventLogs({ abi: f.wethUsdc.abi, logs: receipt.logs, eventName: "Swap" });
      expect(swap!.args).to.deep.include({ sender: getAddress(f.taker.account.address), to: getAddress(f.recipient.account.address), zeroForOne: false, amountIn, amountOut: quoted });
    });

    it("lets only its operator set the price and spread, each change an event; refuses a zero price and a spread above 10 %", async () => {
      const f = await loadFixture(propAmmFixture);
      const previous = await f.wethUsdc.read.price();
      const next = propAmmPriceFromDecimal("2950", 18, 6);
      const receipt = await f.publicClient.waitForTransactionReceipt({ hash: await f.wethUsdc.write.setPrice([next, 20]) });
      const [event] = parseEventLogs({ abi: f.wethUsdc.abi, logs: receipt.logs, eventName: "PriceSet" });
      expect(event!.args).to.deep.equal({ previousPrice: previous, price: next, previousSpreadBps: 5, spreadBps: 20 });
      expect(await f.wethUsdc.read.getAmountOut([true, 10n ** 18n])).to.equal((2950_000000n * 9980n) / 10_000n);

      await expectRevert(f.wethUsdc.simulate.setPrice([next, 0], { account: f.stranger.account }), "OwnableUnauthorizedAccount", [getAddress(f.stranger.account.address)]);
      await expectRevert(f.wethUsdc.simulate.setPrice([0n, 5]), "DevPropAmmInvalidQuote", [0n, 5n]);
      await expectRevert(f.wethUsdc.simulate.setPrice([next, 1001]), "DevPropAmmInvalidQuote", [next, 1001n]);
    });

    it("refuses an expired deadline, an output below the minimum, ether, and a swap its inventory cannot pay (which getAmountOut quotes as zero)", async () => {
      const f = await loadFixture(propAmmFixture);
      const to = f.recipient.account.address;
      const asTaker = { account: f.taker.account };
      const now = (await f.publicClient.getBlock()).timestamp;
      await expectRevert(f.wethUsdc.simulate.swapExactIn([true, 10n ** 18n, 1n, to, now - 1n], asTaker), "DevPropAmmDeadlineExpired");
      const quoted = await f.wethUsdc.read.getAmountOut([true, 10n ** 18n]);
      await expectRevert(f.wethUsdc.simulate.swapExactIn([true, 10n ** 18n, quoted + 1n, to, now + 600n], asTaker), "DevPropAmmInsufficientOutput", [quoted, quoted + 1n]);
      await expectRevert(f.wethUsdc.simulate.swapExactIn([true, 10n ** 18n, 1n, to, now + 600n], { ...asTaker, value: 1n }), "DevPropAmmNativeValue", [1n]);
      // 450,000 USDC of inventory: 200 WETH would need about 600,000.
      expect(await f.wethUsdc.read.getAmountOut([true, 200n * 10n ** 18n])).to.equal(0n);
      await expectRevert(f.wethUsdc.simulate.swapExactIn([true, 200n * 10n ** 18n, 1n, to, now + 600n], asTaker), "DevPropAmmInsufficientInventory");
    });

    it("refuses to be built on one token twice or the zero address, and refuses a swap that would pay nothing", async () => {
      const f = await loadFixture(propAmmFixture);
      const usdc = f.token("USDC");
      await expectRevert(hre.viem.deployContract("DevPropAmm", [usdc, usdc, f.deployer.account.address, 1n, 0]), "DevPropAmmInvalidTokens", [usdc, usdc]);
      await expectRevert(hre.viem.deployContract("DevPropAmm", [zeroAddress, usdc, f.deployer.account.address, 1n, 0]), "DevPropAmmInvalidTokens", [zeroAddress, usdc]);
      await expectRevert(hre.viem.deployContract("DevPropAmm", [usdc, f.token("DAI"), f.deployer.account.address, 0n, 0]), "DevPropAmmInvalidQuote", [0n, 0n]);
      // 1 wei of WETH is worth 0.000000003 USDC base units: nothing to pay, so nothing is taken.
      expect(await f.wethUsdc.read.getAmountOut([true, 1n])).to.equal(0n);
      await expectRevert(f.wethUsdc.simulate.swapExactIn([true, 1n, 0n, f.recipient.account.address, await deadline(f)], { account: f.taker.account }), "DevPropAmmInsufficientOutput", [0n, 0n]);
    });

    it("lets only its operator withdraw inventory, with an event, and only of its two tokens", async () => {
      const f = await loadFixture(propAmmFixture);
      const usdc = f.token("USDC");
      const receipt = await f.publicClient.waitForTransactionReceipt({ hash: await f.wethUsdc.write.withdraw([usdc, f.feeRecipient.account.address, 5n]) });
      expect(parseEventLogs({ abi: f.wethUsdc.abi, logs: receipt.logs, eventName: "InventoryWithdrawn" })[0]!.args).to.deep.equal({ token: usdc, to: getAddress(f.feeRecipient.account.address), amount: 5n });
      await expectRevert(f.wethUsdc.simulate.withdraw([usdc, f.stranger.account.address, 1n], { account: f.stranger.account }), "OwnableUnauthorizedAccount");
      await expectRevert(f.wethUsdc.simulate.withdraw([f.token("DAI"), f.stranger.account.address, 1n]), "DevPropAmmUnknownToken", [f.token("DAI")]);
    });
  });

  describe("PropAmmAllowlist", () => {
    it("lists (pair, swapExactIn) with its configured tokens, with an event per change; tokensOf answers zeros for another selector or an unlisted pair", async () => {
      const f = await loadFixture(propAmmFixture);
      const pair = getAddress(f.wethUsdc.address);
      expect(await f.allowlist.read.SWAP_SELECTOR()).to.equal(SWAP_EXACT_IN);
      expect(await f.allowlist.read.tokensOf([pair, SWAP_EXACT_IN])).to.deep.equal([f.token("WETH"), f.token("USDC")]);
      expect(await f.allowlist.read.tokensOf([pair, "0x12345678"])).to.deep.equal([zeroAddress, zeroAddress]);
      // An unlisted pair's stored selector is zero: asking with a zero selector still reads no tokens.
      expect(await f.allowlist.read.tokensOf([f.token("LINK"), "0x00000000"])).to.deep.equal([zeroAddress, zeroAddress]);
      expect(await f.allowlist.read.tokensOf([f.token("WETH"), SWAP_EXACT_IN])).to.deep.equal([zeroAddress, zeroAddress]);
      expect(await f.allowlist.read.isPair([pair])).to.equal(true);
      expect(await f.allowlist.read.isPair([f.token("WETH")])).to.equal(false);
      expect(await f.allowlist.read.tokenUses([f.token("WETH")])).to.equal(2n);
      expect(new Set(await f.allowlist.read.pairs())).to.deep.equal(new Set([pair, getAddress(f.daiPropAmm.address)]));

      const removed = await f.publicClient.waitForTransactionReceipt({ hash: await f.allowlist.write.remove([pair]) });
      expect(parseEventLogs({ abi: propAmmAllowlistAbi, logs: removed.logs, eventName: "PropAmmRemoved" })[0]!.args).to.deep.equal({
        pair,
        selector: SWAP_EXACT_IN,
        token0: f.token("WETH"),
        token1: f.token("USDC"),
      });
      expect(await f.allowlist.read.isPair([pair])).to.equal(false);
      expect(await f.allowlist.read.tokensOf([pair, SWAP_EXACT_IN])).to.deep.equal([zeroAddress, zeroAddress]);
      expect(await f.allowlist.read.pairs()).to.deep.equal([getAddress(f.daiPropAmm.address)]);
      expect(await f.allowlist.read.tokenUses([f.token("USDC")])).to.equal(0n);

      const added = await f.publicClient.waitForTransactionReceipt({ hash: await f.allowlist.write.add([pair, f.token("USDC"), f.token("WETH")]) });
      expect(parseEventLogs({ abi: propAmmAllowlistAbi, logs: added.logs, eventName: "PropAmmAdded" })[0]!.args).to.deep.equal({
        pair,
        selector: SWAP_EXACT_IN,
        token0: f.token("USDC"),
        token1: f.token("WETH"),
      });
    });

    it("is managed by the registry's administrator, whoever that is now: a stranger is refused, and the role moves with the registry's", async () => {
      const f = await loadFixture(propAmmFixture);
      const pair = f.wethUsdc.address;
      await expectRevert(f.allowlist.simulate.remove([pair], { account: f.stranger.account }), "PropAmmAllowlistUnauthorized", [getAddress(f.stranger.account.address)]);
      await expectRevert(f.allowlist.simulate.add([pair, f.token("LINK"), f.token("DAI")], { account: f.stranger.account }), "PropAmmAllowlistUnauthorized", [getAddress(f.stranger.account.address)]);
      await f.registry.write.proposeAdmin([f.stranger.account.address]);
      await f.publicClient.waitForTransactionReceipt({ hash: await f.registry.write.acceptAdmin({ account: f.stranger.account }) });
      await expectRevert(f.allowlist.simulate.remove([pair]), "PropAmmAllowlistUnauthorized", [getAddress(f.deployer.account.address)]);
      await f.publicClient.waitForTransactionReceipt({ hash: await f.allowlist.write.remove([pair], { account: f.stranger.account }) });
      expect(await f.allowlist.read.isPair([pair])).to.equal(false);
    });

    it("keeps pairs and tokens disjoint: refuses a pair that is one of its tokens or another pair's token, a token that is a listed pair, and bad input", async () => {
      const f = await loadFixture(propAmmFixture);
      const [weth, usdc, dai, link] = [f.token("WETH"), f.token("USDC"), f.token("DAI"), f.token("LINK")];
      const listed = getAddress(f.wethUsdc.address);
      const fresh = getAddress((await greedyPropAmm(f, false)).address);
      await expectRevert(f.allowlist.simulate.add([fresh, usdc, usdc]), "PropAmmAllowlistSameTokens", [usdc]);
      await expectRevert(f.allowlist.simulate.add([link, link, usdc]), "PropAmmAllowlistPairIsToken", [link]);
      await expectRevert(f.allowlist.simulate.add([link, usdc, link]), "PropAmmAllowlistPairIsToken", [link]);
      await expectRevert(f.allowlist.simulate.add([weth, link, usdc]), "PropAmmAllowlistPairIsToken", [weth]);
      await expectRevert(f.allowlist.simulate.add([fresh, listed, usdc]), "PropAmmAllowlistTokenIsPair", [listed]);
      await expectRevert(f.allowlist.simulate.add([fresh, usdc, listed]), "PropAmmAllowlistTokenIsPair", [listed]);
      await expectRevert(f.allowlist.simulate.add([listed, usdc, dai]), "PropAmmAllowlistAlreadyListed", [listed]);
      await expectRevert(f.allowlist.simulate.remove([fresh]), "PropAmmAllowlistNotListed", [fresh]);
      await expectRevert(f.allowlist.simulate.add([zeroAddress, usdc, dai]), "PropAmmAllowlistZeroAddress");
      await expectRevert(f.allowlist.simulate.add([fresh, zeroAddress, dai]), "PropAmmAllowlistZeroAddress");
      await expectRevert(f.allowlist.simulate.add([fresh, dai, zeroAddress]), "PropAmmAllowlistZeroAddress");
      const eoa = getAddress(f.stranger.account.address);
      await expectRevert(f.allowlist.simulate.add([eoa, usdc, dai]), "PropAmmAllowlistNotAContract", [eoa]);
      await expectRevert(f.allowlist.simulate.add([fresh, eoa, dai]), "PropAmmAllowlistNotAContract", [eoa]);
      await expectRevert(f.allowlist.simulate.add([fresh, usdc, eoa]), "PropAmmAllowlistNotAContract", [eoa]);
      await expectRevert(hre.viem.deployContract("PropAmmAllowlist", [zeroAddress]), "PropAmmAllowlistZeroAddress");
    });
  });

  describe("SWAP_PROPAMM through the router module (PropAmmHops)", () => {
    it("sells through an allowlisted propAMM in either direction: the recipient gets the quote, the router keeps nothing, and no approval is left", async () => {
      const f = await loadFixture(propAmmFixture);
      const [weth, usdc] = [f.token("WETH"), f.token("USDC")];
      const to = f.recipient.account.address;
      for (const [tokenIn, tokenOut, amountIn, zeroForOne] of [
        [weth, usdc, parseUnits("2.5", 18), true],
        [usdc, weth, parseUnits("12345.678901", 6), false],
      ] as const) {
        const quoted = await f.wethUsdc.read.getAmountOut([zeroForOne, amountIn]);
        const before = await balanceOf(f, tokenOut, to);
        const takerBefore = await balanceOf(f, tokenIn, f.taker.account.address);
        const { result } = await f.harness.simulate.swap([swapPropAmmAction(f.wethUsdc.address, tokenOut), tokenIn, amountIn, to], { account: f.taker.account });
        expect(result).to.deep.equal([tokenOut, quoted]);
        await f.publicClient.waitForTransactionReceipt({ hash: await f.harness.write.swap([swapPropAmmAction(f.wethUsdc.address, tokenOut), tokenIn, amountIn, to], { account: f.taker.account }) });
        expect(await balanceOf(f, tokenOut, to)).to.equal(before + quoted);
        expect(await balanceOf(f, tokenIn, f.taker.account.address)).to.equal(takerBefore - amountIn);
        expect(await balanceOf(f, tokenIn, f.harnessAddress)).to.equal(0n);
        expect(await allowanceOf(f, tokenIn, f.harnessAddress, f.wethUsdc.address)).to.equal(0n);
      }
    });

    it("chains two propAMM hops (DAI → WETH → USDC), the first paying the router and the second the recipient, the amount measured at each", async () => {
      const f = await loadFixture(propAmmFixture);
      const [dai, weth, usdc] = [f.token("DAI"), f.token("WETH"), f.token("USDC")];
      await fc.assert(
        fc.asyncProperty(fc.bigInt({ min: 10n ** 15n, max: 20_000n * 10n ** 18n }), async (amountIn) => {
          const middle = await f.daiPropAmm.read.getAmountOut([true, amountIn]);
          const out = await f.wethUsdc.read.getAmountOut([true, middle]);
          const actions = concatHex([swapPropAmmAction(f.daiPropAmm.address, weth), swapPropAmmAction(f.wethUsdc.address, usdc)]);
          const before = await balanceOf(f, usdc, f.recipient.account.address);
          await f.publicClient.waitForTransactionReceipt({ hash: await f.harness.write.swap([actions, dai, amountIn, f.recipient.account.address], { account: f.taker.account }) });
          expect(await balanceOf(f, usdc, f.recipient.account.address)).to.equal(before + out);
          for (const token of [dai, weth, usdc]) expect(await balanceOf(f, token, f.harnessAddress)).to.equal(0n);
        }),
        fuzzRuns(8),
      );
    });

    it("calls only an allowlisted pair: a deployed but unlisted propAMM and a removed one are refused before any approval", async () => {
      const f = await loadFixture(propAmmFixture);
      const [weth, usdc] = [f.token("WETH"), f.token("USDC")];
      const unlisted = getAddress((await greedyPropAmm(f, false)).address);
      await expectRevert(f.harness.simulate.swap([swapPropAmmAction(unlisted, f.token("DAI")), usdc, 1000n, f.recipient.account.address], { account: f.taker.account }), "SwapPropAmmNotAllowed", [unlisted]);
      const pair = getAddress(f.wethUsdc.address);
      await f.publicClient.waitForTransactionReceipt({ hash: await f.allowlist.write.remove([pair]) });
      await expectRevert(f.harness.simulate.swap([swapPropAmmAction(pair, usdc), weth, 10n ** 18n, f.recipient.account.address], { account: f.taker.account }), "SwapPropAmmNotAllowed", [pair]);
    });

    it("takes the tokens from the allowlist: a hop whose tokenIn or tokenOut is not the pair's configured token0/token1 is refused", async () => {
      const f = await loadFixture(propAmmFixture);
      const [weth, usdc, dai] = [f.token("WETH"), f.token("USDC"), f.token("DAI")];
      const pair = getAddress(f.wethUsdc.address);
      const to = f.recipient.account.address;
      const asTaker = { account: f.taker.account };
      await expectRevert(f.harness.simulate.swap([swapPropAmmAction(pair, dai), weth, 10n ** 18n, to], asTaker), "SwapPropAmmTokenMismatch", [pair, weth, dai]);
      await expectRevert(f.harness.simulate.swap([swapPropAmmAction(pair, usdc), dai, 10n ** 18n, to], asTaker), "SwapPropAmmTokenMismatch", [pair, dai, usdc]);
      await expectRevert(f.harness.simulate.swap([swapPropAmmAction(pair, weth), weth, 10n ** 18n, to], asTaker), "SwapPropAmmTokenMismatch", [pair, weth, weth]);
      await expectRevert(f.harness.simulate.swap([swapPropAmmAction(pair, usdc), usdc, 10n ** 6n, to], asTaker), "SwapPropAmmTokenMismatch", [pair, usdc, usdc]);
    });

    it("refuses a propAMM that pays less than it says, pays nothing, or takes less than its input (keeping part of the approval)", async () => {
      const f = await loadFixture(propAmmFixture);
      const greedy = await greedyPropAmm(f);
      const pair = getAddress(greedy.address);
      const [usdc, dai] = [f.token("USDC"), f.token("DAI")];
      const to = f.recipient.account.address;
      const swap = () => f.harness.simulate.swap([swapPropAmmAction(pair, dai), usdc, 1_000_000n, to], { account: f.taker.account });
      // Honest, it settles: the security checks do not refuse a venue that keeps its word.
      expect((await swap()).result).to.deep.equal([dai, 1_000_000n]);

      await greedy.write.setMode([GreedyMode.ShortPay, zeroAddress, "0x"]);
      await expectRevert(swap(), "SwapPropAmmShortPaid", [pair, 1_000_000n, 500_000n]);
      // Also in a mined transaction, not only a call: the refusal reverts the whole swap on chain.
      const data = encodeFunctionData({ abi: f.harness.abi, functionName: "swap", args: [swapPropAmmAction(pair, dai), usdc, 1_000_000n, to] });
      await expectRevert(f.taker.sendTransaction({ to: f.harnessAddress, data, gas: 1_000_000n }), "SwapPropAmmShortPaid", [pair, 1_000_000n, 500_000n]);
      await greedy.write.setMode([GreedyMode.PayNothing, zeroAddress, "0x"]);
      await expectRevert(swap(), "SwapPropAmmShortPaid", [pair, 0n, 0n]);
      await greedy.write.setMode([GreedyMode.KeepApproval, zeroAddress, "0x"]);
      await expectRevert(swap(), "SwapPropAmmInputLeft", [pair, 1n]);
      // Nothing stays approved after a hop that settled, so a venue can pull nothing later.
      await greedy.write.setMode([GreedyMode.Honest, zeroAddress, "0x"]);
      await f.publicClient.waitForTransactionReceipt({ hash: await f.harness.write.swap([swapPropAmmAction(pair, dai), usdc, 1_000_000n, to], { account: f.taker.account }) });
      expect(await allowanceOf(f, usdc, f.harnessAddress, pair)).to.equal(0n);
      await expectRevert(greedy.simulate.pull([usdc, f.harnessAddress, 1n]), "ERC20InsufficientAllowance", [pair, 0n, 1n]);
    });

    it("refuses a propAMM that calls back into the router during its swap (the entry points' re-entrancy lock)", async () => {
      const f = await loadFixture(propAmmFixture);
      const greedy = await greedyPropAmm(f);
      const [usdc, dai] = [f.token("USDC"), f.token("DAI")];
      const reentry = encodeFunctionData({ abi: f.harness.abi, functionName: "swap", args: [swapPropAmmAction(greedy.address, dai), usdc, 1n, greedy.address] });
      await greedy.write.setMode([GreedyMode.Reenter, f.harnessAddress, reentry]);
      await expectRevert(f.harness.simulate.swap([swapPropAmmAction(greedy.address, dai), usdc, 1_000_000n, f.recipient.account.address], { account: f.taker.account }), "SwapReentrantCall");
      const rescue = encodeFunctionData({ abi: f.harness.abi, functionName: "rescue", args: [usdc, greedy.address, 1n] });
      await greedy.write.setMode([GreedyMode.Reenter, f.harnessAddress, rescue]);
      await expectRevert(f.harness.simulate.swap([swapPropAmmAction(greedy.address, dai), usdc, 1_000_000n, f.recipient.account.address], { account: f.taker.account }), "SwapReentrantCall");
    });

    it("checks but does not trade a zero input (a split leg rounded to nothing), and a module without an allowlist refuses every hop", async () => {
      const f = await loadFixture(propAmmFixture);
      const [weth, usdc] = [f.token("WETH"), f.token("USDC")];
      const { result } = await f.harness.simulate.swap([swapPropAmmAction(f.wethUsdc.address, usdc), weth, 0n, f.recipient.account.address], { account: f.taker.account });
      expect(result).to.deep.equal([usdc, 0n]);
      await expectRevert(f.harness.simulate.swap([swapPropAmmAction(f.wethUsdc.address, f.token("DAI")), weth, 0n, f.recipient.account.address], { account: f.taker.account }), "SwapPropAmmTokenMismatch");
      // A router version without propAMMs (zero allowlist) refuses every SWAP_PROPAMM hop.
      const without = await hre.viem.deployContract("PropAmmHopsHarness", [f.contracts.weth, f.contracts.routerRegistry, zeroAddress]);
      await expectRevert(without.simulate.swap([swapPropAmmAction(f.wethUsdc.address, usdc), weth, 0n, f.recipient.account.address], { account: f.taker.account }), "SwapPropAmmNotAllowed");
    });

    it("costs no more gas per further hop than the quote API's propAMM gas figure says (PROPAMM_HOP_GAS.furtherHop, a measured p90)", async function () {
      // Coverage's instrumented bytecode costs more gas than the real build: only the real one is measured.
      if (process.env.SOLIDITY_COVERAGE === "true") this.skip();
      const f = await loadFixture(propAmmFixture);
      const [weth, usdc, dai] = [f.token("WETH"), f.token("USDC"), f.token("DAI")];
      const routes = [
        [swapPropAmmAction(f.wethUsdc.address, usdc)],
        [swapPropAmmAction(f.wethUsdc.address, usdc), swapPropAmmAction(f.wethUsdc.address, weth)],
        [swapPropAmmAction(f.wethUsdc.address, usdc), swapPropAmmAction(f.wethUsdc.address, weth), swapPropAmmAction(f.daiPropAmm.address, dai)],
      ];
      const increments: bigint[] = [];
      for (const amount of ["0.01", "0.5", "3", "20"]) {
        const gas: bigint[] = [];
        for (const hops of routes) {
          const hash = await f.harness.write.swap([concatHex(hops), weth, parseUnits(amount, 18), f.recipient.account.address], { account: f.taker.account });
          gas.push((await f.publicClient.waitForTransactionReceipt({ hash })).gasUsed);
        }
        increments.push(gas[1]! - gas[0]!, gas[2]! - gas[1]!);
      }
      const sorted = [...increments].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      const p90 = sorted[Math.ceil(sorted.length * 0.9) - 1]!;
      expect(Number(p90)).to.be.at.most(PROPAMM_HOP_GAS.furtherHop).and.at.least(PROPAMM_HOP_GAS.furtherHop - 15_000);
    });

    it("the SDK's ABIs equal the compiled IPropAmm, PropAmmAllowlist and DevPropAmm", async () => {
      const key = (item: { type: string; name?: string }) => `${item.type}:${item.name ?? ""}`;
      const sorted = (abi: readonly { type: string; name?: string }[]) => [...abi].sort((a, b) => key(a).localeCompare(key(b)));
      expect(JSON.parse(JSON.stringify(sorted(propAmmAbi)))).to.deep.equal(sorted((await hre.artifacts.readArtifact("IPropAmm")).abi));
      expect(JSON.parse(JSON.stringify(sorted(propAmmAllowlistAbi)))).to.deep.equal(sorted((await hre.artifacts.readArtifact("PropAmmAllowlist")).abi));
      expect(JSON.parse(JSON.stringify(sorted(devPropAmmAbi)))).to.deep.equal(sorted((await hre.artifacts.readArtifact("DevPropAmm")).abi));
    });
  });
});
