import { expect } from "chai";
import hre from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { erc20Abi, getContract, getContractAddress, maxUint256, parseEther, type Address, type Hex } from "viem";
import { encodeRouteActions, encodeSwapExactOutputNative, encodeSwapExactOutputWithAllowance, encodeSwapNative, encodeSwapWithAllowance, NATIVE_TOKEN, type RouteAction, type RouteHopAction } from "../../sdk";
import { propAmmAllowlistAbi } from "../../sdk/abis/propAmmAllowlistAbi";
import { settlementFixture } from "../fixtures/settlementFixture";
import { v3Market } from "../fixtures/v3Market";
import { balanceOf } from "../fixtures/testRoute";
import { expectRevert } from "../helpers/expectRevert";

const QUOTE_ID: Hex = `0x${"5b".repeat(32)}`;

/**
 * The devnet as deployed, with LINK (a real ERC20 that trades on V2 and V3 against WETH) allowlisted
 * as a propAMM pair by the registry's administrator: from then on no route may name LINK as a token.
 */
async function linkListedAsPair() {
  const f = await settlementFixture();
  const address = f.contracts.propAmmAllowlist;
  if (address === undefined) throw new Error("expected the devnet's propAMM allowlist");
  const allowlist = getContract({ address, abi: propAmmAllowlistAbi, client: { public: f.publicClient, wallet: f.deployer } });
  const link = f.token("LINK");
  await f.publicClient.waitForTransactionReceipt({ hash: await allowlist.write.add([link, f.token("DAI"), f.token("USDT")], { account: f.deployer.account }) });
  const venue = f.v3Venues.findIndex((candidate) => candidate.name === "uniswap-v3");
  if (venue < 0) throw new Error("expected the uniswap-v3 venue");
  return { ...f, allowlist, link, v3Venue: venue };
}

type Market = Awaited<ReturnType<typeof linkListedAsPair>>;

/** The V3 market (the taker has approved the allowance holder for USDC) with LINK allowlisted as a pair. */
async function v3MarketLinkListed() {
  const f = await v3Market();
  const address = f.contracts.propAmmAllowlist;
  if (address === undefined) throw new Error("expected the devnet's propAMM allowlist");
  const allowlist = getContract({ address, abi: propAmmAllowlistAbi, client: { public: f.publicClient, wallet: f.deployer } });
  const link = f.token("LINK");
  await f.publicClient.waitForTransactionReceipt({ hash: await allowlist.write.add([link, f.token("DAI"), f.token("USDT")], { account: f.deployer.account }) });
  return { ...f, allowlist, link };
}

/** Ten minutes past the next block: a block is mined first, so a time jump an earlier test left pending counts. */
async function deadline(f: Pick<Market, "publicClient">): Promise<bigint> {
  await hre.network.provider.request({ method: "evm_mine", params: [] });
  return (await f.publicClient.getBlock()).timestamp + 600n;
}

/** Sells 1 ETH along `actions` (which start with WRAP) for `buyToken`, through the current feature-2 router. */
async function sellEth(f: Market, buyToken: Address, actions: RouteAction[]) {
  const order = { sellToken: NATIVE_TOKEN, sellAmount: parseEther("1"), buyToken, minBuyAmount: 1n, recipient: f.recipient.account.address, deadline: await deadline(f), quoteId: QUOTE_ID, actions: encodeRouteActions(actions) };
  return f.taker.sendTransaction({ to: f.routerAddress, data: encodeSwapNative(order), value: order.sellAmount });
}

const v2 = (pair: Address, tokenOut: Address): RouteHopAction => ({ type: "swapV2", pair, tokenOut, feeBps: 30 });

/** WETH → LINK on V2, LINK → WETH on V3 (uniswap-v3 0.30 %): LINK is only a middle token. */
function throughLink(f: Pick<Market, "pool" | "contracts" | "link" | "v3Venue">): RouteAction[] {
  return [{ type: "wrap" }, v2(f.pool("LINK", "WETH"), f.link), { type: "swapV3", tokenOut: f.contracts.weth, fee: 3000, venue: f.v3Venue }];
}

/** Deploys a contract from `f.stranger` at an address whose last byte is `target`'s (a filter collision). */
async function deployCollidingWith(f: Market, target: Address): Promise<Address> {
  const from = f.stranger.account.address;
  let nonce = BigInt(await f.publicClient.getTransactionCount({ address: from }));
  while (getContractAddress({ from, nonce }).slice(-2).toLowerCase() !== target.slice(-2).toLowerCase()) nonce++;
  await hre.network.provider.request({ method: "hardhat_setNonce", params: [from, `0x${nonce.toString(16)}`] });
  const token = await hre.viem.deployContract("DevPlainToken", ["Collider", "COL", 18, from], { client: { public: f.publicClient, wallet: f.stranger } });
  expect(token.address.slice(-2).toLowerCase()).to.equal(target.slice(-2).toLowerCase());
  return token.address;
}

describe("an allowlisted propAMM pair is never a routable token (on chain, every venue and settlement)", () => {
  it("settles a route through LINK before LINK is allowlisted as a pair (the refusals below are the rule's)", async () => {
    const f = await loadFixture(settlementFixture);
    const route = throughLink({ ...f, link: f.token("LINK"), v3Venue: f.v3Venues.findIndex((candidate) => candidate.name === "uniswap-v3") });
    const order = { sellToken: NATIVE_TOKEN, sellAmount: parseEther("1"), buyToken: f.contracts.weth, minBuyAmount: 1n, recipient: f.recipient.account.address, deadline: await deadline(f), quoteId: QUOTE_ID, actions: encodeRouteActions(route) };
    const before = await balanceOf(f, f.contracts.weth, f.recipient.account.address);
    await f.publicClient.waitForTransactionReceipt({ hash: await f.taker.sendTransaction({ to: f.routerAddress, data: encodeSwapNative(order), value: order.sellAmount }) });
    expect((await balanceOf(f, f.contracts.weth, f.recipient.account.address)) > before).to.equal(true);
  });

  it("refuses the pair as a V2 hop's output token in the middle of a route, and as the buy token", async () => {
    const f = await loadFixture(linkListedAsPair);
    await expectRevert(sellEth(f, f.contracts.weth, throughLink(f)), "SwapTokenIsPropAmm", [f.link]);
    await expectRevert(sellEth(f, f.link, [{ type: "wrap" }, v2(f.pool("LINK", "WETH"), f.link)]), "SwapTokenIsPropAmm", [f.link]);
  });

  it("refuses the pair as a V3 hop's output token", async () => {
    const f = await loadFixture(linkListedAsPair);
    const actions: RouteAction[] = [{ type: "wrap" }, { type: "swapV3", tokenOut: f.link, fee: 3000, venue: f.v3Venue }, v2(f.pool("LINK", "WETH"), f.contracts.weth)];
    await expectRevert(sellEth(f, f.contracts.weth, actions), "SwapTokenIsPropAmm", [f.link]);
  });

  it("refuses the pair as a token inside a split leg, even when the other leg avoids it", async () => {
    const f = await loadFixture(linkListedAsPair);
    const [weth, usdc] = [f.contracts.weth, f.token("USDC")];
    const linkPair = f.pool("LINK", "WETH");
    const usdcPair = f.pool("WETH", "USDC");
    const actions: RouteAction[] = [
      { type: "wrap" },
      { type: "split", legs: [{ shareBps: 5000, hops: [v2(usdcPair, usdc), { type: "swapV3", tokenOut: weth, fee: 3000, venue: f.v3Venue }] }, { shareBps: 5000, hops: [v2(linkPair, f.link), { type: "swapV3", tokenOut: weth, fee: 3000, venue: f.v3Venue }] }] },
    ];
    await expectRevert(sellEth(f, weth, actions), "SwapTokenIsPropAmm", [f.link]);
  });

  it("refuses the pair as the sell token through the allowance holder, and as an exact-output buy token", async () => {
    const f = await loadFixture(linkListedAsPair);
    const [link, weth] = [f.link, f.contracts.weth];
    // The devnet grants the taker LINK; approving the holder is all that is missing.
    expect((await balanceOf(f, link, f.taker.account.address)) > 0n).to.equal(true);
    await f.publicClient.waitForTransactionReceipt({ hash: await f.taker.writeContract({ address: link, abi: erc20Abi, functionName: "approve", args: [f.contracts.allowanceHolder, maxUint256] }) });
    const sell = { sellToken: link, sellAmount: 10n ** 18n, buyToken: weth, minBuyAmount: 1n, recipient: f.recipient.account.address, deadline: await deadline(f), quoteId: QUOTE_ID, actions: encodeRouteActions([v2(f.pool("LINK", "WETH"), weth)]) };
    await expectRevert(f.taker.sendTransaction({ to: f.contracts.allowanceHolder, data: encodeSwapWithAllowance(sell, f.routerAddress) }), "SwapTokenIsPropAmm", [link]);
    const exactOut = { sellToken: NATIVE_TOKEN, maxSellAmount: parseEther("1"), buyToken: link, buyAmount: 10n ** 18n, recipient: f.recipient.account.address, deadline: await deadline(f), quoteId: QUOTE_ID, actions: encodeRouteActions([{ type: "wrap" }, v2(f.pool("LINK", "WETH"), link)]) };
    await expectRevert(f.taker.sendTransaction({ to: f.routerAddress, data: encodeSwapExactOutputNative(exactOut), value: exactOut.maxSellAmount }), "SwapTokenIsPropAmm", [link]);
  });

  it("routes through LINK again once the administrator takes it off the allowlist (its filter bit clears)", async () => {
    const f = await loadFixture(linkListedAsPair);
    const bit = 1n << BigInt(Number.parseInt(f.link.slice(-2), 16));
    expect((await f.allowlist.read.pairFilter()) & bit).to.equal(bit);
    await f.publicClient.waitForTransactionReceipt({ hash: await f.allowlist.write.remove([f.link], { account: f.deployer.account }) });
    expect(await f.allowlist.read.isPair([f.link])).to.equal(false);
    const before = await balanceOf(f, f.contracts.weth, f.recipient.account.address);
    await f.publicClient.waitForTransactionReceipt({ hash: await sellEth(f, f.contracts.weth, throughLink(f)) });
    expect((await balanceOf(f, f.contracts.weth, f.recipient.account.address)) > before).to.equal(true);
  });

  it("settles a token whose filter bit an allowlisted pair shares (the exact isPair check answers), and keeps a shared bit until its last pair goes", async () => {
    const f = await loadFixture(linkListedAsPair);
    await f.publicClient.waitForTransactionReceipt({ hash: await f.allowlist.write.remove([f.link], { account: f.deployer.account }) });
    // Two pairs whose addresses end in LINK's last byte: LINK's bit is set, LINK is no pair.
    const first = await deployCollidingWith(f, f.link);
    const second = await deployCollidingWith(f, f.link);
    for (const pair of [first, second]) {
      await f.publicClient.waitForTransactionReceipt({ hash: await f.allowlist.write.add([pair, f.token("DAI"), f.token("USDT")], { account: f.deployer.account }) });
    }
    const bit = 1n << BigInt(Number.parseInt(f.link.slice(-2), 16));
    expect((await f.allowlist.read.pairFilter()) & bit).to.equal(bit);
    const before = await balanceOf(f, f.contracts.weth, f.recipient.account.address);
    await f.publicClient.waitForTransactionReceipt({ hash: await sellEth(f, f.contracts.weth, throughLink(f)) });
    expect((await balanceOf(f, f.contracts.weth, f.recipient.account.address)) > before).to.equal(true);
    await f.publicClient.waitForTransactionReceipt({ hash: await f.allowlist.write.remove([first], { account: f.deployer.account }) });
    expect((await f.allowlist.read.pairFilter()) & bit).to.equal(bit);
    await f.publicClient.waitForTransactionReceipt({ hash: await f.allowlist.write.remove([second], { account: f.deployer.account }) });
    expect((await f.allowlist.read.pairFilter()) & bit).to.equal(0n);
  });

  it("refuses the pair as a middle or buy token of an exact-output route run backwards (V3 hops, a split), and settles the same route once the pair is removed", async () => {
    const f = await loadFixture(v3MarketLinkListed);
    const [usdc, weth, link] = [f.token("USDC"), f.contracts.weth, f.link];
    const exactOut = async (buyToken: Address, buyAmount: bigint, actions: RouteAction[]) => {
      const order = { sellToken: usdc, maxSellAmount: 10_000n * 10n ** 6n, buyToken, buyAmount, recipient: f.recipient.account.address, deadline: await deadline(f), quoteId: QUOTE_ID, actions: encodeRouteActions(actions) };
      return f.taker.sendTransaction({ to: f.contracts.allowanceHolder, data: encodeSwapExactOutputWithAllowance(order, f.routerAddress) });
    };
    // USDC →(V2) WETH →(V3 0.30 %) LINK →(V2) WETH: LINK only in the middle; the V3 hop makes the executor run the route backwards.
    const throughLinkBackwards: RouteAction[] = [v2(f.pool("WETH", "USDC"), weth), { type: "swapV3", tokenOut: link, fee: 3000, venue: 0 }, v2(f.pool("LINK", "WETH"), weth)];
    // A split (an exact-output route's only swaps): one leg USDC →(V2) WETH →(V3 0.30 %) LINK →(V2) WETH, the other USDC →(V3 0.30 %) WETH.
    const splitThroughLink: RouteAction[] = [
      {
        type: "split",
        legs: [
          { shareBps: 5000, hops: [v2(f.pool("WETH", "USDC"), weth), { type: "swapV3", tokenOut: link, fee: 3000, venue: 0 }, v2(f.pool("LINK", "WETH"), weth)] },
          { shareBps: 5000, hops: [{ type: "swapV3", tokenOut: weth, fee: 3000, venue: 0 }] },
        ],
      },
    ];
    const buyLink: RouteAction[] = [v2(f.pool("WETH", "USDC"), weth), { type: "swapV3", tokenOut: link, fee: 3000, venue: 0 }];
    const wethOut = parseEther("0.1");
    await expectRevert(exactOut(weth, wethOut, throughLinkBackwards), "SwapTokenIsPropAmm", [link]);
    await expectRevert(exactOut(weth, wethOut, splitThroughLink), "SwapTokenIsPropAmm", [link]);
    await expectRevert(exactOut(link, parseEther("1"), buyLink), "SwapTokenIsPropAmm", [link]);

    await f.publicClient.waitForTransactionReceipt({ hash: await f.allowlist.write.remove([link], { account: f.deployer.account }) });
    for (const [buyToken, buyAmount, actions] of [[weth, wethOut, throughLinkBackwards], [weth, wethOut, splitThroughLink], [link, parseEther("1"), buyLink]] as const) {
      const before = await balanceOf(f, buyToken, f.recipient.account.address);
      await f.publicClient.waitForTransactionReceipt({ hash: await exactOut(buyToken, buyAmount, [...actions]) });
      expect((await balanceOf(f, buyToken, f.recipient.account.address)) - before).to.equal(buyAmount);
    }
  });
});
