import { expect } from "chai";
import fc from "fast-check";
import hre from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { concatHex, decodeAbiParameters, decodeErrorResult, encodeAbiParameters, encodeFunctionData, erc20Abi, getAddress, maxUint256, numberToHex, padHex, parseAbi, parseEventLogs, parseUnits, sliceHex, toFunctionSelector, zeroAddress, type Abi, type Address, type Hex } from "viem";
import { decodeRouteActions, encodeRouteActions, encodeSwapGasless, encodeSwapGaslessBatch, encodeSwapNative, gaslessBatchSwapRouterAbi, NATIVE_TOKEN, patchSignature, takerSwapRouterAbi, type RouteAction, type RouteHopAction, type SignedGaslessOrder, type SwapOrder } from "../../sdk";
import { BATCH_ORDER_GAS } from "../../sdk/relay/batchGasLimit";
import { harnessFixture, type HarnessFixture } from "../fixtures/harnessFixture";
import { signedGaslessOrder } from "../fixtures/signedGasless";
import { balanceOf, orderFor, testRoute } from "../fixtures/testRoute";
import { fuzzRuns } from "../helpers/fuzzRuns";
import { revertDataOf, revertOf } from "../helpers/expectRevert";
import { uniswapV4Artifacts } from "../../scripts/deploy/uniswapV4";

/**
 * Fuzzing with fast-check (random seed printed; replay with FUZZ_SEED): the route-actions decoder on
 * arbitrary bytes, the allowance holder's order parsing on non-standard ABI encodings (differentially
 * against the router's own ABI decoder), gasless batches (differentially against one swapGasless per
 * order), and amounts at the edges.
 */

const SWAP_WITH_ALLOWANCE = toFunctionSelector("swapWithAllowance((address,uint256,address,uint256,address,uint256,bytes32,bytes))");
const hex = (bytes: Uint8Array) => `0x${Buffer.from(bytes).toString("hex")}` as Hex;
const word = (value: bigint) => padHex(numberToHex(value), { size: 32 });

const orderArbitrary = (f: HarnessFixture) =>
  fc.record({
    sellToken: fc.constantFrom(f.token("USDC"), f.token("DAI"), f.contracts.weth),
    sellAmount: fc.bigInt({ min: 0n, max: maxUint256 }),
    buyToken: fc.constantFrom(f.token("WETH"), f.token("USDC")),
    minBuyAmount: fc.bigInt({ min: 0n, max: maxUint256 }),
    recipient: fc.constant(f.recipient.account.address),
    deadline: fc.bigInt({ min: 0n, max: maxUint256 }),
    quoteId: fc.uint8Array({ minLength: 32, maxLength: 32 }).map(hex),
    actions: fc.oneof(
      fc.uint8Array({ maxLength: 90 }).map(hex),
      fc.uint8Array({ minLength: 42, maxLength: 90 }).map((bytes) => concatHex(["0x01", hex(bytes)])),
    ),
  });

/**
 * `swapWithAllowance(order)` laid out in any of the ways an ABI decoder accepts: `gap` spare words
 * between the argument's offset and the struct, `actionsGap` spare words between the struct head and
 * `actions`, filler in the gaps, and `tail` extra bytes at the end.
 */
function layout(order: SwapOrder, gap: number, actionsGap: number, filler: Hex, tail: Hex): Hex {
  const actionsBytes = (order.actions.length - 2) / 2;
  const padded = padHex(order.actions, { size: Math.ceil(actionsBytes / 32) * 32 || 0, dir: "right" });
  const fill = (words: number) => (words === 0 ? "0x" : concatHex(Array.from({ length: words }, () => padHex(filler, { size: 32 }))));
  const head = encodeAbiParameters(
    [{ type: "address" }, { type: "uint256" }, { type: "address" }, { type: "uint256" }, { type: "address" }, { type: "uint256" }, { type: "bytes32" }, { type: "uint256" }],
    [order.sellToken, order.sellAmount, order.buyToken, order.minBuyAmount, order.recipient, order.deadline, order.quoteId, BigInt(0x100 + actionsGap * 32)],
  );
  return concatHex([
    SWAP_WITH_ALLOWANCE,
    word(BigInt(32 + gap * 32)),
    fill(gap),
    head,
    fill(actionsGap),
    word(BigInt(actionsBytes)),
    actionsBytes === 0 ? "0x" : padded,
    tail,
  ]);
}

/** What the harness (the router's ABI decoder and input rule) reads from `data`, as the holder calls it. */
async function routerView(f: HarnessFixture, data: Hex): Promise<readonly [Address, bigint, Address] | undefined> {
  try {
    const { data: returned } = await f.publicClient.call({ to: f.harness.address, data: concatHex([data, f.taker.account.address]) });
    return decodeAbiParameters([{ type: "address" }, { type: "uint256" }, { type: "address" }], returned!) as readonly [Address, bigint, Address];
  } catch {
    return undefined;
  }
}

async function holderView(f: HarnessFixture, data: Hex): Promise<readonly [Address, bigint, Address] | undefined> {
  try {
    return await f.holder.read.orderOf([f.harness.address, data]);
  } catch {
    return undefined;
  }
}

/** Every custom error the routers declare (the V3 and propAMM hops' included): anything else (a panic, an empty revert) is a finding. */
async function routerErrors(): Promise<Set<string>> {
  const errorsOf = async (name: string) => ((await hre.artifacts.readArtifact(name)).abi as { type: string; name?: string }[]).filter((item) => item.type === "error").map((item) => item.name!);
  return new Set([...takerSwapRouterAbi.filter((item) => item.type === "error").map((item) => item.name as string), ...(await errorsOf("TakerSwapRouterV3"))]);
}

/**
 * A venue's own refusal, which comes before the router's next check can speak: a Uniswap V2 pair's or
 * V3 pool's require string (a V3 swap of nothing, "AS"; a price limit or lock it refuses), or a propAMM's
 * custom error (the devnet's DevPropAmm: a zero output, an inventory it does not hold).
 */
const V2_PAIR_REFUSALS = ["UniswapV2: INSUFFICIENT_OUTPUT_AMOUNT", "UniswapV2: INVALID_TO", "UniswapV2: INSUFFICIENT_INPUT_AMOUNT"];
const V3_POOL_REFUSALS = ["AS", "SPL", "LOK", "IIA"];
/**
 * Uniswap V4's own refusals, which the routers pass up unchanged: the PoolManager's errors (a key
 * nobody initialised, an amount of zero) and those of the libraries it reverts through (the swap's
 * price limit, a hook's revert wrapped with its address).
 */
const V4_ERRORS: Abi = [
  ...uniswapV4Artifacts.poolManager().abi.filter((item) => item.type === "error"),
  ...parseAbi([
    "error PriceLimitAlreadyExceeded(uint160 sqrtPriceCurrentX96, uint160 sqrtPriceLimitX96)",
    "error PriceLimitOutOfBounds(uint160 sqrtPriceLimitX96)",
    "error WrappedError(address target, bytes4 selector, bytes reason, bytes details)",
    "error SafeCastOverflow()",
  ]),
];

/**
 * The V4 errors that are the venue's refusal of what a random route asked: a key nobody initialised,
 * a zero amount, two equal currencies, a price limit, a hook's revert. Any other V4 error (an unsettled
 * currency above all) would be our accounting's fault and fails the run.
 */
const V4_VENUE_REFUSALS = new Set(["PoolNotInitialized", "SwapAmountCannotBeZero", "CurrenciesOutOfOrderOrEqual", "PriceLimitAlreadyExceeded", "PriceLimitOutOfBounds", "WrappedError"]);

/** The V4 error a revert carries, if it is one of V4_ERRORS; the test fails on one that is not a venue refusal. */
function v4Refusal(error: unknown): string | undefined {
  const data = revertDataOf(error);
  if (data === undefined) return undefined;
  let name: string;
  try {
    name = decodeErrorResult({ abi: V4_ERRORS, data }).errorName;
  } catch {
    return undefined;
  }
  // viem decodes Error(string) and Panic(uint256) whatever the ABI: a V2 pair's or V3 pool's require
  // string, or a panic, is judged by the caller's checks, not here.
  if (name === "Error" || name === "Panic") return undefined;
  expect(V4_VENUE_REFUSALS.has(name), `the PoolManager refused with ${name}, which no random route should cause`).to.equal(true);
  return name;
}

describe("settlement fuzzing", function () {
  this.timeout(600_000);

  describe("the allowance holder's order parsing, differentially against the router's ABI decoder", () => {
    it("on non-standard but valid encodings (gaps, filler, trailing bytes) both read the same token, amount and input", async () => {
      const f = await loadFixture(harnessFixture);
      await fc.assert(
        fc.asyncProperty(
          orderArbitrary(f),
          fc.nat({ max: 3 }),
          fc.nat({ max: 3 }),
          fc.uint8Array({ minLength: 32, maxLength: 32 }).map(hex),
          fc.uint8Array({ maxLength: 40 }).map(hex),
          async (order, gap, actionsGap, filler, tail) => {
            const data = layout(order, gap, actionsGap, filler, tail);
            const holder = await holderView(f, data);
            expect(holder, "the holder must accept every valid encoding").to.not.equal(undefined);
            expect(await routerView(f, data)).to.deep.equal(holder);
            const firstPair = order.actions.length >= 2 + 86 && order.actions.startsWith("0x01") ? getAddress(sliceHex(order.actions, 1, 21)) : f.harness.address;
            expect(holder).to.deep.equal([getAddress(order.sellToken), order.sellAmount, getAddress(firstPair)]);
          },
        ),
        fuzzRuns(40),
      );
    });

    it("on corrupted encodings, whatever the holder accepts the router decodes identically (never a different token, amount or input)", async () => {
      const f = await loadFixture(harnessFixture);
      await fc.assert(
        fc.asyncProperty(
          orderArbitrary(f),
          fc.array(fc.record({ at: fc.nat(), bytes: fc.uint8Array({ minLength: 1, maxLength: 32 }) }), { minLength: 1, maxLength: 4 }),
          fc.nat({ max: 64 }),
          async (order, patches, cut) => {
            let data = encodeFunctionData({ abi: takerSwapRouterAbi, functionName: "swapWithAllowance", args: [order] });
            const raw = Buffer.from(data.slice(2), "hex");
            for (const { at, bytes } of patches) Buffer.from(bytes).copy(raw, 4 + (at % Math.max(1, raw.length - 4)));
            data = hex(raw.subarray(0, Math.max(0, raw.length - cut)));
            const holder = await holderView(f, data);
            if (holder === undefined) return;
            expect(await routerView(f, data), "the router must decode what the holder delivered").to.deep.equal(holder);
          },
        ),
        fuzzRuns(80),
      );
    });
  });

  describe("the route-actions decoder on arbitrary bytes", () => {
    const actionArbitrary = (f: HarnessFixture): fc.Arbitrary<RouteAction> => {
      const tokenOut = fc.constantFrom(f.token("USDC"), f.contracts.weth, f.token("DAI"), NATIVE_TOKEN);
      const v2Hop = fc.record({
        type: fc.constant("swapV2" as const),
        pair: fc.constantFrom(f.pool("WETH", "USDC"), f.pool("USDC", "DAI"), f.pool("LINK", "WETH"), f.pool("WETH", "DAI"), f.contracts.weth),
        tokenOut,
        feeBps: fc.constantFrom(30, 0, 9000, 9999),
      });
      // Both devnet V3 venues and two indexes past the router's table; the market's fee tiers and one no pool has.
      const v3Hop = fc.record({ type: fc.constant("swapV3" as const), tokenOut, fee: fc.constantFrom(100, 500, 2500, 3000, 10_000, 1234), venue: fc.constantFrom(0, 1, 0, 1, 2, 3) });
      // The allowlisted propAMM, a V2 pair and a token that are not on the allowlist.
      const propAmmHop = fc.record({ type: fc.constant("swapPropAmm" as const), pair: fc.constantFrom(f.propAmms[0]!.address, f.propAmms[0]!.address, f.pool("USDC", "DAI"), f.contracts.weth), tokenOut });
      // The devnet's V4 pools (native ETH's, the hooked ones) and keys nobody initialised; address(0) is V4's native ETH.
      const v4Keys = f.uniswapV4.pools.map(({ fee, tickSpacing, hooks }) => ({ fee, tickSpacing, hooks }));
      const v4Hop = fc.record({
        type: fc.constant("swapV4" as const),
        tokenOut: fc.constantFrom(f.token("USDC"), f.contracts.weth, f.token("DAI"), f.token("WBTC"), zeroAddress),
        key: fc.oneof(fc.constantFrom(...v4Keys), fc.record({ fee: fc.constantFrom(500, 1234, 3000), tickSpacing: fc.constantFrom(1, 10, 60, 7), hooks: fc.constantFrom(zeroAddress, f.stranger.account.address) })),
      }).map(({ type, tokenOut, key }): RouteHopAction => ({ type, tokenOut, ...key }));
      const hop: fc.Arbitrary<RouteHopAction> = fc.oneof(v2Hop, v3Hop, propAmmHop, v4Hop);
      // Legs of 1-3 random hops ending in one token (the SDK insists), shares adding up to 10,000.
      const split = fc
        .tuple(fc.array(fc.array(hop, { minLength: 1, maxLength: 3 }), { minLength: 2, maxLength: 3 }), fc.constantFrom(f.token("USDC"), f.contracts.weth, f.token("DAI")), fc.integer({ min: 1, max: 4_999 }))
        .map(([legs, end, share]) => ({
          type: "split" as const,
          legs: legs.map((hops, index) => ({
            shareBps: index === 0 ? 10_000 - share * (legs.length - 1) : share,
            hops: hops.map((h, at) => ({ ...h, ...(at === hops.length - 1 ? { tokenOut: end } : {}) })),
          })),
        }));
      return fc.oneof(
        hop,
        split,
        fc.constant({ type: "wrap" as const }),
        fc.constant({ type: "unwrap" as const }),
        fc.record({ type: fc.constant("fee" as const), bps: fc.constantFrom(0, 25, 10_000), recipient: fc.constant(f.stranger.account.address) }),
      );
    };
    /**
     * A run of consecutive SWAP_V4 hops (one unlock) through the devnet's real V4 pools, walking from
     * `from` (address(0): native ETH, which the ETH/USDC pool takes without a WRAP) from pool to pool.
     */
    const v4Walk = (f: HarnessFixture, from: Address): fc.Arbitrary<RouteHopAction[]> =>
      fc.array(fc.nat(), { minLength: 1, maxLength: 4 }).map((picks) => {
        let token = from;
        const hops: RouteHopAction[] = [];
        for (const pick of picks) {
          const pools = f.uniswapV4.pools.filter((pool) => pool.currency0 === token || pool.currency1 === token);
          const pool = pools[pick % pools.length]!;
          token = pool.currency0 === token ? pool.currency1 : pool.currency0;
          hops.push({ type: "swapV4", tokenOut: token, fee: pool.fee, tickSpacing: pool.tickSpacing, hooks: pool.hooks });
        }
        return hops;
      });
    /** SPLIT legs from WETH to USDC, V4 hops beside V2 and V3 ones: what a WRAP then a SPLIT of 2-3 of them can mix. */
    const wethToUsdcLegs = (f: HarnessFixture): RouteHopAction[][] => {
      const [usdc, weth, wbtc] = [f.token("USDC"), f.contracts.weth, f.token("WBTC")];
      const v4 = (a: Address, b: Address, tokenOut: Address): RouteHopAction => {
        const pool = f.uniswapV4.pools.find((candidate) => candidate.hooks === zeroAddress && [candidate.currency0, candidate.currency1].every((currency) => currency === a || currency === b))!;
        return { type: "swapV4", tokenOut, fee: pool.fee, tickSpacing: pool.tickSpacing, hooks: pool.hooks };
      };
      return [
        [v4(weth, usdc, usdc)],
        [v4(weth, wbtc, wbtc), v4(wbtc, weth, weth), v4(weth, usdc, usdc)],
        [v4(weth, wbtc, wbtc), { type: "swapV2", pair: f.pool("WBTC", "USDC"), tokenOut: usdc, feeBps: 30 }],
        [{ type: "swapV2", pair: f.pool("WETH", "USDC"), tokenOut: usdc, feeBps: 30 }],
        [{ type: "swapV3", tokenOut: usdc, fee: 500, venue: 0 }],
      ];
    };
    /** Whether a route's bytes decode to one holding a SWAP_V4 hop (random bytes may not decode at all). */
    const throughV4 = (actions: Hex): boolean => {
      try {
        return decodeRouteActions(actions).some((action) => action.type === "swapV4" || (action.type === "split" && action.legs.some((leg) => leg.hops.some((hop) => hop.type === "swapV4"))));
      } catch {
        return false;
      }
    };
    /** The SDK refuses fees above 100 %; the router must too, so they are encoded by hand here. */
    const rawFee = (bps: number, recipient: Address): Hex => concatHex(["0x04", padHex(numberToHex(bps), { size: 2 }), recipient]);

    it("swapNative with random action sequences or random bytes (V2, V3 on any venue index and fee, propAMM hops allowlisted or not, V4 hops on real and uninitialised keys, runs of V4 hops from native ETH, SPLIT legs mixing them) either settles or reverts with one of the routers' own errors or a venue's refusal, never a panic", async () => {
      const f = await loadFixture(harnessFixture);
      const known = await routerErrors();
      const refusals = new Set<string>();
      let settled = 0;
      let settledThroughV4 = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            // Encoded one by one: the SDK itself refuses routes of more than 8 actions.
            fc.array(actionArbitrary(f), { maxLength: 10 }).map((actions) => concatHex(["0x", ...actions.map((action) => encodeRouteActions([action]))])),
            fc.tuple(fc.array(actionArbitrary(f), { maxLength: 3 }), fc.integer({ min: 10_001, max: 65_535 })).map(([actions, bps]) =>
              concatHex([encodeRouteActions(actions), rawFee(bps, f.stranger.account.address)]),
            ),
            fc.uint8Array({ maxLength: 200 }).map(hex),
            // A run of V4 hops from native ETH, then a few random actions.
            fc.tuple(v4Walk(f, zeroAddress), fc.array(actionArbitrary(f), { maxLength: 2 })).map(([walk, tail]) => concatHex([...walk, ...tail].map((action) => encodeRouteActions([action])))),
            // WRAP, then a SPLIT whose legs mix V4 hops (alone, as a run) with V2 and V3 ones.
            fc.tuple(fc.shuffledSubarray(wethToUsdcLegs(f), { minLength: 2, maxLength: 3 }), fc.integer({ min: 1, max: 4_999 })).map(([legs, share]) =>
              encodeRouteActions([{ type: "wrap" }, { type: "split", legs: legs.map((hops, index) => ({ shareBps: index === 0 ? 10_000 - share * (legs.length - 1) : share, hops })) }]),
            ),
            fc.tuple(fc.array(actionArbitrary(f), { minLength: 1, maxLength: 4 }), fc.nat({ max: 42 })).map(([actions, cut]) => {
              const encoded = encodeRouteActions(actions);
              return sliceHex(encoded, 0, Math.max(1, (encoded.length - 2) / 2 - cut));
            }),
          ),
          fc.constantFrom(f.token("USDC"), f.contracts.weth, NATIVE_TOKEN),
          fc.bigInt({ min: 1n, max: parseUnits("5", 18) }),
          async (actions, buyToken, value) => {
            const order: SwapOrder = {
              sellToken: NATIVE_TOKEN, sellAmount: value, buyToken, minBuyAmount: 0n, recipient: f.recipient.account.address,
              deadline: maxUint256, quoteId: `0x${"f0".repeat(32)}`, actions,
            };
            try {
              await f.publicClient.call({ account: f.taker.account.address, to: f.routerAddress, data: encodeSwapNative(order), value });
              settled++;
              if (throughV4(actions)) settledThroughV4++;
            } catch (error) {
              const fromV4 = v4Refusal(error);
              if (fromV4 !== undefined) {
                refusals.add(`V4 ${fromV4}`);
                return;
              }
              const { errorName, args } = await revertOf(error);
              // The pair's own refusals come before the router's next check can speak: a SWAP_V2 whose input
              // buys nothing (a split leg names it instead), or a next "pair" that is one of this pair's
              // tokens (the next action would refuse it as SwapUnknownPair). Both revert the whole route.
              const venueRefusal = (errorName === "Error" && [...V2_PAIR_REFUSALS, ...V3_POOL_REFUSALS].includes(String(args[0]))) || errorName.startsWith("DevPropAmm");
              expect(known.has(errorName) || venueRefusal, `unexpected revert ${errorName}(${args.join(", ")}) for actions ${actions}`).to.equal(true);
              refusals.add(errorName === "Error" ? String(args[0]) : errorName);
            }
          },
        ),
        fuzzRuns(120),
      );
      expect(settled).to.be.greaterThan(0);
      console.log(`      ${settled} settled (${settledThroughV4} through V4 pools); refusals seen: ${[...refusals].sort().join(", ")}`);
    });
  });

  describe("gasless batches, differentially against one swapGasless per order", () => {
    /** How a random order is spoiled, if at all. */
    const kinds = ["valid", "valid", "repeat", "forged", "expired", "greedy", "zeroPayee"] as const;
    type Kind = (typeof kinds)[number];

    async function randomOrders(f: HarnessFixture, plan: { kind: Kind; amount: number; fee: number }[], nonceBase: bigint): Promise<SignedGaslessOrder[]> {
      const now = (await f.publicClient.getBlock()).timestamp;
      const orders: SignedGaslessOrder[] = [];
      for (const [index, { kind, amount, fee }] of plan.entries()) {
        if (kind === "repeat" && orders.length > 0) {
          orders.push(orders[index % orders.length]!);
          continue;
        }
        const sellAmount = parseUnits(String(amount), 6);
        const route = await testRoute(f, ["USDC", "WETH"], sellAmount);
        const quoted = orderFor(route, sellAmount, f.recipient.account.address, now, `0x${(index + 1).toString(16).padStart(64, "0")}`);
        const order = {
          ...quoted,
          // Valid orders accept a fifth less than the quote (earlier orders move the pool); a greedy one wants more than the pool gives.
          minBuyAmount: kind === "greedy" ? quoted.minBuyAmount * 2n : (quoted.minBuyAmount * 4n) / 5n,
          deadline: kind === "expired" ? now - 1n : quoted.deadline,
        };
        const relayerFee = kind === "zeroPayee" ? 1n : BigInt(fee);
        const relayerFeeRecipient = kind === "zeroPayee" ? zeroAddress : f.feeRecipient.account.address;
        const signer = kind === "forged" ? f.stranger.account.address : f.taker.account.address;
        orders.push(await signedGaslessOrder(f, { order, nonce: nonceBase + BigInt(index), relayerFee, relayerFeeRecipient, signer, taker: f.taker.account.address }));
      }
      return orders;
    }

    async function balances(f: HarnessFixture) {
      return Promise.all([
        balanceOf(f, f.token("USDC"), f.taker.account.address),
        balanceOf(f, f.token("WETH"), f.recipient.account.address),
        balanceOf(f, f.token("USDC"), f.feeRecipient.account.address),
        balanceOf(f, f.token("USDC"), f.contracts.gaslessSwapRouter),
        balanceOf(f, f.token("WETH"), f.contracts.gaslessSwapRouter),
      ]);
    }

    it("a random batch (valid, repeated, forged, expired, greedy orders, zero payees) settles exactly the orders, outputs and fees that one swapGasless per order would, and skips the rest", async () => {
      const f = await loadFixture(harnessFixture);
      await f.taker.writeContract({ address: f.token("USDC"), abi: erc20Abi, functionName: "approve", args: [f.contracts.permit2, maxUint256] });
      let run = 0n;
      let settledAny = false;
      let skippedAny = false;
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.record({ kind: fc.constantFrom(...kinds), amount: fc.integer({ min: 1, max: 20_000 }), fee: fc.integer({ min: 0, max: 2_000_000 }) }), { minLength: 1, maxLength: 6 }),
          async (plan) => {
            const orders = await randomOrders(f, plan, (15n << 64n) + (run++ << 8n));
            const start = (await f.testClient.snapshot()) as Hex;
            // One transaction per order, in the batch's order.
            const singles: bigint[] = [];
            for (const order of orders) {
              const { data, signatureOffset } = encodeSwapGasless(order.params, order.taker, order, order.nonce);
              const signed = patchSignature(data, signatureOffset, order.signature);
              const receipt = await f.relayer
                .sendTransaction({ to: f.contracts.gaslessSwapRouter, data: signed, gas: 2_000_000n })
                .then((hash) => f.publicClient.waitForTransactionReceipt({ hash }))
                .catch(() => undefined);
              const [settled] = receipt === undefined ? [] : parseEventLogs({ abi: gaslessBatchSwapRouterAbi, logs: receipt.logs, eventName: "SwapSettled" });
              singles.push(settled === undefined ? -1n : settled.args.buyAmount);
            }
            const afterSingles = await balances(f);
            await f.testClient.revert({ id: start });
            // The same orders in one batch.
            const receipt = await f.publicClient.waitForTransactionReceipt({
              hash: await f.relayer.sendTransaction({ to: f.contracts.gaslessSwapRouter, data: encodeSwapGaslessBatch(orders, orders.map(() => BATCH_ORDER_GAS)) }),
            });
            const settled = parseEventLogs({ abi: gaslessBatchSwapRouterAbi, logs: receipt.logs, eventName: "SwapSettled" });
            const skipped = parseEventLogs({ abi: gaslessBatchSwapRouterAbi, logs: receipt.logs, eventName: "GaslessOrderSkipped" });
            const batch: bigint[] = orders.map(() => -1n);
            let next = 0;
            for (const [index, outcome] of singles.entries()) if (outcome !== -1n) batch[index] = settled[next++]?.args.buyAmount ?? -2n;
            expect(batch, "settled outputs, order by order").to.deep.equal(singles);
            expect(settled).to.have.length(next);
            expect(skipped.map((log) => Number(log.args.index))).to.deep.equal(singles.flatMap((outcome, index) => (outcome === -1n ? [index] : [])));
            expect(await balances(f), "taker, recipient, payee and router balances").to.deep.equal(afterSingles);
            settledAny ||= settled.length > 0;
            skippedAny ||= skipped.length > 0;
          },
        ),
        fuzzRuns(15),
      );
      expect(settledAny && skippedAny, "the runs settled and skipped orders").to.equal(true);
    });
  });

  describe("amounts at the edges", () => {
    it("a gasless order whose sellAmount + relayerFee exceeds 2^256 reverts before any token moves", async () => {
      const f = await loadFixture(harnessFixture);
      await f.taker.writeContract({ address: f.token("USDC"), abi: erc20Abi, functionName: "approve", args: [f.contracts.permit2, maxUint256] });
      await fc.assert(
        fc.asyncProperty(fc.bigInt({ min: 1n, max: maxUint256 }), fc.bigInt({ min: 1n, max: maxUint256 }), async (sellAmount, fee) => {
          const relayerFee = maxUint256 - sellAmount + (fee % sellAmount) + 1n;
          fc.pre(relayerFee <= maxUint256);
          const order: SwapOrder = {
            sellToken: f.token("USDC"), sellAmount, buyToken: f.contracts.weth, minBuyAmount: 0n, recipient: f.taker.account.address,
            deadline: maxUint256, quoteId: `0x${"ed".repeat(32)}`, actions: "0x",
          };
          const { data, signatureOffset } = encodeSwapGasless(order, f.taker.account.address, { relayerFee, relayerFeeRecipient: f.relayer.account.address }, 1n);
          const signed = concatHex([sliceHex(data, 0, signatureOffset), padHex("0x1b", { size: 65, dir: "left" }), sliceHex(data, signatureOffset + 65)]);
          let reverted: unknown;
          await f.publicClient.call({ account: f.relayer.account.address, to: f.contracts.gaslessSwapRouter, data: signed }).catch((error: unknown) => (reverted = error));
          expect(reverted, "an overflowing permit amount must revert").to.not.equal(undefined);
          expect((reverted as Error).message).to.match(/overflow|0x11|Panic/i);
        }),
        fuzzRuns(20),
      );
    });

    it("in a batch, such an order is skipped with the overflow panic and the batch goes on", async () => {
      const f = await loadFixture(harnessFixture);
      await f.taker.writeContract({ address: f.token("USDC"), abi: erc20Abi, functionName: "approve", args: [f.contracts.permit2, maxUint256] });
      await fc.assert(
        fc.asyncProperty(fc.bigInt({ min: 1n, max: maxUint256 }), fc.bigInt({ min: 1n, max: maxUint256 }), async (sellAmount, fee) => {
          const relayerFee = maxUint256 - sellAmount + (fee % sellAmount) + 1n;
          fc.pre(relayerFee <= maxUint256);
          const params: SwapOrder = {
            sellToken: f.token("USDC"), sellAmount, buyToken: f.contracts.weth, minBuyAmount: 0n, recipient: f.taker.account.address,
            deadline: maxUint256, quoteId: `0x${"ed".repeat(32)}`, actions: "0x",
          };
          const order: SignedGaslessOrder = { params, taker: f.taker.account.address, relayerFee, relayerFeeRecipient: f.relayer.account.address, nonce: 1n, signature: padHex("0x1b", { size: 65, dir: "left" }) };
          const { result } = await f.publicClient.simulateContract({
            account: f.relayer.account, address: f.contracts.gaslessSwapRouter, abi: gaslessBatchSwapRouterAbi, functionName: "swapGaslessBatch", args: [[order, order], [BATCH_ORDER_GAS, BATCH_ORDER_GAS]],
          });
          expect(result).to.deep.equal([0n, [0n, 0n]]);
        }),
        fuzzRuns(10),
      );
      // And the reason the event carries is that panic.
      const params: SwapOrder = {
        sellToken: f.token("USDC"), sellAmount: maxUint256, buyToken: f.contracts.weth, minBuyAmount: 0n, recipient: f.taker.account.address,
        deadline: maxUint256, quoteId: `0x${"ee".repeat(32)}`, actions: "0x",
      };
      const order: SignedGaslessOrder = { params, taker: f.taker.account.address, relayerFee: 1n, relayerFeeRecipient: f.relayer.account.address, nonce: 1n, signature: padHex("0x1b", { size: 65, dir: "left" }) };
      const receipt = await f.publicClient.waitForTransactionReceipt({ hash: await f.relayer.sendTransaction({ to: f.contracts.gaslessSwapRouter, data: encodeSwapGaslessBatch([order], [BATCH_ORDER_GAS]) }) });
      const [skip] = parseEventLogs({ abi: gaslessBatchSwapRouterAbi, logs: receipt.logs, eventName: "GaslessOrderSkipped" });
      expect(skip?.args.reason).to.equal(concatHex([toFunctionSelector("Panic(uint256)"), word(0x11n)]));
    });

    it("swaps against a pool near the 2^112 reserve limit settle exactly the V2 formula's output", async () => {
      const f = await loadFixture(harnessFixture);
      await fc.assert(
        fc.asyncProperty(fc.bigInt({ min: 1n, max: 2n ** 112n - 1n }), fc.bigInt({ min: 1n, max: 2n ** 112n - 1n }), fc.bigInt({ min: 1n, max: 2n ** 100n }), async (reserveIn, reserveOut, amountIn) => {
          const out = await f.harness.read.getAmountOut([amountIn, reserveIn, reserveOut, 30n]);
          // The formula never promises more than the reserve, so a pair's K check can always pass.
          expect(out < reserveOut).to.equal(true);
          const product = (reserveIn * 10_000n + amountIn * 9_970n) * (reserveOut - out);
          expect(product >= reserveIn * reserveOut * 10_000n).to.equal(true);
        }),
        fuzzRuns(60),
      );
    });
  });
});
