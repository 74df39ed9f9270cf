import { expect } from "chai";
import fc from "fast-check";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { TypedDataEncoder, Wallet } from "ethers";
import { decodeAbiParameters, erc20Abi, getAddress, hashTypedData, keccak256, maxUint256, parseEventLogs, parseUnits, type Address, type Hex } from "viem";
import {
  buildGaslessPermitTypedData,
  buildSwapPermitTypedData,
  encodeSwapWithAllowance,
  encodeSwapWithPermit,
  getAmountOut,
  patchSignature,
  takerSwapRouterAbi,
  uniswapV3PoolAbi,
  type SwapOrder,
} from "../../sdk";
import { uniswapArtifacts } from "../../scripts/deploy/uniswapArtifacts";
import { harnessFixture, type HarnessFixture } from "../fixtures/harnessFixture";
import { balanceOf, orderFor, testRoute } from "../fixtures/testRoute";
import { fundTakerForMixedRoutes, mixedRoute, mixedRoutePlan, mixedVenueMarket } from "../fixtures/mixedVenueRoutes";
import { sdkRouteOutputAt, ticksCrossed, v4KeyOf } from "../fixtures/sdkRoutePricing";
import { quoteV4 } from "../fixtures/venueQuotes";
import { fuzzRuns } from "../helpers/fuzzRuns";

/**
 * Differential tests: each compares our implementation with an independent one on the same inputs.
 * - V2 output math against Uniswap's own UniswapV2Router02 (`getAmountOut`, and `getAmountsOut` over
 *   the devnet's real pools against what our router actually settles);
 * - mixed-venue routes (V2, V3, propAMM and Uniswap V4 hops) against the SDK's off-chain pricing, and
 *   routes of V4 hops alone against Uniswap's own V4Quoter;
 * - witness struct hashes and Permit2 digests against ethers' TypedDataEncoder, plus one swap signed
 *   by an ethers wallet and accepted by Permit2 on chain.
 */

const router02Abi = uniswapArtifacts.router02().abi;
const MAX_112 = 2n ** 112n - 1n;
const MAX_128 = 2n ** 128n - 1n;

const address = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((bytes) => getAddress(`0x${Buffer.from(bytes).toString("hex")}`));
const word = fc.bigInt({ min: 0n, max: maxUint256 });
const bytes32 = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => `0x${Buffer.from(bytes).toString("hex")}` as Hex);
const actions = fc.uint8Array({ maxLength: 120 }).map((bytes) => `0x${Buffer.from(bytes).toString("hex")}` as Hex);
const order = fc.record({
  sellToken: address,
  sellAmount: word,
  buyToken: address,
  minBuyAmount: word,
  recipient: address,
  deadline: word,
  quoteId: bytes32,
  actions,
});

/** The witness types restated from the spec, not imported from the SDK: the comparison must not share code. */
const swapWitnessTypes = {
  SwapWitness: [
    { name: "recipient", type: "address" },
    { name: "buyToken", type: "address" },
    { name: "minBuyAmount", type: "uint256" },
    { name: "deadline", type: "uint256" },
    { name: "quoteId", type: "bytes32" },
    { name: "actionsHash", type: "bytes32" },
  ],
};
const gaslessWitnessTypes = {
  GaslessSwapWitness: [...swapWitnessTypes.SwapWitness, { name: "relayerFee", type: "uint256" }, { name: "relayerFeeRecipient", type: "address" }],
};

function witnessOf(o: SwapOrder) {
  return { recipient: o.recipient, buyToken: o.buyToken, minBuyAmount: o.minBuyAmount, deadline: o.deadline, quoteId: o.quoteId, actionsHash: keccak256(o.actions) };
}

/** viem's typed data, re-expressed for ethers (which refuses EIP712Domain inside `types`). */
function forEthers(typedData: { domain: object; types: Record<string, readonly { name: string; type: string }[]>; message: object }) {
  const { EIP712Domain: _domain, ...types } = typedData.types;
  return { domain: typedData.domain, types: types as Record<string, { name: string; type: string }[]>, message: typedData.message as Record<string, unknown> };
}

/** The devnet's whole market (V2, both V3 venues, the propAMM, V4) with a taker holding and approving every token. */
async function mixedMarketFixture() {
  const f = await harnessFixture();
  const market = mixedVenueMarket(f);
  await fundTakerForMixedRoutes(f, market);
  return { ...f, market };
}

describe("settlement differential tests", function () {
  this.timeout(300_000);

  describe("V2 output math against UniswapV2Router02", () => {
    it("getAmountOut equals Router02's and the SDK's for inputs up to 2^128 and reserves up to 2^112", async () => {
      const f = await loadFixture(harnessFixture);
      await fc.assert(
        fc.asyncProperty(
          fc.bigInt({ min: 1n, max: MAX_128 }),
          fc.bigInt({ min: 1n, max: MAX_112 }),
          fc.bigInt({ min: 1n, max: MAX_112 }),
          async (amountIn, reserveIn, reserveOut) => {
            const ours = await f.harness.read.getAmountOut([amountIn, reserveIn, reserveOut, 30n]);
            const theirs = (await f.publicClient.readContract({ address: f.router02, abi: router02Abi, functionName: "getAmountOut", args: [amountIn, reserveIn, reserveOut] })) as bigint;
            expect(ours).to.equal(theirs);
            expect(getAmountOut(amountIn, reserveIn, reserveOut, 30)).to.equal(ours);
          },
        ),
        fuzzRuns(60),
      );
    });

    it("refuses inputs of 2^128 or more and reserves above 2^112 instead of wrapping", async () => {
      const f = await loadFixture(harnessFixture);
      await fc.assert(
        fc.asyncProperty(fc.bigInt({ min: MAX_128 + 1n, max: maxUint256 }), fc.bigInt({ min: MAX_112 + 1n, max: maxUint256 }), async (amountIn, reserve) => {
          for (const args of [[amountIn, 1n, 1n, 30n], [1n, reserve, 1n, 30n], [1n, 1n, reserve, 30n]] as const) {
            let reverted = false;
            await f.harness.read.getAmountOut(args).catch(() => (reverted = true));
            expect(reverted, `getAmountOut(${args.join(", ")}) should revert`).to.equal(true);
          }
        }),
        fuzzRuns(15),
      );
    });

    it("what our router settles over the devnet's pools equals Router02.getAmountsOut on the same path", async () => {
      const f = await loadFixture(harnessFixture);
      for (const symbol of ["USDC", "LINK", "DAI"]) {
        await f.taker.writeContract({ address: f.token(symbol), abi: erc20Abi, functionName: "approve", args: [f.contracts.allowanceHolder, maxUint256] });
      }
      const paths = [["USDC", "WETH"], ["USDC", "DAI"], ["LINK", "WETH", "USDC"], ["DAI", "WETH", "WBTC"], ["USDC", "WBTC", "WETH", "LINK"]];
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...paths), fc.integer({ min: 1, max: 50_000 }), async (path, whole) => {
          const decimals = path[0] === "USDC" ? 6 : 18;
          const sellAmount = parseUnits(String(whole), decimals) / (path[0] === "LINK" ? 10n : 1n);
          const route = await testRoute(f, path, sellAmount);
          const now = (await f.publicClient.getBlock()).timestamp;
          const o = { ...orderFor(route, sellAmount, f.recipient.account.address, now, `0x${"d1".repeat(32)}`), minBuyAmount: 0n };
          const amounts = (await f.publicClient.readContract({ address: f.router02, abi: router02Abi, functionName: "getAmountsOut", args: [sellAmount, path.map((s) => f.token(s))] })) as bigint[];
          const { data } = await f.publicClient.call({ account: f.taker.account.address, to: f.contracts.allowanceHolder, data: encodeSwapWithAllowance(o, f.routerAddress) });
          const [inner] = decodeAbiParameters([{ type: "bytes" }], data!);
          const [settled] = decodeAbiParameters([{ type: "uint256" }], inner);
          expect(settled).to.equal(amounts[amounts.length - 1]);
        }),
        fuzzRuns(25),
      );
    });
  });

  describe("mixed-venue routes against the SDK's off-chain pricing", () => {
    it("random routes of SWAP_V2, SWAP_V3 (both venues, every fee tier), SWAP_PROPAMM and SWAP_V4 hops, alone, chained (V4 runs in one unlock) or in SPLIT legs, settle exactly the SDK's price at the block, a path of V4 hops exactly V4Quoter's, and the router refuses exactly those the SDK cannot price", async () => {
      const f = await loadFixture(mixedMarketFixture);
      const seen = { v2: 0, v3: 0, propAmm: 0, v4: 0, v4Run: 0, v4Quoted: 0, v4InSplit: 0, split: 0, mixedSplit: 0, priced: 0, refused: 0, crossedTicks: 0, venues: new Set<number>(), fees: new Set<number>() };
      await fc.assert(
        fc.asyncProperty(mixedRoutePlan(), async (plan) => {
          const route = mixedRoute(f.market, plan, f.feeRecipient.account.address);
          const blockNumber = await f.publicClient.getBlockNumber();
          const { output, v3Pools } = await sdkRouteOutputAt(f, route.actions, route.sellToken, route.sellAmount, blockNumber);
          const order: SwapOrder = {
            sellToken: route.sellToken, sellAmount: route.sellAmount, buyToken: route.buyToken, minBuyAmount: output ?? 0n, recipient: f.recipient.account.address,
            deadline: maxUint256, quoteId: `0x${"d2".repeat(32)}`, actions: route.encoded,
          };
          const data = encodeSwapWithAllowance(order, f.routerAddress);
          if (output === undefined) {
            let refused = false;
            await f.publicClient.call({ account: f.taker.account.address, to: f.contracts.allowanceHolder, data, blockNumber }).catch(() => (refused = true));
            expect(refused, `the router settled a route the SDK does not price: ${JSON.stringify(plan)}`).to.equal(true);
            seen.refused++;
            return;
          }
          // A path of V4 hops only (each pool once): V4Quoter's quotes hop after hop, before the FEE, are the router's gross.
          const swaps = route.actions.filter((action) => action.type !== "fee");
          if (swaps.every((action) => action.type === "swapV4")) {
            let quoted = route.sellAmount;
            let tokenIn = route.sellToken;
            for (const hop of swaps) {
              quoted = await quoteV4(f, f.uniswapV4.v4Quoter, v4KeyOf(hop, tokenIn), tokenIn, quoted);
              tokenIn = hop.tokenOut;
            }
            expect(quoted - (quoted * BigInt(route.feeBps)) / 10_000n, `V4Quoter vs SDK for ${JSON.stringify(plan)}`).to.equal(output);
            seen.v4Quoted++;
            if (swaps.length > 1) seen.v4Run++;
          }
          // Settled for real (minBuyAmount = the SDK's price, to the wei), so later runs meet moved pools.
          const before = await balanceOf(f, route.buyToken, f.recipient.account.address);
          const receipt = await f.publicClient.waitForTransactionReceipt({ hash: await f.taker.sendTransaction({ to: f.contracts.allowanceHolder, data }) });
          const [settled] = parseEventLogs({ abi: takerSwapRouterAbi, logs: receipt.logs, eventName: "SwapSettled" });
          expect(settled?.args.buyAmount, `router vs SDK for ${JSON.stringify(plan)}`).to.equal(output);
          expect(await balanceOf(f, route.buyToken, f.recipient.account.address)).to.equal(before + output);
          seen.priced++;
          for (const [address, pool] of v3Pools) {
            const [, tickAfter] = await f.publicClient.readContract({ address: address as Address, abi: uniswapV3PoolAbi, functionName: "slot0" });
            if (ticksCrossed(pool, tickAfter) > 0) seen.crossedTicks++;
          }
          for (const venue of route.venues) seen[venue]++;
          const split = route.actions.find((action) => action.type === "split");
          if (split !== undefined) {
            seen.split++;
            const legVenues = split.legs.map((leg) => leg.hops.map((hop) => hop.type).join("+"));
            if (new Set(legVenues).size > 1) seen.mixedSplit++;
            if (legVenues.some((venues) => venues.includes("swapV4"))) seen.v4InSplit++;
          }
          for (const action of route.actions) {
            const hops = action.type === "split" ? action.legs.flatMap((leg) => leg.hops) : [action];
            for (const hop of hops) if (hop.type === "swapV3") (seen.venues.add(hop.venue), seen.fees.add(hop.fee));
          }
        }),
        fuzzRuns(30),
      );
      console.log(`      mixed routes: ${seen.priced} settled (V2 ${seen.v2}, V3 ${seen.v3}, propAMM ${seen.propAmm}, V4 ${seen.v4}: ${seen.v4Quoted} V4-only paths equal to V4Quoter, ${seen.v4Run} of them runs of V4 hops, ${seen.v4InSplit} SPLITs with a V4 leg; SPLIT ${seen.split} of which ${seen.mixedSplit} mix venues; ${seen.crossedTicks} V3 swaps crossed initialized ticks; V3 venues [${[...seen.venues]}], fee tiers [${[...seen.fees]}]), ${seen.refused} refused`);
      expect(seen.priced, "routes settled").to.be.greaterThan(0);
      expect(seen.v3 + seen.propAmm, "routes through the new venues").to.be.greaterThan(0);
      expect(seen.v4, "routes through V4 pools").to.be.greaterThan(0);
    });
  });

  describe("witness hashes against ethers' EIP-712 implementation", () => {
    it("SwapWitness and GaslessSwapWitness struct hashes equal ethers' hashStruct for arbitrary orders", async () => {
      const f = await loadFixture(harnessFixture);
      await fc.assert(
        fc.asyncProperty(order, word, address, async (o, relayerFee, relayerFeeRecipient) => {
          expect(await f.harness.read.hashSwapWitness([o])).to.equal(TypedDataEncoder.hashStruct("SwapWitness", swapWitnessTypes, witnessOf(o)));
          expect(await f.harness.read.hashGaslessWitness([o, relayerFee, relayerFeeRecipient])).to.equal(
            TypedDataEncoder.hashStruct("GaslessSwapWitness", gaslessWitnessTypes, { ...witnessOf(o), relayerFee, relayerFeeRecipient }),
          );
        }),
        fuzzRuns(40),
      );
    });

    it("the SDK's Permit2 typed data hashes to the same digest in viem and in ethers", () => {
      fc.assert(
        // A gasless permit covers sellAmount + relayerFee, so only sums that fit in a uint256 are valid
        // typed data (the router refuses the others: see the fuzz suite).
        fc.property(order, word, word, address, address, (o, nonce, fee, relayerFeeRecipient, router) => {
          const relayerFee = fee % (maxUint256 - o.sellAmount + 1n);
          const common = { chainId: 4663, permit2: "0x000000000022D473030F116dDEE9F6B43aC78BA3" as Address, router, order: o, nonce };
          for (const typedData of [buildSwapPermitTypedData(common), buildGaslessPermitTypedData({ ...common, relayerFee, relayerFeeRecipient })]) {
            const { domain, types, message } = forEthers(typedData as never);
            expect(TypedDataEncoder.hash(domain, types, message)).to.equal(hashTypedData(typedData as never));
          }
        }),
        fuzzRuns(100),
      );
    });

    it("a permit swap signed by an ethers wallet, not viem, is accepted by Permit2 and settles", async () => {
      const f = await loadFixture(harnessFixture);
      await f.taker.writeContract({ address: f.token("USDC"), abi: erc20Abi, functionName: "approve", args: [f.contracts.permit2, maxUint256] });
      const sellAmount = parseUnits("250", 6);
      const route = await testRoute(f, ["USDC", "WETH"], sellAmount);
      const o = orderFor(route, sellAmount, f.recipient.account.address, (await f.publicClient.getBlock()).timestamp, `0x${"e7".repeat(32)}`);
      const nonce = (13n << 64n) + 1n;
      const typedData = buildSwapPermitTypedData({ chainId: 4663, permit2: f.contracts.permit2, router: f.routerAddress, order: o, nonce });
      const { domain, types, message } = forEthers(typedData as never);
      const wallet = new Wallet(devKeyOf(f, f.taker.account.address));
      const signature = (await wallet.signTypedData(domain as never, types, message)) as Hex;
      const { data, signatureOffset } = encodeSwapWithPermit(o, nonce);
      const hash = await f.taker.sendTransaction({ to: f.routerAddress, data: patchSignature(data, signatureOffset, signature) });
      expect((await f.publicClient.waitForTransactionReceipt({ hash })).status).to.equal("success");
    });
  });
});

/** The devnet's well-known private key of `address`, for a signer that is not viem's. */
function devKeyOf(f: HarnessFixture, address: Address): string {
  const key = f.devKeys.find((account) => account.address.toLowerCase() === address.toLowerCase());
  if (!key) throw new Error(`no dev key for ${address}`);
  return key.privateKey;
}
