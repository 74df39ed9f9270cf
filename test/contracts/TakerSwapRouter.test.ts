import hre from "hardhat";
import { expect } from "chai";
import { loadFixture, time } from "@nomicfoundation/hardhat-network-helpers";
import { encodeFunctionData, erc20Abi, getAddress, maxUint256, parseEventLogs, parseUnits, type Address, type Hex } from "viem";
import {
  buildSwapPermitTypedData,
  encodeRouteActions,
  encodeSwapNative,
  encodeSwapWithAllowance,
  encodeSwapWithPermit,
  NATIVE_TOKEN,
  patchSignature,
  takerSwapRouterAbi,
  type SwapOrder,
} from "../../sdk";
import { settlementFixture, type SettlementFixture } from "../fixtures/settlementFixture";
import { balanceOf, orderFor, testRoute } from "../fixtures/testRoute";
import { expectRevert } from "../helpers/expectRevert";

const QUOTE_ID: Hex = `0x${"5a".repeat(32)}`;
/**
 * Permit2 sits at one canonical address for every fixture, so its nonce bitmaps outlive a fixture's
 * first build; each test file signs in its own nonce range.
 */
const NONCE_BASE = 1n << 64n;

async function now(f: SettlementFixture): Promise<bigint> {
  return (await f.publicClient.getBlock()).timestamp;
}

async function approve(f: SettlementFixture, token: Address, owner: SettlementFixture["taker"], spender: Address) {
  await f.publicClient.waitForTransactionReceipt({
    hash: await owner.writeContract({ address: token, abi: erc20Abi, functionName: "approve", args: [spender, maxUint256] }),
  });
}

async function signPermit(f: SettlementFixture, order: SwapOrder, nonce: bigint, signer: Address = f.taker.account.address) {
  const typedData = buildSwapPermitTypedData({
    chainId: 4663,
    permit2: f.contracts.permit2,
    router: f.routerAddress,
    order,
    nonce: NONCE_BASE + nonce,
  });
  return f.signerOf(signer).signTypedData(typedData);
}

/** Sends the permit swap `order` as the taker's wallet would: placeholder calldata, patched signature. */
async function sendPermitSwap(f: SettlementFixture, order: SwapOrder, nonce: bigint, signature: Hex, from = f.taker) {
  const { data, signatureOffset } = encodeSwapWithPermit(order, NONCE_BASE + nonce);
  const hash = await from.sendTransaction({ to: f.routerAddress, data: patchSignature(data, signatureOffset, signature) });
  return f.publicClient.waitForTransactionReceipt({ hash });
}

/** Fixture with the taker's USDC approved to Permit2. */
async function permitReady() {
  const f = await settlementFixture();
  await approve(f, f.token("USDC"), f.taker, f.contracts.permit2);
  await approve(f, f.token("LINK"), f.taker, f.contracts.permit2);
  return f;
}

describe("TakerSwapRouter (feature 2)", () => {
  describe("permit settlement", () => {
    it("sells USDC for WETH with a Permit2 witness signature and pays the recipient exactly the quoted amount", async () => {
      const f = await loadFixture(permitReady);
      const sellAmount = parseUnits("3000", 6);
      const route = await testRoute(f, ["USDC", "WETH"], sellAmount);
      const order = orderFor(route, sellAmount, f.recipient.account.address, await now(f), QUOTE_ID);
      const usdcBefore = await balanceOf(f, f.token("USDC"), f.taker.account.address);
      const wethBefore = await balanceOf(f, f.token("WETH"), f.recipient.account.address);

      const receipt = await sendPermitSwap(f, order, 0n, await signPermit(f, order, 0n));

      expect(await balanceOf(f, f.token("USDC"), f.taker.account.address)).to.equal(usdcBefore - sellAmount);
      expect(await balanceOf(f, f.token("WETH"), f.recipient.account.address)).to.equal(wethBefore + route.buyAmount);
      expect(route.buyAmount > parseUnits("0.9", 18)).to.equal(true);
      const [settled] = parseEventLogs({ abi: takerSwapRouterAbi, logs: receipt.logs, eventName: "SwapSettled" });
      expect(settled?.args).to.deep.equal({
        quoteId: QUOTE_ID,
        taker: f.taker.account.address,
        recipient: f.recipient.account.address,
        sellToken: f.token("USDC"),
        sellAmount,
        buyToken: f.token("WETH"),
        buyAmount: route.buyAmount,
        feeAmount: 0n,
      });
    });

    it("routes LINK → WETH → USDC pool to pool, pays the platform fee and leaves nothing in the router", async () => {
      const f = await loadFixture(permitReady);
      const sellAmount = parseUnits("100", 18);
      const route = await testRoute(f, ["LINK", "WETH", "USDC"], sellAmount, { bps: 25, recipient: f.feeRecipient.account.address });
      const order = orderFor(route, sellAmount, f.recipient.account.address, await now(f), QUOTE_ID);
      const feeBefore = await balanceOf(f, f.token("USDC"), f.feeRecipient.account.address);
      const recipientBefore = await balanceOf(f, f.token("USDC"), f.recipient.account.address);

      const receipt = await sendPermitSwap(f, order, 7n, await signPermit(f, order, 7n));

      expect(route.feeAmount > 0n).to.equal(true);
      expect(await balanceOf(f, f.token("USDC"), f.feeRecipient.account.address)).to.equal(feeBefore + route.feeAmount);
      expect(await balanceOf(f, f.token("USDC"), f.recipient.account.address)).to.equal(recipientBefore + route.buyAmount);
      for (const symbol of ["LINK", "WETH", "USDC"]) expect(await balanceOf(f, f.token(symbol), f.routerAddress)).to.equal(0n);
      // Pool to pool: the WETH leg never touches the router, so WETH moves once (pair → pair).
      const wethTransfers = parseEventLogs({ abi: erc20Abi, logs: receipt.logs, eventName: "Transfer" }).filter(
        (log) => log.address.toLowerCase() === f.token("WETH").toLowerCase(),
      );
      expect(wethTransfers).to.have.length(1);
    });

    describe("rejects a signed order altered after signing", () => {
      const alterations: { field: string; alter: (order: SwapOrder, f: SettlementFixture) => SwapOrder }[] = [
        { field: "recipient", alter: (o, f) => ({ ...o, recipient: f.stranger.account.address }) },
        { field: "buyToken", alter: (o, f) => ({ ...o, buyToken: f.token("USDT") }) },
        { field: "minBuyAmount", alter: (o) => ({ ...o, minBuyAmount: o.minBuyAmount - 1n }) },
        { field: "deadline", alter: (o) => ({ ...o, deadline: o.deadline + 1n }) },
        { field: "quoteId", alter: (o) => ({ ...o, quoteId: `0x${"00".repeat(31)}01` }) },
        {
          field: "actions",
          alter: (o, f) => ({
            ...o,
            actions: encodeRouteActions([{ type: "swapV2", pair: f.pool("USDC", "WETH"), tokenOut: f.token("WETH"), feeBps: 29 }]),
          }),
        },
        { field: "sellAmount", alter: (o) => ({ ...o, sellAmount: o.sellAmount + 1n }) },
      ];
      for (const { field, alter } of alterations) {
        it(`reverts when ${field} differs from the signed value`, async () => {
          const f = await loadFixture(permitReady);
          const sellAmount = parseUnits("1000", 6);
          const route = await testRoute(f, ["USDC", "WETH"], sellAmount);
          const order = orderFor(route, sellAmount, f.recipient.account.address, await now(f), QUOTE_ID);
          const signature = await signPermit(f, order, 1n);
          await expectRevert(sendPermitSwap(f, alter(order, f), 1n, signature), "InvalidSigner");
          // The untouched order still fills with the same signature.
          await sendPermitSwap(f, order, 1n, signature);
        });
      }
    });

    it("rejects 64- and 66-byte signatures with its own error, even a valid compact one", async () => {
      const f = await loadFixture(permitReady);
      const sellAmount = parseUnits("1000", 6);
      const route = await testRoute(f, ["USDC", "WETH"], sellAmount);
      const order = orderFor(route, sellAmount, f.recipient.account.address, await now(f), QUOTE_ID);
      const signature = await signPermit(f, order, 2n);
      const { serializeCompactSignature, parseSignature, signatureToCompactSignature } = await import("viem");
      const compact = serializeCompactSignature(signatureToCompactSignature(parseSignature(signature)));
      for (const [candidate, length] of [
        [compact, 64n],
        [`${signature}00` as Hex, 66n],
      ] as const) {
        const data = encodeFunctionData({ abi: takerSwapRouterAbi, functionName: "swapWithPermit", args: [order, NONCE_BASE + 2n, candidate] });
        await expectRevert(f.taker.sendTransaction({ to: f.routerAddress, data }), "SwapInvalidSignatureLength", [length]);
      }
    });

    it("rejects an expired deadline", async () => {
      const f = await loadFixture(permitReady);
      const sellAmount = parseUnits("1000", 6);
      const route = await testRoute(f, ["USDC", "WETH"], sellAmount);
      const order = orderFor(route, sellAmount, f.recipient.account.address, await now(f), QUOTE_ID);
      const signature = await signPermit(f, order, 3n);
      await time.increaseTo(order.deadline + 1n);
      await expectRevert(sendPermitSwap(f, order, 3n, signature), "SwapDeadlineExpired");
    });

    it("rejects an output below the signed minimum", async () => {
      const f = await loadFixture(permitReady);
      const sellAmount = parseUnits("1000", 6);
      const route = await testRoute(f, ["USDC", "WETH"], sellAmount);
      const order = { ...orderFor(route, sellAmount, f.recipient.account.address, await now(f), QUOTE_ID), minBuyAmount: route.buyAmount + 1n };
      await expectRevert(sendPermitSwap(f, order, 4n, await signPermit(f, order, 4n)), "SwapInsufficientOutput", [
        route.buyAmount,
        route.buyAmount + 1n,
      ]);
    });

    it("rejects a replayed permit", async () => {
      const f = await loadFixture(permitReady);
      const sellAmount = parseUnits("1000", 6);
      const route = await testRoute(f, ["USDC", "WETH"], sellAmount);
      const order = { ...orderFor(route, sellAmount, f.recipient.account.address, await now(f), QUOTE_ID), minBuyAmount: 1n };
      const signature = await signPermit(f, order, 5n);
      await sendPermitSwap(f, order, 5n, signature);
      await expectRevert(sendPermitSwap(f, order, 5n, signature), "InvalidNonce");
    });

    it("rejects a signature made by another wallet", async () => {
      const f = await loadFixture(permitReady);
      const sellAmount = parseUnits("1000", 6);
      const route = await testRoute(f, ["USDC", "WETH"], sellAmount);
      const order = orderFor(route, sellAmount, f.recipient.account.address, await now(f), QUOTE_ID);
      const signature = await signPermit(f, order, 6n, f.stranger.account.address);
      await expectRevert(sendPermitSwap(f, order, 6n, signature), "InvalidSigner");
    });
  });

  describe("allowance settlement", () => {
    it("sells through the allowance holder the taker approved, never the router", async () => {
      const f = await loadFixture(settlementFixture);
      await approve(f, f.token("USDC"), f.taker, f.contracts.allowanceHolder);
      const sellAmount = parseUnits("5000", 6);
      const route = await testRoute(f, ["USDC", "DAI"], sellAmount);
      const order = orderFor(route, sellAmount, f.taker.account.address, await now(f), QUOTE_ID);
      const usdcBefore = await balanceOf(f, f.token("USDC"), f.taker.account.address);
      const daiBefore = await balanceOf(f, f.token("DAI"), f.taker.account.address);

      const hash = await f.taker.sendTransaction({ to: f.contracts.allowanceHolder, data: encodeSwapWithAllowance(order, f.routerAddress) });
      const receipt = await f.publicClient.waitForTransactionReceipt({ hash });

      expect(receipt.status).to.equal("success");
      expect(await balanceOf(f, f.token("USDC"), f.taker.account.address)).to.equal(usdcBefore - sellAmount);
      expect(await balanceOf(f, f.token("DAI"), f.taker.account.address)).to.equal(daiBefore + route.buyAmount);
      // The taker's USDC went straight into the first pair: the router never held or pulled any.
      const usdcMoves = parseEventLogs({ abi: erc20Abi, logs: receipt.logs, eventName: "Transfer" }).filter(
        (log) => log.address.toLowerCase() === f.token("USDC").toLowerCase(),
      );
      expect(usdcMoves.map((log) => [log.args.from, log.args.to, log.args.value])).to.deep.equal([
        [f.taker.account.address, f.pool("USDC", "DAI"), sellAmount],
      ]);
      const [settled] = parseEventLogs({ abi: takerSwapRouterAbi, logs: receipt.logs, eventName: "SwapSettled" });
      expect(settled?.args.taker).to.equal(f.taker.account.address);
    });

    it("reverts when the taker has not approved the holder", async () => {
      const f = await loadFixture(settlementFixture);
      const sellAmount = parseUnits("5000", 6);
      const route = await testRoute(f, ["USDC", "DAI"], sellAmount);
      const order = orderFor(route, sellAmount, f.taker.account.address, await now(f), QUOTE_ID);
      await expectRevert(
        f.taker.sendTransaction({ to: f.contracts.allowanceHolder, data: encodeSwapWithAllowance(order, f.routerAddress) }),
        "ERC20InsufficientAllowance",
      );
    });

    it("refuses direct calls: the router only takes swapWithAllowance from the holder", async () => {
      const f = await loadFixture(settlementFixture);
      await approve(f, f.token("USDC"), f.taker, f.contracts.allowanceHolder);
      const sellAmount = parseUnits("5000", 6);
      const route = await testRoute(f, ["USDC", "DAI"], sellAmount);
      const order = orderFor(route, sellAmount, f.stranger.account.address, await now(f), QUOTE_ID);
      // A stranger appends the taker's address by hand, as if the holder had.
      const forged = `${encodeFunctionData({ abi: takerSwapRouterAbi, functionName: "swapWithAllowance", args: [order] })}${f.taker.account.address.slice(2)}` as Hex;
      await expectRevert(f.stranger.sendTransaction({ to: f.routerAddress, data: forged }), "SwapOnlyAllowanceHolder", [
        f.stranger.account.address,
      ]);
    });

    it("moves only the caller's own tokens, exactly the order's amount, to the order's first pair: nothing else can spend the approval", async () => {
      const f = await loadFixture(settlementFixture);
      await approve(f, f.token("USDC"), f.taker, f.contracts.allowanceHolder);
      const sellAmount = parseUnits("100", 6);
      const route = await testRoute(f, ["USDC", "DAI"], sellAmount);
      const order = orderFor(route, sellAmount, f.stranger.account.address, await now(f), QUOTE_ID);
      const data = encodeFunctionData({ abi: takerSwapRouterAbi, functionName: "swapWithAllowance", args: [order] });
      expect(await f.holder.read.orderOf([f.routerAddress, data])).to.deep.equal([f.token("USDC"), sellAmount, f.pool("USDC", "DAI")]);
      // A stranger sending the taker's order spends the stranger's own (absent) approval, never the taker's.
      const takerBefore = await balanceOf(f, f.token("USDC"), f.taker.account.address);
      await expectRevert(f.stranger.sendTransaction({ to: f.contracts.allowanceHolder, data: encodeSwapWithAllowance(order, f.routerAddress) }), "ERC20InsufficientAllowance");
      expect(await balanceOf(f, f.token("USDC"), f.taker.account.address)).to.equal(takerBefore);
      // The holder exposes no other way to move tokens: its ABI is exec, a parser (orderOf), and the
      // transient transferFrom that only an exact-output exec's own operator may use, inside that exec
      // (exactOutput.test.ts: "the allowance holder's transient allowance").
      const functions = (await hre.artifacts.readArtifact("AllowanceHolder")).abi.filter((item) => item.type === "function").map((item) => (item as { name: string }).name);
      expect(functions.sort()).to.deep.equal(["exec", "orderOf", "transferFrom"]);
      await expectRevert(
        f.stranger.writeContract({ address: f.contracts.allowanceHolder, abi: f.holder.abi, functionName: "transferFrom", args: [f.token("USDC"), f.taker.account.address, f.stranger.account.address, 1n] }),
        "AllowanceHolderNoAllowance",
      );
    });

    it("delivers where the router says its route takes its input, whatever the first venue: the first V2 pair, else the router", async () => {
      const f = await loadFixture(settlementFixture);
      const [usdc, weth] = [f.token("USDC"), f.contracts.weth];
      const venue = f.v3Venues.findIndex((candidate) => candidate.name === "uniswap-v3");
      const base = { sellToken: usdc, sellAmount: 10n ** 6n, buyToken: weth, minBuyAmount: 1n, recipient: f.recipient.account.address, deadline: (await now(f)) + 600n, quoteId: QUOTE_ID };
      const dataOf = (actions: Hex) => encodeFunctionData({ abi: takerSwapRouterAbi, functionName: "swapWithAllowance", args: [{ ...base, actions }] });
      const v2First = encodeRouteActions([{ type: "swapV2", pair: f.pool("WETH", "USDC"), tokenOut: weth, feeBps: 30 }]);
      const v3First = encodeRouteActions([{ type: "swapV3", tokenOut: weth, fee: 3000, venue }]);
      const propAmmFirst = encodeRouteActions([{ type: "swapPropAmm", pair: f.propAmms[0]!.address, tokenOut: weth }]);
      for (const [actions, destination] of [[v2First, f.pool("WETH", "USDC")], [v3First, f.routerAddress], [propAmmFirst, f.routerAddress], ["0x" as Hex, f.routerAddress]] as const) {
        expect(await f.takerRouter.read.inputDestination([actions])).to.equal(getAddress(destination));
        expect(await f.holder.read.orderOf([f.routerAddress, dataOf(actions)])).to.deep.equal([usdc, base.sellAmount, getAddress(destination)]);
      }
      // An operator that cannot say (an account without code) gets nothing delivered: the exec reverts.
      const refused = await f.holder.simulate.exec([f.stranger.account.address, dataOf(v3First)], { account: f.taker.account }).then(
        () => false,
        () => true,
      );
      expect(refused).to.equal(true);
    });

    it("calls nothing but swapWithAllowance, so it cannot be turned against token contracts", async () => {
      const f = await loadFixture(settlementFixture);
      await approve(f, f.token("USDC"), f.taker, f.contracts.allowanceHolder);
      const steal = encodeFunctionData({
        abi: erc20Abi,
        functionName: "transferFrom",
        args: [f.taker.account.address, f.stranger.account.address, 1n],
      });
      await expectRevert(f.holder.simulate.exec([f.token("USDC"), steal], { account: f.stranger.account }), "AllowanceHolderUnsupportedCall", [
        "0x23b872dd",
      ]);
      await expectRevert(f.holder.simulate.exec([f.routerAddress, "0x"], { account: f.stranger.account }), "AllowanceHolderUnsupportedCall", [
        "0x00000000",
      ]);
      // The right selector with a struct offset pointing past the data.
      const truncated = `0x${encodeFunctionData({ abi: takerSwapRouterAbi, functionName: "swapWithAllowance", args: [orderFor(await testRoute(f, ["USDC", "DAI"], 1n), 1n, f.taker.account.address, 0n, QUOTE_ID)] }).slice(2, 10)}${"ff".repeat(64)}` as Hex;
      await expectRevert(f.holder.simulate.exec([f.routerAddress, truncated], { account: f.stranger.account }), "AllowanceHolderMalformedCall");
    });

    it("keeps the taker's approval useful across a router migration: the new router and the old one both settle", async () => {
      const f = await loadFixture(settlementFixture);
      await approve(f, f.token("USDC"), f.taker, f.contracts.allowanceHolder);
      const successor = { address: await f.newTakerRouter() };
      await f.registry.write.stage([2n, successor.address]);
      await f.registry.write.activate([2n]);
      for (const router of [successor.address, f.routerAddress]) {
        const sellAmount = parseUnits("10", 6);
        const route = await testRoute(f, ["USDC", "DAI"], sellAmount);
        const order = orderFor(route, sellAmount, f.taker.account.address, await now(f), QUOTE_ID);
        const hash = await f.taker.sendTransaction({ to: f.contracts.allowanceHolder, data: encodeSwapWithAllowance(order, router) });
        expect((await f.publicClient.waitForTransactionReceipt({ hash })).status).to.equal("success");
      }
      expect(await f.registry.read.ownerOf([2n])).to.equal(getAddress(successor.address));
    });
  });

  describe("native ETH", () => {
    it("sells ETH sent as value: wraps it and swaps to USDC", async () => {
      const f = await loadFixture(settlementFixture);
      const sellAmount = parseUnits("1", 18);
      const route = await testRoute(f, ["ETH", "USDC"], sellAmount);
      const order = orderFor(route, sellAmount, f.recipient.account.address, await now(f), QUOTE_ID);
      const usdcBefore = await balanceOf(f, f.token("USDC"), f.recipient.account.address);
      const ethBefore = await balanceOf(f, order.sellToken, f.taker.account.address);

      const hash = await f.taker.sendTransaction({ to: f.routerAddress, data: encodeSwapNative(order), value: sellAmount });
      const receipt = await f.publicClient.waitForTransactionReceipt({ hash });

      const gasCost = receipt.gasUsed * receipt.effectiveGasPrice;
      expect(await balanceOf(f, order.sellToken, f.taker.account.address)).to.equal(ethBefore - sellAmount - gasCost);
      expect(await balanceOf(f, f.token("USDC"), f.recipient.account.address)).to.equal(usdcBefore + route.buyAmount);
      expect(await balanceOf(f, order.sellToken, f.routerAddress)).to.equal(0n);
    });

    it("rejects a native sell whose value differs from the sell amount", async () => {
      const f = await loadFixture(settlementFixture);
      const sellAmount = parseUnits("1", 18);
      const route = await testRoute(f, ["ETH", "USDC"], sellAmount);
      const order = orderFor(route, sellAmount, f.recipient.account.address, await now(f), QUOTE_ID);
      await expectRevert(
        f.taker.sendTransaction({ to: f.routerAddress, data: encodeSwapNative(order), value: sellAmount - 1n }),
        "SwapNativeValueMismatch",
        [sellAmount, sellAmount - 1n],
      );
    });

    it("buys ETH: swaps to WETH, unwraps and pays the recipient ether, with the fee in ether", async () => {
      const f = await loadFixture(permitReady);
      const sellAmount = parseUnits("6000", 6);
      const route = await testRoute(f, ["USDC", "ETH"], sellAmount, { bps: 50, recipient: f.feeRecipient.account.address });
      const order = orderFor(route, sellAmount, f.recipient.account.address, await now(f), QUOTE_ID);
      const ethBefore = await balanceOf(f, order.buyToken, f.recipient.account.address);
      const feeBefore = await balanceOf(f, order.buyToken, f.feeRecipient.account.address);

      await sendPermitSwap(f, order, 8n, await signPermit(f, order, 8n));

      expect(await balanceOf(f, order.buyToken, f.recipient.account.address)).to.equal(ethBefore + route.buyAmount);
      expect(await balanceOf(f, order.buyToken, f.feeRecipient.account.address)).to.equal(feeBefore + route.feeAmount);
      expect(await balanceOf(f, order.buyToken, f.routerAddress)).to.equal(0n);
      expect(await balanceOf(f, f.token("WETH"), f.routerAddress)).to.equal(0n);
    });

    it("refuses ether sent to it by anyone but WETH", async () => {
      const f = await loadFixture(settlementFixture);
      await expectRevert(f.taker.sendTransaction({ to: f.routerAddress, value: 1n }), "SwapNativeValueMismatch");
    });
  });

  describe("route validation", () => {
    it("rejects unknown opcodes, truncated actions and routes ending in another token", async () => {
      const f = await loadFixture(settlementFixture);
      const base = orderFor(await testRoute(f, ["ETH", "USDC"], 10n ** 15n), 10n ** 15n, f.recipient.account.address, await now(f), QUOTE_ID);
      const send = (actions: Hex, buyToken: Address = base.buyToken) =>
        f.taker.sendTransaction({ to: f.routerAddress, data: encodeSwapNative({ ...base, actions, buyToken, minBuyAmount: 0n }), value: base.sellAmount });
      await expectRevert(send("0x02ff"), "SwapUnknownAction", [0xff, 1n]);
      await expectRevert(send("0x0201"), "SwapTruncatedAction", [1n]);
      await expectRevert(send("0x02", f.token("USDC")), "SwapUnexpectedToken", [f.token("USDC"), f.contracts.weth]);
      // A second WRAP finds WETH running, not the native asset.
      await expectRevert(send("0x0202"), "SwapUnexpectedToken", [NATIVE_TOKEN, f.contracts.weth]);
      await expectRevert(send(`0x${"0203".repeat(4)}02`), "SwapTooManyActions", [8n]);
      // A pool never pays out the native asset itself: a swap "into" the placeholder is refused.
      const intoNative = encodeRouteActions([{ type: "wrap" }, { type: "swapV2", pair: f.pool("WETH", "USDC"), tokenOut: NATIVE_TOKEN, feeBps: 30 }]);
      await expectRevert(send(intoNative, NATIVE_TOKEN), "SwapUnexpectedToken", [f.contracts.weth, NATIVE_TOKEN]);
      // A fee is taken in the buy token only, so SwapSettled's fee has one unit.
      const feeTooEarly = encodeRouteActions([
        { type: "wrap" },
        { type: "fee", bps: 10, recipient: f.feeRecipient.account.address },
        { type: "swapV2", pair: f.pool("WETH", "USDC"), tokenOut: f.token("USDC"), feeBps: 30 },
      ]);
      await expectRevert(send(feeTooEarly), "SwapUnexpectedToken", [f.token("USDC"), f.contracts.weth]);
    });

    it("refuses the router itself as recipient, and native sells through the ERC20 entry points", async () => {
      const f = await loadFixture(settlementFixture);
      const route = await testRoute(f, ["ETH", "USDC"], 10n ** 15n);
      const order = orderFor(route, 10n ** 15n, f.routerAddress, await now(f), QUOTE_ID);
      await expectRevert(f.taker.sendTransaction({ to: f.routerAddress, data: encodeSwapNative(order), value: order.sellAmount }), "SwapRecipientIsRouter");
      const { data } = encodeSwapWithPermit({ ...order, recipient: f.taker.account.address }, 1n);
      await expectRevert(f.taker.sendTransaction({ to: f.routerAddress, data }), "SwapNativeSellNeedsValue");
    });
  });
});
