import { expect } from "chai";
import fc from "fast-check";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { TypedDataEncoder, Wallet } from "ethers";
import { decodeAbiParameters, erc20Abi, getAddress, hashTypedData, keccak256, maxUint256, parseEventLogs, parseUnits, type Address, type Hex } from "viem";
import {
  buildExactOutputPermitTypedData,
  buildGaslessExactOutputPermitTypedData,
  encodeSwapExactOutputWithAllowance,
  encodeSwapGaslessExactOutput,
  gaslessExactOutputRouterAbi,
  patchSignature,
  takerExactOutputRouterAbi,
  type ExactOutputOrder,
} from "../../sdk";
import { uniswapArtifacts } from "../../scripts/deploy/uniswapArtifacts";
import { harnessFixture, type HarnessFixture } from "../fixtures/harnessFixture";
import { exactOutputOrderFor, exactOutputTestRoute } from "../fixtures/exactOutputRoute";
import { balanceOf } from "../fixtures/testRoute";
import { amountFor } from "../../scripts/deploy/deployV3Market";
import { exactOutputMarket, fundTakerForMixedRoutes, mixedRoute, mixedRoutePlan, mixedVenueMarket } from "../fixtures/mixedVenueRoutes";
import { sdkExactOutputInputAt } from "../fixtures/sdkRoutePricing";
import { fuzzRuns } from "../helpers/fuzzRuns";

/**
 * Differential tests of exact-output settlement, each against an implementation that shares no code
 * with ours: Uniswap's own UniswapV2Router02 (`getAmountIn`, `getAmountsIn`, `getAmountsOut`, and its
 * `swapTokensForExactTokens` run from the same chain state), and ethers' EIP-712 encoder for the two
 * exact-output witnesses, with a gasless exact-output order signed by an ethers wallet settling on the
 * devnet's feature-3 router.
 */

const router02Abi = uniswapArtifacts.router02().abi;
const MAX_112 = 2n ** 112n - 1n;
const NONCE_BASE = 27n << 64n;

const address = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((bytes) => getAddress(`0x${Buffer.from(bytes).toString("hex")}`));
const word = fc.bigInt({ min: 0n, max: maxUint256 });
const bytes32 = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => `0x${Buffer.from(bytes).toString("hex")}` as Hex);
const exactOutputOrder = fc.record({
  sellToken: address,
  maxSellAmount: word,
  buyToken: address,
  buyAmount: word,
  recipient: address,
  deadline: word,
  quoteId: bytes32,
  actions: fc.uint8Array({ maxLength: 120 }).map((bytes) => `0x${Buffer.from(bytes).toString("hex")}` as Hex),
});

/** The witness types restated from the README, not imported from the SDK: the comparison must not share code. */
const exactOutputWitnessTypes = {
  ExactOutputWitness: [
    { name: "recipient", type: "address" },
    { name: "buyToken", type: "address" },
    { name: "buyAmount", type: "uint256" },
    { name: "maxSellAmount", type: "uint256" },
    { name: "deadline", type: "uint256" },
    { name: "quoteId", type: "bytes32" },
    { name: "actionsHash", type: "bytes32" },
  ],
};
const gaslessExactOutputWitnessTypes = {
  GaslessExactOutputWitness: [...exactOutputWitnessTypes.ExactOutputWitness, { name: "relayerFee", type: "uint256" }, { name: "relayerFeeRecipient", type: "address" }],
};

function witnessOf(o: ExactOutputOrder) {
  return { recipient: o.recipient, buyToken: o.buyToken, buyAmount: o.buyAmount, maxSellAmount: o.maxSellAmount, deadline: o.deadline, quoteId: o.quoteId, actionsHash: keccak256(o.actions) };
}

/** viem's typed data, re-expressed for ethers (which refuses EIP712Domain inside `types`). */
function forEthers(typedData: { domain: object; types: Record<string, readonly { name: string; type: string }[]>; message: object }) {
  const { EIP712Domain: _domain, ...types } = typedData.types;
  return { domain: typedData.domain, types: types as Record<string, { name: string; type: string }[]>, message: typedData.message as Record<string, unknown> };
}

async function now(f: HarnessFixture): Promise<bigint> {
  return (await f.publicClient.getBlock()).timestamp;
}

/** The devnet's market without its propAMMs (exact input only), with a taker holding and approving every token. */
async function exactOutputMarketFixture() {
  const f = await harnessFixture();
  const market = mixedVenueMarket(f);
  await fundTakerForMixedRoutes(f, market);
  return { ...f, market: exactOutputMarket(market) };
}

describe("exact-output differential tests", function () {
  this.timeout(300_000);

  describe("V2 input math against UniswapV2Router02", () => {
    it("V2SwapMath.getAmountIn equals Router02.getAmountIn for every output below the reserve, reserves up to 2^112", async () => {
      const f = await loadFixture(harnessFixture);
      await fc.assert(
        fc.asyncProperty(fc.bigInt({ min: 1n, max: MAX_112 }), fc.bigInt({ min: 2n, max: MAX_112 }), fc.bigInt({ min: 1n, max: MAX_112 }), async (reserveIn, reserveOut, out) => {
          const amountOut = 1n + (out % (reserveOut - 1n));
          const ours = await f.harness.read.getAmountIn([amountOut, reserveIn, reserveOut, 30n]);
          const theirs = (await f.publicClient.readContract({ address: f.router02, abi: router02Abi, functionName: "getAmountIn", args: [amountOut, reserveIn, reserveOut] })) as bigint;
          expect(ours).to.equal(theirs);
        }),
        fuzzRuns(60),
      );
    });

    it("over the devnet's pools, the input our router takes for an exact output equals Router02.getAmountsIn, Router02's own exact-output swap takes the same input, and ours pays Router02.getAmountsOut of that input", async () => {
      const f = await loadFixture(harnessFixture);
      for (const symbol of ["USDC", "LINK", "DAI"]) {
        for (const spender of [f.contracts.allowanceHolder, f.router02]) {
          await f.publicClient.waitForTransactionReceipt({ hash: await f.taker.writeContract({ address: f.token(symbol), abi: erc20Abi, functionName: "approve", args: [spender, maxUint256] }) });
        }
      }
      const paths = [["USDC", "WETH"], ["USDC", "DAI"], ["LINK", "WETH", "USDC"], ["DAI", "WETH", "WBTC"], ["USDC", "WBTC", "WETH", "LINK"]] as const;
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...paths), fc.integer({ min: 1, max: 20_000 }), async (path, units) => {
          const last = path[path.length - 1]!;
          const decimals = last === "USDC" ? 6 : last === "WBTC" ? 8 : 18;
          // Up to about $20,000 of the output token.
          const usd = { USDC: 1n, WETH: 3_000n, DAI: 1n, WBTC: 60_000n, LINK: 15n }[last]!;
          const buyAmount = parseUnits(String(units), decimals) / usd;
          fc.pre(buyAmount > 0n);
          const tokens = path.map((symbol) => f.token(symbol));
          const amounts = (await f.publicClient.readContract({ address: f.router02, abi: router02Abi, functionName: "getAmountsIn", args: [buyAmount, tokens] })) as bigint[];
          const route = await exactOutputTestRoute(f, [path], buyAmount);
          const order = exactOutputOrderFor(route, buyAmount, maxUint256, f.recipient.account.address, await now(f), `0x${"d7".repeat(32)}`);
          const { data } = await f.publicClient.call({ account: f.taker.account.address, to: f.contracts.allowanceHolder, data: encodeSwapExactOutputWithAllowance(order, f.routerAddress) });
          const [inner] = decodeAbiParameters([{ type: "bytes" }], data!);
          const [sellAmount, boughtAmount] = decodeAbiParameters([{ type: "uint256" }, { type: "uint256" }], inner);
          expect(sellAmount, "the input priced backwards").to.equal(amounts[0]);
          const forwards = (await f.publicClient.readContract({ address: f.router02, abi: router02Abi, functionName: "getAmountsOut", args: [sellAmount, tokens] })) as bigint[];
          expect(boughtAmount, "the route run forwards on that input").to.equal(forwards[forwards.length - 1]);
          expect(boughtAmount >= buyAmount, "at least the output").to.equal(true);
          const deadline = (await now(f)) + 600n;
          const { result } = await f.publicClient.simulateContract({
            account: f.taker.account.address, address: f.router02, abi: router02Abi, functionName: "swapTokensForExactTokens", args: [buyAmount, maxUint256, tokens, f.recipient.account.address, deadline],
          });
          expect((result as bigint[])[0], "Router02's own exact-output swap takes the same input").to.equal(sellAmount);
        }),
        fuzzRuns(25),
      );
    });
  });

  describe("mixed-venue exact-output routes against the SDK's backward pricing", () => {
    it("random exact-output routes over V2 and both V3 venues (paths mixing them, SPLITs of pool-disjoint legs, a FEE) take exactly the SDK's backward-priced input and pay at least the output; the router refuses exactly those the SDK cannot fill", async () => {
      const f = await loadFixture(exactOutputMarketFixture);
      const seen = { settled: 0, refused: 0, v3: 0, split: 0 };
      await fc.assert(
        fc.asyncProperty(mixedRoutePlan(1_000_000), async (plan) => {
          const route = mixedRoute(f.market, plan, f.feeRecipient.account.address, { disjointLegs: true });
          const buyToken = f.market.tokens.find((token) => token.address.toLowerCase() === route.buyToken.toLowerCase())!;
          const buyAmount = amountFor(plan.usd, buyToken);
          const blockNumber = await f.publicClient.getBlockNumber();
          const needed = await sdkExactOutputInputAt(f, route.actions, route.sellToken, buyAmount, blockNumber);
          const order = exactOutputOrderFor({ ...route, amountIn: needed ?? 0n }, buyAmount, needed === undefined ? maxUint256 / 2n : needed + needed / 100n, f.recipient.account.address, await now(f), `0x${"d8".repeat(32)}`);
          const data = encodeSwapExactOutputWithAllowance(order, f.routerAddress);
          if (needed === undefined) {
            let refused = false;
            await f.publicClient.call({ account: f.taker.account.address, to: f.contracts.allowanceHolder, data, blockNumber }).catch(() => (refused = true));
            expect(refused, `the router filled an exact output the SDK cannot: ${JSON.stringify(plan)}`).to.equal(true);
            seen.refused++;
            return;
          }
          const [takerBefore, recipientBefore] = await Promise.all([balanceOf(f, route.sellToken, f.taker.account.address), balanceOf(f, route.buyToken, f.recipient.account.address)]);
          const receipt = await f.publicClient.waitForTransactionReceipt({ hash: await f.taker.sendTransaction({ to: f.contracts.allowanceHolder, data }) });
          const [settled] = parseEventLogs({ abi: takerExactOutputRouterAbi, logs: receipt.logs, eventName: "SwapSettled" });
          expect(settled?.args.sellAmount, `router vs SDK input for ${JSON.stringify(plan)}`).to.equal(needed);
          expect(takerBefore - (await balanceOf(f, route.sellToken, f.taker.account.address)), "the taker paid exactly that input").to.equal(needed);
          const received = (await balanceOf(f, route.buyToken, f.recipient.account.address)) - recipientBefore;
          expect(received).to.equal(settled!.args.buyAmount);
          expect(received >= buyAmount, "at least the output").to.equal(true);
          seen.settled++;
          if (route.venues.has("v3")) seen.v3++;
          if (route.actions.some((action) => action.type === "split")) seen.split++;
        }),
        fuzzRuns(15),
      );
      console.log(`      exact-output mixed routes: ${seen.settled} settled (V3 ${seen.v3}, SPLIT ${seen.split}), ${seen.refused} refused`);
      expect(seen.settled, "routes settled").to.be.greaterThan(0);
    });
  });

  describe("exact-output witnesses against ethers' EIP-712 implementation", () => {
    it("ExactOutputWitness and GaslessExactOutputWitness struct hashes equal ethers' hashStruct for arbitrary orders", async () => {
      const f = await loadFixture(harnessFixture);
      await fc.assert(
        fc.asyncProperty(exactOutputOrder, word, address, async (o, relayerFee, relayerFeeRecipient) => {
          expect(await f.harness.read.hashExactOutputWitness([o])).to.equal(TypedDataEncoder.hashStruct("ExactOutputWitness", exactOutputWitnessTypes, witnessOf(o)));
          expect(await f.harness.read.hashGaslessExactOutputWitness([o, relayerFee, relayerFeeRecipient])).to.equal(
            TypedDataEncoder.hashStruct("GaslessExactOutputWitness", gaslessExactOutputWitnessTypes, { ...witnessOf(o), relayerFee, relayerFeeRecipient }),
          );
        }),
        fuzzRuns(40),
      );
    });

    it("the SDK's exact-output Permit2 typed data hashes to the same digest in viem and in ethers, and permits the maximum (plus the fee)", () => {
      fc.assert(
        fc.property(exactOutputOrder, word, word, address, address, (o, nonce, fee, relayerFeeRecipient, router) => {
          const relayerFee = fee % (maxUint256 - o.maxSellAmount + 1n);
          const common = { chainId: 4663, permit2: "0x000000000022D473030F116dDEE9F6B43aC78BA3" as Address, router, order: o, nonce };
          const permit = buildExactOutputPermitTypedData(common);
          const gasless = buildGaslessExactOutputPermitTypedData({ ...common, relayerFee, relayerFeeRecipient });
          expect([permit.message.permitted.amount, gasless.message.permitted.amount]).to.deep.equal([o.maxSellAmount, o.maxSellAmount + relayerFee]);
          for (const typedData of [permit, gasless]) {
            const { domain, types, message } = forEthers(typedData as never);
            expect(TypedDataEncoder.hash(domain, types, message)).to.equal(hashTypedData(typedData as never));
          }
        }),
        fuzzRuns(100),
      );
    });

    it("a gasless exact-output order signed by an ethers wallet, not viem, is accepted by Permit2 and settles on the feature-3 router", async () => {
      const f = await loadFixture(harnessFixture);
      await f.publicClient.waitForTransactionReceipt({ hash: await f.taker.writeContract({ address: f.token("USDC"), abi: erc20Abi, functionName: "approve", args: [f.contracts.permit2, maxUint256] }) });
      const buyAmount = parseUnits("0.4", 18);
      const route = await exactOutputTestRoute(f, [["USDC", "WETH"]], buyAmount);
      const order = exactOutputOrderFor(route, buyAmount, route.amountIn + parseUnits("10", 6), f.recipient.account.address, await now(f), `0x${"e8".repeat(32)}`);
      const fee = { relayerFee: parseUnits("1", 6), relayerFeeRecipient: f.feeRecipient.account.address };
      const nonce = NONCE_BASE + 1n;
      const router = f.contracts.gaslessSwapRouter;
      const typedData = buildGaslessExactOutputPermitTypedData({ chainId: 4663, permit2: f.contracts.permit2, router, order, nonce, ...fee });
      const { domain, types, message } = forEthers(typedData as never);
      const key = f.devKeys.find((account) => account.address.toLowerCase() === f.taker.account.address.toLowerCase())!.privateKey;
      const signature = (await new Wallet(key).signTypedData(domain as never, types, message)) as Hex;
      const { data, signatureOffset } = encodeSwapGaslessExactOutput(order, f.taker.account.address, fee, nonce);
      const before = await balanceOf(f, order.sellToken, f.taker.account.address);
      const receipt = await f.publicClient.waitForTransactionReceipt({ hash: await f.relayer.sendTransaction({ to: router, data: patchSignature(data, signatureOffset, signature) }) });
      const [settled] = parseEventLogs({ abi: gaslessExactOutputRouterAbi, logs: receipt.logs, eventName: "SwapSettled" });
      expect(settled!.args.sellAmount).to.equal(route.amountIn);
      expect(before - (await balanceOf(f, order.sellToken, f.taker.account.address))).to.equal(route.amountIn + fee.relayerFee);
    });
  });
});
