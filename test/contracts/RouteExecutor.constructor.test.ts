import { expect } from "chai";
import hre from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { zeroAddress, type Address } from "viem";
import { UNISWAP_V2_PAIR_INIT_CODE_HASH } from "../../scripts/deploy/uniswapArtifacts";
import { settlementFixture } from "../fixtures/settlementFixture";
import { expectRevert } from "../helpers/expectRevert";

/**
 * A router's constructor checks run in two base contracts (RouterFunds: WETH and the registry;
 * V2Hops: the venue) under RouteExecutor. Which error a bad deployment gets, and which values the
 * router keeps, must not depend on that split: every zero dependency is refused before the pool fee.
 */

const venue = (factory: Address, feeBps = 30) => ({ factory, feeBps, pairInitCodeHash: UNISWAP_V2_PAIR_INIT_CODE_HASH });

describe("RouteExecutor's constructor (RouterFunds and V2Hops)", () => {
  it("refuses any zero dependency with SwapZeroAddress even when the pool fee is impossible too", async () => {
    const f = await loadFixture(settlementFixture);
    const { permit2, allowanceHolder, weth, routerRegistry, uniswapV2Factory } = f.contracts;
    const client = { client: { public: f.publicClient, wallet: f.deployer } };
    const impossibleFee = 10_000;
    for (const args of [
      [permit2, allowanceHolder, zeroAddress, routerRegistry, venue(uniswapV2Factory, impossibleFee)],
      [permit2, allowanceHolder, weth, zeroAddress, venue(uniswapV2Factory, impossibleFee)],
      [permit2, allowanceHolder, weth, routerRegistry, venue(zeroAddress, impossibleFee)],
    ] as const) {
      await expectRevert(hre.viem.deployContract("TakerSwapRouter", [...args], client), "SwapZeroAddress");
    }
    await expectRevert(hre.viem.deployContract("GaslessSwapRouter", [permit2, weth, routerRegistry, venue(zeroAddress, impossibleFee)], client), "SwapZeroAddress");
  });

  it("keeps the WETH, factory and pool fee it was deployed with", async () => {
    const f = await loadFixture(settlementFixture);
    const { permit2, allowanceHolder, weth, routerRegistry, uniswapV2Factory } = f.contracts;
    const client = { client: { public: f.publicClient, wallet: f.deployer } };
    const router = await hre.viem.deployContract("TakerSwapRouter", [permit2, allowanceHolder, weth, routerRegistry, venue(uniswapV2Factory, 25)], client);
    expect((await router.read.weth()).toLowerCase()).to.equal(weth.toLowerCase());
    expect((await router.read.v2Factory()).toLowerCase()).to.equal(uniswapV2Factory.toLowerCase());
    expect(await router.read.v2FeeBps()).to.equal(25n);
    expect(await router.read.allowanceHolder()).to.equal(allowanceHolder);
  });
});
