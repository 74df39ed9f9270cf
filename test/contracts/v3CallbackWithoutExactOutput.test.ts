import { expect } from "chai";
import hre from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { concatHex, getAddress, numberToHex, parseEther } from "viem";
import { balanceOf } from "../fixtures/testRoute";
import { v3Market } from "../fixtures/v3Market";
import { expectRevert } from "../helpers/expectRevert";

/**
 * The V3 venue module on its own (UniswapV3HopsHarness), as a router without exact output inherits it:
 * the real pool of the running hop calling back with anything but the module's exact-input encoding is
 * an exact-output callback, which only ExactOutputExecutor pays. Without it the module refuses to pay.
 */
describe("UniswapV3Hops without exact output refuses the pool's exact-output callback (SwapV3CallbackRefused)", () => {
  it("the real USDC/WETH pool, called back during its own hop, is refused and nothing moves", async () => {
    const f = await loadFixture(v3Market);
    const [usdc, weth] = [f.token("USDC"), f.contracts.weth];
    const client = { client: { public: f.publicClient, wallet: f.deployer } };
    const harness = await hre.viem.deployContract("UniswapV3HopsHarness", [weth, f.contracts.routerRegistry, [{ factory: f.uniswap.factory, poolInitCodeHash: f.uniswap.poolInitCodeHash }]], client);
    const hop = concatHex(["0x06", weth, numberToHex(3000, { size: 3 }), "0x00"]);
    const [poolUsdc, poolWeth] = [await balanceOf(f, usdc, f.usdcWeth), await balanceOf(f, weth, f.usdcWeth)];
    // The pool's address is the one the module computes: the callback passes the caller check, then is refused as exact output.
    await expectRevert(harness.write.exactOutputSwap([hop, usdc, parseEther("1"), f.recipient.account.address, "0x01"], { account: f.deployer.account }), "SwapV3CallbackRefused", [getAddress(f.usdcWeth)]);
    expect(await balanceOf(f, usdc, f.usdcWeth)).to.equal(poolUsdc);
    expect(await balanceOf(f, weth, f.usdcWeth)).to.equal(poolWeth);
  });
});
