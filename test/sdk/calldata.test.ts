import { expect } from "chai";
import hre from "hardhat";
import fc from "fast-check";
import { decodeFunctionData, encodeFunctionData, getAddress, keccak256, toFunctionSelector, type Address, type Hex } from "viem";
import { allowanceHolderAbi, BatchSizeError, decodeSwapGasless, encodeSwapGaslessBatch, GaslessCalldataError, MAX_GASLESS_BATCH_ORDERS, BatchGasLimitsError, buildSwapPermitTypedData, decodeQuoteOrder, decodeRouteActions, encodeRouteActions, encodeSwapGasless, encodeSwapNative, encodeSwapWithAllowance, encodeSwapWithPermit, gaslessBatchSwapRouterAbi, gaslessExactOutputRouterAbi, takerExactOutputRouterAbi, gaslessSwapRouterAbi, hashRouteActions, patchSignature, RouteActionError, SIGNATURE_PLACEHOLDER, SignatureLengthError, SignatureOffsetError, SwapCalldataError, splitAmounts, takerSwapRouterAbi, withDomainType, type RouteAction, type RouteHopAction, type SwapOrder } from "../../sdk";
import { BATCH_ORDER_GAS, batchCalldataGasBound } from "../../sdk/relay/batchGasLimit";
import { calldataGas } from "../../sdk/relay/calldataGas";
import { address, swapOrderWith, uint256 } from "../fixtures/abiArbitraries";

const hop = fc.record({ pair: address, tokenOut: address, feeBps: fc.integer({ min: 0, max: 9999 }) });
const v3Hop = fc.record({ tokenOut: address, fee: fc.integer({ min: 0, max: 999_999 }), venue: fc.integer({ min: 0, max: 3 }) });
const propAmmHop = fc.record({ pair: address, tokenOut: address });
/** A SWAP_V4 hop over the whole range its operands carry: any uint24 fee (the dynamic flag included), any int24 tick spacing. */
const v4Hop = fc.record({ tokenOut: address, fee: fc.integer({ min: 0, max: 2 ** 24 - 1 }), tickSpacing: fc.integer({ min: -(2 ** 23), max: 2 ** 23 - 1 }), hooks: address });
/** A swap on any venue, as a route action or a split leg's hop. */
const anyHop: fc.Arbitrary<RouteHopAction> = fc.oneof(
  hop.map((h) => ({ type: "swapV2" as const, ...h })),
  v3Hop.map((h) => ({ type: "swapV3" as const, ...h })),
  propAmmHop.map((h) => ({ type: "swapPropAmm" as const, ...h })),
  v4Hop.map((h) => ({ type: "swapV4" as const, ...h })),
);
/** 2-3 legs of 1-3 hops ending in one token, with non-zero shares adding up to 10,000. */
const split = fc
  .tuple(address, fc.array(fc.array(anyHop, { minLength: 1, maxLength: 3 }), { minLength: 2, maxLength: 3 }), fc.integer({ min: 1, max: 4_999 }), fc.integer({ min: 1, max: 4_999 }))
  .map(([end, legs, a, b]) => {
    const shares = legs.length === 2 ? [a, 10_000 - a] : [a, b, 10_000 - a - b];
    return {
      type: "split" as const,
      legs: legs.map((hops, index) => ({ shareBps: shares[index]!, hops: hops.map((h, at) => (at === hops.length - 1 ? { ...h, tokenOut: end } : h)) })),
    };
  });
const action: fc.Arbitrary<RouteAction> = fc.oneof(
  anyHop,
  split,
  fc.constant({ type: "wrap" as const }),
  fc.constant({ type: "unwrap" as const }),
  fc.record({ type: fc.constant("fee" as const), bps: fc.integer({ min: 0, max: 10_000 }), recipient: address }),
);
const actions = fc.array(action, { maxLength: 8 });
const order: fc.Arbitrary<SwapOrder> = swapOrderWith(actions.map(encodeRouteActions));
const signature = fc.uint8Array({ minLength: 65, maxLength: 65 }).map((bytes) => `0x${Buffer.from(bytes).toString("hex")}` as Hex);

describe("sdk calldata", () => {
  describe("route actions", () => {
    it("decode(encode(actions)) gives the actions back, and the hash is keccak256 of the packed bytes", () => {
      fc.assert(
        fc.property(actions, (list) => {
          const encoded = encodeRouteActions(list);
          expect(decodeRouteActions(encoded)).to.deep.equal(list);
          expect(hashRouteActions(encoded)).to.equal(keccak256(encoded));
        }),
      );
    });

    it("packs each action in its documented width", () => {
      const pair = "0x1111111111111111111111111111111111111111";
      const token = "0x2222222222222222222222222222222222222222";
      expect(encodeRouteActions([{ type: "swapV2", pair, tokenOut: token, feeBps: 30 }])).to.equal(`0x01${pair.slice(2)}${token.slice(2)}001e`);
      expect(encodeRouteActions([{ type: "wrap" }, { type: "unwrap" }])).to.equal("0x0203");
      expect(encodeRouteActions([{ type: "fee", bps: 25, recipient: token }])).to.equal(`0x040019${token.slice(2)}`);
    });

    it("rejects unknown opcodes, truncated actions, out-of-range bps and too many actions", () => {
      expect(() => decodeRouteActions("0x09")).to.throw(RouteActionError, /unknown action opcode 0x09 at byte 0/);
      expect(() => decodeRouteActions(`0x08${"00".repeat(45)}`)).to.throw(RouteActionError, /truncated/);
      expect(() => decodeRouteActions("0x06")).to.throw(RouteActionError, /truncated/);
      expect(() => decodeRouteActions("0x0201")).to.throw(RouteActionError, /truncated/);
      expect(() => encodeRouteActions([{ type: "fee", bps: 10_001, recipient: getAddress(`0x${"1".repeat(40)}`) }])).to.throw(RouteActionError);
      expect(() => encodeRouteActions(Array.from({ length: 9 }, () => ({ type: "wrap" as const })))).to.throw(RouteActionError, /at most 8/);
    });
  });

  describe("split actions", () => {
    const pair = getAddress(`0x${"1".repeat(40)}`);
    const [usdc, weth] = [getAddress(`0x${"2".repeat(40)}`), getAddress(`0x${"3".repeat(40)}`)];
    const leg = (shareBps: number, ...tokens: Address[]) => ({ shareBps, hops: tokens.map((tokenOut) => ({ type: "swapV2" as const, pair, tokenOut, feeBps: 30 })) });

    it("packs a split as opcode, leg count, then per leg its share, hop count and hops", () => {
      const encoded = encodeRouteActions([{ type: "split", legs: [leg(6000, weth), leg(4000, usdc, weth)] }]);
      const hopBytes = (token: Address) => `01${pair.slice(2)}${token.slice(2)}001e`.toLowerCase();
      expect(encoded).to.equal(`0x0502177001${hopBytes(weth)}0fa002${hopBytes(usdc)}${hopBytes(weth)}`);
    });

    it("packs SWAP_V3 as tokenOut, uint24 fee tier and venue byte, SWAP_PROPAMM as pair and tokenOut, and mixes them in split legs with their opcodes", () => {
      const v3 = encodeRouteActions([{ type: "swapV3", tokenOut: weth, fee: 3000, venue: 1 }]);
      expect(v3).to.equal(`0x06${weth.slice(2)}000bb801`.toLowerCase());
      const propAmm = encodeRouteActions([{ type: "swapPropAmm", pair, tokenOut: usdc }]);
      expect(propAmm).to.equal(`0x07${pair.slice(2)}${usdc.slice(2)}`.toLowerCase());
      const mixed: RouteAction[] = [
        {
          type: "split",
          legs: [
            { shareBps: 5000, hops: [{ type: "swapV3", tokenOut: usdc, fee: 500, venue: 0 }, { type: "swapPropAmm", pair, tokenOut: weth }] },
            { shareBps: 5000, hops: [{ type: "swapV2", pair, tokenOut: weth, feeBps: 30 }] },
          ],
        },
      ];
      const encoded = encodeRouteActions(mixed);
      expect(encoded).to.equal(`0x0502138802${v3.slice(2).replace(weth.slice(2).toLowerCase(), usdc.slice(2).toLowerCase()).replace("000bb801", "0001f400")}${propAmm.slice(2).replace(usdc.slice(2).toLowerCase(), weth.slice(2).toLowerCase())}138801${`01${pair.slice(2)}${weth.slice(2)}001e`.toLowerCase()}`);
      expect(decodeRouteActions(encoded)).to.deep.equal(mixed);
      // Out-of-range V3 operands and a hop opcode that is not a swap are refused.
      expect(() => encodeRouteActions([{ type: "swapV3", tokenOut: weth, fee: 1_000_000, venue: 0 }])).to.throw(RouteActionError, /V3 pool fee/);
      expect(() => encodeRouteActions([{ type: "swapV3", tokenOut: weth, fee: 3000, venue: 4 }])).to.throw(RouteActionError, /venue index/);
      expect(() => decodeRouteActions(`0x050213880102${"00".repeat(4)}`)).to.throw(RouteActionError, /unknown hop opcode 0x02/);
      expect(() => decodeRouteActions(`0x0502138801`)).to.throw(RouteActionError, /truncated/);
    });

    it("packs SWAP_V4 in 47 bytes as opcode, tokenOut, uint24 fee, int24 tick spacing (two's complement) and hooks, alone and in split legs", () => {
      const hooks = getAddress(`0x${"4".repeat(36)}0044`);
      const v4 = encodeRouteActions([{ type: "swapV4", tokenOut: weth, fee: 3000, tickSpacing: 60, hooks }]);
      expect(v4).to.equal(`0x08${weth.slice(2)}000bb800003c${hooks.slice(2)}`.toLowerCase());
      expect((v4.length - 2) / 2).to.equal(47);
      // A native ETH output (address(0)), the dynamic-fee flag and a negative spacing (not a pool the PoolManager makes, but what int24 carries).
      const native = encodeRouteActions([{ type: "swapV4", tokenOut: "0x0000000000000000000000000000000000000000", fee: 0x800000, tickSpacing: -1, hooks: "0x0000000000000000000000000000000000000000" }]);
      expect(native).to.equal(`0x08${"00".repeat(20)}800000ffffff${"00".repeat(20)}`);
      expect(decodeRouteActions(native)).to.deep.equal([{ type: "swapV4", tokenOut: "0x0000000000000000000000000000000000000000", fee: 0x800000, tickSpacing: -1, hooks: "0x0000000000000000000000000000000000000000" }]);
      const mixed: RouteAction[] = [
        {
          type: "split",
          legs: [
            { shareBps: 7000, hops: [{ type: "swapV4", tokenOut: usdc, fee: 80, tickSpacing: 1, hooks }, { type: "swapV3", tokenOut: weth, fee: 500, venue: 0 }] },
            { shareBps: 3000, hops: [{ type: "swapV4", tokenOut: weth, fee: 2000, tickSpacing: 40, hooks }] },
          ],
        },
      ];
      expect(decodeRouteActions(encodeRouteActions(mixed))).to.deep.equal(mixed);
      expect(() => encodeRouteActions([{ type: "swapV4", tokenOut: weth, fee: 2 ** 24, tickSpacing: 1, hooks }])).to.throw(RouteActionError, /V4 pool fee/);
      expect(() => encodeRouteActions([{ type: "swapV4", tokenOut: weth, fee: 3000, tickSpacing: 2 ** 23, hooks }])).to.throw(RouteActionError, /V4 tick spacing/);
      expect(() => decodeRouteActions(`0x050213880108${"00".repeat(40)}`)).to.throw(RouteActionError, /truncated/);
    });

    it("gives each leg its share rounded down and the last leg the rest (splitAmounts)", () => {
      fc.assert(
        fc.property(fc.bigInt({ min: 0n, max: 2n ** 128n }), split, (amount, { legs }) => {
          const amounts = splitAmounts(amount, legs.map((l) => l.shareBps));
          expect(amounts.reduce((sum, value) => sum + value, 0n)).to.equal(amount);
          amounts.slice(0, -1).forEach((value, index) => expect(value).to.equal((amount * BigInt(legs[index]!.shareBps)) / 10_000n));
        }),
      );
    });

    it("refuses what the router refuses: leg counts, hop counts, shares, mixed end tokens, truncation", () => {
      const refused = (legs: ReturnType<typeof leg>[], pattern: RegExp) =>
        expect(() => encodeRouteActions([{ type: "split", legs }])).to.throw(RouteActionError, pattern);
      refused([leg(10_000, weth)], /2 or 3 legs, got 1/);
      refused([leg(2500, weth), leg(2500, weth), leg(2500, weth), leg(2500, weth)], /2 or 3 legs, got 4/);
      refused([leg(5000, weth), leg(5000)], /1 to 3/);
      refused([leg(5000, weth), leg(5000, usdc, usdc, usdc, weth)], /1 to 3/);
      refused([leg(5000, weth), leg(4999, weth)], /add up to 9999/);
      refused([leg(10_000, weth), leg(0, weth)], /share bps 0/);
      refused([leg(5000, weth), leg(5000, usdc)], /ends in/);
      const encoded = encodeRouteActions([{ type: "split", legs: [leg(5000, weth), leg(5000, usdc, weth)] }]);
      expect(() => decodeRouteActions(encoded.slice(0, -2) as Hex)).to.throw(RouteActionError, /truncated/);
      expect(() => decodeRouteActions("0x05")).to.throw(RouteActionError, /truncated/);
      expect(() => decodeRouteActions("0x050113880101")).to.throw(RouteActionError, /truncated/);
    });
  });

  describe("signature placeholder and patching", () => {
    it("the signature offset points at the 65-byte placeholder, and patching equals encoding the real signature", () => {
      fc.assert(
        fc.property(order, uint256, signature, (o, nonce, sig) => {
          const { data, signatureOffset } = encodeSwapWithPermit(o, nonce);
          expect(`0x${data.slice(2 + signatureOffset * 2, 2 + (signatureOffset + 65) * 2)}`).to.equal(SIGNATURE_PLACEHOLDER);
          expect(data.slice(2 + (signatureOffset - 32) * 2, 2 + signatureOffset * 2)).to.equal(65n.toString(16).padStart(64, "0"));
          const expected = encodeFunctionData({ abi: takerSwapRouterAbi, functionName: "swapWithPermit", args: [o, nonce, sig] });
          expect(patchSignature(data, signatureOffset, sig)).to.equal(expected);
        }),
        { numRuns: 50 },
      );
    });

    it("gasless calldata has its own offset, patched the same way", () => {
      fc.assert(
        fc.property(order, address, uint256, address, uint256, signature, (o, taker, fee, feeRecipient, nonce, sig) => {
          const { data, signatureOffset } = encodeSwapGasless(o, taker, { relayerFee: fee, relayerFeeRecipient: feeRecipient }, nonce);
          const expected = encodeFunctionData({ abi: gaslessSwapRouterAbi, functionName: "swapGasless", args: [o, taker, fee, feeRecipient, nonce, sig] });
          expect(patchSignature(data, signatureOffset, sig)).to.equal(expected);
        }),
        { numRuns: 30 },
      );
    });

    it("a gasless batch lists each order exactly as its signed swapGasless calldata carries it (decodeSwapGasless, then encodeSwapGaslessBatch)", () => {
      const signedGasless = fc.tuple(order, address, uint256, address, uint256, signature).map(([o, taker, fee, feeRecipient, nonce, sig]) => {
        const { data, signatureOffset } = encodeSwapGasless(o, taker, { relayerFee: fee, relayerFeeRecipient: feeRecipient }, nonce);
        return { data: patchSignature(data, signatureOffset, sig), order: { params: o, taker, relayerFee: fee, relayerFeeRecipient: feeRecipient, nonce, signature: sig } };
      });
      fc.assert(
        fc.property(fc.array(fc.tuple(signedGasless, fc.bigInt({ min: 0n, max: BATCH_ORDER_GAS })), { minLength: 1, maxLength: 5 }), (members) => {
          const signed = members.map(([member]) => member);
          const caps = members.map(([, cap]) => cap);
          const orders = signed.map(({ data }) => decodeSwapGasless(data));
          expect(orders).to.deep.equal(signed.map(({ order: o }) => ({ ...o, params: { ...o.params, sellToken: getAddress(o.params.sellToken), buyToken: getAddress(o.params.buyToken), recipient: getAddress(o.params.recipient) } })));
          const batch = encodeSwapGaslessBatch(orders, caps);
          expect(batch).to.equal(encodeFunctionData({ abi: gaslessBatchSwapRouterAbi, functionName: "swapGaslessBatch", args: [orders, caps] }));
          expect(decodeFunctionData({ abi: gaslessBatchSwapRouterAbi, data: batch }).args).to.deep.equal([orders, caps]);
          // The relayer's bound on a batch's calldata gas holds for every batch.
          const memberGas = signed.reduce((sum, { data }) => sum + calldataGas(data), 0n);
          expect(calldataGas(batch) <= batchCalldataGasBound(memberGas, signed.length)).to.equal(true);
        }),
        { numRuns: 30 },
      );
    });

    it("refuses a gasless batch of no orders or more than the router's cap, gas caps that are not one per order or above BATCH_ORDER_GAS, and calldata that is not swapGasless", () => {
      const { data, signatureOffset } = encodeSwapGasless(fc.sample(order, 1)[0]!, getAddress(`0x${"11".repeat(20)}`), { relayerFee: 1n, relayerFeeRecipient: getAddress(`0x${"22".repeat(20)}`) }, 1n);
      const one = decodeSwapGasless(patchSignature(data, signatureOffset, `0x${"ab".repeat(64)}1b`));
      const caps = (count: number) => Array.from({ length: count }, () => BATCH_ORDER_GAS);
      expect(() => encodeSwapGaslessBatch([], [])).to.throw(BatchSizeError, "must hold 1 to 64").with.property("count", 0);
      expect(() => encodeSwapGaslessBatch(Array.from({ length: MAX_GASLESS_BATCH_ORDERS + 1 }, () => one), caps(MAX_GASLESS_BATCH_ORDERS + 1))).to.throw(BatchSizeError, "holds 65 orders");
      expect(() => encodeSwapGaslessBatch([one, one], caps(1))).to.throw(BatchGasLimitsError, "a gasless batch of 2 orders has 1 gas caps");
      expect(() => encodeSwapGaslessBatch([one, one], [1n, BATCH_ORDER_GAS + 1n])).to.throw(BatchGasLimitsError, "gas cap 1000001 of order 1 is outside 0 to 1000000");
      expect(
        encodeSwapGaslessBatch(Array.from({ length: MAX_GASLESS_BATCH_ORDERS }, () => one), caps(MAX_GASLESS_BATCH_ORDERS)).startsWith(
          toFunctionSelector("swapGaslessBatch(((address,uint256,address,uint256,address,uint256,bytes32,bytes),address,uint256,address,uint256,bytes)[],uint256[])"),
        ),
      ).to.equal(true);
      expect(() => decodeSwapGasless(encodeSwapWithPermit(fc.sample(order, 1)[0]!, 1n).data)).to.throw(GaslessCalldataError);
      expect(() => decodeSwapGasless(encodeFunctionData({ abi: gaslessSwapRouterAbi, functionName: "sync" }))).to.throw(GaslessCalldataError, "it calls sync");
    });

    it("accepts 130 hex characters with or without 0x, in any case", () => {
      const { data, signatureOffset } = encodeSwapWithPermit(fc.sample(order, 1)[0]!, 1n);
      const sig = `${"ab".repeat(64)}1c`;
      expect(patchSignature(data, signatureOffset, sig)).to.equal(patchSignature(data, signatureOffset, `0x${sig.toUpperCase()}`));
    });

    it("rejects signatures that are not exactly 65 bytes, saying the expected and actual length", () => {
      const { data, signatureOffset } = encodeSwapWithPermit(fc.sample(order, 1)[0]!, 1n);
      for (const [candidate, actual] of [
        [`0x${"11".repeat(64)}`, 64],
        [`0x${"11".repeat(66)}`, 66],
        ["0x", 0],
      ] as const) {
        expect(() => patchSignature(data, signatureOffset, candidate))
          .to.throw(SignatureLengthError, `signature is ${actual} bytes`)
          .with.property("actualBytes", actual);
      }
      expect(() => patchSignature(data, signatureOffset, `0x${"zz".repeat(65)}`)).to.throw(SignatureLengthError, /not a hex string/);
      expect(() => patchSignature(data, signatureOffset, `0x${"1".repeat(129)}`)).to.throw(SignatureLengthError);
    });

    it("rejects an offset that leaves no room for 65 bytes or does not follow a 65-byte length word", () => {
      const { data, signatureOffset } = encodeSwapWithPermit(fc.sample(order, 1)[0]!, 1n);
      const bytes = (data.length - 2) / 2;
      for (const offset of [bytes - 64, -1, 2, 1.5, signatureOffset - 32, signatureOffset + 1, 36]) {
        expect(() => patchSignature(data, offset, `0x${"11".repeat(65)}`)).to.throw(SignatureOffsetError);
      }
    });
  });

  it("allowance calldata is the holder's exec(router, swapWithAllowance(order))", () => {
    fc.assert(
      fc.property(order, address, (o, router) => {
        const outer = decodeFunctionData({ abi: allowanceHolderAbi, data: encodeSwapWithAllowance(o, router) });
        expect(outer.functionName).to.equal("exec");
        const [operator, inner] = outer.args as unknown as readonly [Address, Hex];
        expect(operator).to.equal(router);
        const decoded = decodeFunctionData({ abi: takerSwapRouterAbi, data: inner });
        expect(decoded.functionName).to.equal("swapWithAllowance");
        expect(decoded.args).to.deep.equal([o]);
      }),
      { numRuns: 25 },
    );
  });

  describe("decodeQuoteOrder", () => {
    const lower = (o: SwapOrder): SwapOrder => ({ ...o, quoteId: o.quoteId.toLowerCase() as Hex, actions: o.actions.toLowerCase() as Hex });

    it("reads back the order and call fields of every router call a quote makes, with the signature slot", () => {
      fc.assert(
        fc.property(order, address, uint256, address, uint256, (o, who, fee, feeRecipient, nonce) => {
          const permit = encodeSwapWithPermit(o, nonce);
          expect(decodeQuoteOrder(permit.data)).to.deep.equal({ kind: "permit", order: lower(o), nonce, signature: SIGNATURE_PLACEHOLDER, signatureOffset: permit.signatureOffset });
          const gasless = encodeSwapGasless(o, who, { relayerFee: fee, relayerFeeRecipient: feeRecipient }, nonce);
          expect(decodeQuoteOrder(gasless.data)).to.deep.equal({
            kind: "gasless",
            order: lower(o),
            taker: who,
            relayerFee: fee,
            relayerFeeRecipient: feeRecipient,
            nonce,
            signature: SIGNATURE_PLACEHOLDER,
            signatureOffset: gasless.signatureOffset,
          });
          expect(decodeQuoteOrder(encodeSwapNative(o))).to.deep.equal({ kind: "native", order: lower(o) });
          expect(decodeQuoteOrder(encodeSwapWithAllowance(o, who))).to.deep.equal({ kind: "allowance", order: lower(o), operator: who });
        }),
        { numRuns: 40 },
      );
    });

    it("refuses other functions, an exec of anything but swapWithAllowance, and non-canonical encodings", () => {
      const o = fc.sample(order, 1)[0]!;
      const holder = getAddress(`0x${"44".repeat(20)}`);
      expect(() => decodeQuoteOrder(encodeFunctionData({ abi: allowanceHolderAbi, functionName: "orderOf", args: [holder, "0x"] }))).to.throw(SwapCalldataError, /its selector is/);
      const execNative = encodeFunctionData({ abi: allowanceHolderAbi, functionName: "exec", args: [holder, encodeSwapNative(o)] });
      expect(() => decodeQuoteOrder(execNative)).to.throw(SwapCalldataError, /the router call inside tx.data's exec does not decode/);
      expect(() => decodeQuoteOrder(`${encodeSwapNative(o)}00`)).to.throw(SwapCalldataError, /not in canonical ABI encoding/);
      // The order's tail moved one word further, the gap left as zeros: Solidity reads the same order, other bytes could hide in the gap.
      const canonical = encodeSwapNative(o);
      const moved = `${canonical.slice(0, 10)}${(0x40).toString(16).padStart(64, "0")}${"00".repeat(32)}${canonical.slice(10 + 64)}` as Hex;
      expect(decodeFunctionData({ abi: takerSwapRouterAbi, data: moved }).args).to.deep.equal([o]);
      expect(() => decodeQuoteOrder(moved)).to.throw(SwapCalldataError, /swapNative\) is not in canonical ABI encoding/);
    });
  });

  it("Permit2 typed data: domain without version, witness bound to the order, EIP712Domain addable", () => {
    const o = fc.sample(order, 1)[0]!;
    const typed = buildSwapPermitTypedData({ chainId: 4663, permit2: getAddress(`0x${"22".repeat(20)}`), router: getAddress(`0x${"33".repeat(20)}`), order: o, nonce: 9n });
    expect(typed.domain).to.deep.equal({ name: "Permit2", chainId: 4663, verifyingContract: getAddress(`0x${"22".repeat(20)}`) });
    expect(typed.message.witness).to.deep.equal({
      recipient: o.recipient,
      buyToken: o.buyToken,
      minBuyAmount: o.minBuyAmount,
      deadline: o.deadline,
      quoteId: o.quoteId,
      actionsHash: keccak256(o.actions),
    });
    expect(typed.message.permitted).to.deep.equal({ token: o.sellToken, amount: o.sellAmount });
    expect(Object.keys(withDomainType(typed.types))).to.deep.equal(["EIP712Domain", "PermitWitnessTransferFrom", "SwapWitness", "TokenPermissions"]);
  });

  it("the SDK's router and holder ABIs equal the compiled interfaces", async () => {
    const key = (item: { type: string; name?: string }) => `${item.type}:${item.name ?? ""}`;
    const sorted = (abi: readonly { type: string; name?: string }[]) => [...abi].sort((a, b) => key(a).localeCompare(key(b)));
    for (const [name, abi] of [
      ["ITakerSwapRouter", takerSwapRouterAbi],
      ["IGaslessSwapRouter", gaslessSwapRouterAbi],
      ["IGaslessBatchSwapRouter", gaslessBatchSwapRouterAbi],
      ["IAllowanceHolder", allowanceHolderAbi],
      ["ITakerExactOutputRouter", takerExactOutputRouterAbi],
      ["IGaslessExactOutputRouter", gaslessExactOutputRouterAbi],
    ] as const) {
      const artifact = await hre.artifacts.readArtifact(name);
      expect(JSON.parse(JSON.stringify(sorted(abi))), name).to.deep.equal(sorted(artifact.abi));
    }
  });
});
