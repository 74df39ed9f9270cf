import { expect } from "chai";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { getContract, parseEther, type Address, type Hex } from "viem";
import { encodeRouteActions, encodeSwapNative, NATIVE_TOKEN, QuoteCalldataError, refuseAllowlistedPairTokens, routeTokens, type RouteAction } from "../../sdk";
import { propAmmAllowlistAbi } from "../../sdk/abis/propAmmAllowlistAbi";
import { settlementFixture } from "../fixtures/settlementFixture";

const QUOTE_ID = "pair-token-check";

async function linkOnTheMarket() {
  const f = await settlementFixture();
  const address = f.contracts.propAmmAllowlist;
  if (address === undefined) throw new Error("expected the devnet's propAMM allowlist");
  const allowlist = getContract({ address, abi: propAmmAllowlistAbi, client: { public: f.publicClient, wallet: f.deployer } });
  const venue = f.v3Venues.findIndex((candidate) => candidate.name === "uniswap-v3");
  return { ...f, allowlist, link: f.token("LINK"), venue };
}

/** ETH → WETH →(V2) LINK →(V3) WETH, and a split whose second leg runs through LINK. */
function orders(f: Awaited<ReturnType<typeof linkOnTheMarket>>) {
  const weth = f.contracts.weth;
  const throughLink: RouteAction[] = [{ type: "wrap" }, { type: "swapV2", pair: f.pool("LINK", "WETH"), tokenOut: f.link, feeBps: 30 }, { type: "swapV3", tokenOut: weth, fee: 3000, venue: f.venue }];
  const usdc = f.token("USDC");
  const splitThroughLink: RouteAction[] = [
    { type: "wrap" },
    {
      type: "split",
      legs: [
        { shareBps: 5000, hops: [{ type: "swapV2", pair: f.pool("WETH", "USDC"), tokenOut: usdc, feeBps: 30 }] },
        { shareBps: 5000, hops: [{ type: "swapV2", pair: f.pool("LINK", "WETH"), tokenOut: f.link, feeBps: 30 }, { type: "swapV3", tokenOut: weth, fee: 3000, venue: f.venue }, { type: "swapV2", pair: f.pool("WETH", "USDC"), tokenOut: usdc, feeBps: 30 }] },
      ],
    },
  ];
  const avoiding: RouteAction[] = [{ type: "wrap" }, { type: "swapV2", pair: f.pool("WETH", "USDC"), tokenOut: usdc, feeBps: 30 }];
  const order = (buyToken: Address, actions: RouteAction[]): { sellToken: Address; buyToken: Address; actions: Hex } => ({ sellToken: NATIVE_TOKEN, buyToken, actions: encodeRouteActions(actions) });
  return { middle: order(weth, throughLink), split: order(usdc, splitThroughLink), avoiding: order(usdc, avoiding), buyLink: order(f.link, [{ type: "wrap" }, { type: "swapV2", pair: f.pool("LINK", "WETH"), tokenOut: f.link, feeBps: 30 }]) };
}

describe("The SDK refuses a quote whose route names a token the router's propAMM allowlist holds as a pair", () => {
  it("lists a route's ERC20 tokens once each, split legs included, without the native placeholder", async () => {
    const f = await loadFixture(linkOnTheMarket);
    const { split } = orders(f);
    expect(routeTokens(split)).to.have.members([f.token("USDC").toLowerCase(), f.contracts.weth.toLowerCase(), f.link.toLowerCase()]);
  });

  it("passes every route while LINK is no pair, refuses each route naming LINK once the registry lists it (middle, split leg, buy token), and passes again once it is removed", async () => {
    const f = await loadFixture(linkOnTheMarket);
    const routes = orders(f);
    const check = (order: (typeof routes)["middle"]) => refuseAllowlistedPairTokens(f.publicClient, f.routerAddress, QUOTE_ID, order);
    for (const order of Object.values(routes)) await check(order);

    await f.publicClient.waitForTransactionReceipt({ hash: await f.allowlist.write.add([f.link, f.token("DAI"), f.token("USDT")], { account: f.deployer.account }) });
    for (const order of [routes.middle, routes.split, routes.buyLink]) {
      const refusal = await check(order).then(() => undefined, (error: unknown) => error);
      expect(refusal).to.be.instanceOf(QuoteCalldataError);
      expect((refusal as QuoteCalldataError).field).to.equal("tx.data.order.actions");
      expect((refusal as QuoteCalldataError).message).to.contain(`names ${f.link.toLowerCase()} as a token`).and.to.contain("SwapTokenIsPropAmm");
    }
    await check(routes.avoiding);
    // The router agrees: the same route reverts on chain.
    const value = parseEther("0.01");
    const refused = await f.publicClient.call({ account: f.taker.account, to: f.routerAddress, value, data: encodeSwapNative({ ...routes.middle, sellAmount: value, minBuyAmount: 1n, recipient: f.taker.account.address, deadline: (await f.publicClient.getBlock()).timestamp + 600n, quoteId: `0x${"5c".repeat(32)}` }) }).then(() => "settled", (error: Error) => error.message);
    expect(refused).to.contain("SwapTokenIsPropAmm");

    await f.publicClient.waitForTransactionReceipt({ hash: await f.allowlist.write.remove([f.link], { account: f.deployer.account }) });
    for (const order of Object.values(routes)) await check(order);
  });
});
