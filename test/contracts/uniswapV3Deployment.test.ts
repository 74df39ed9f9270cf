import { expect } from "chai";
import hre from "hardhat";
import { getAddress, keccak256, parseUnits } from "viem";
import { hardhatClients } from "../../scripts/deploy/hardhatClients";
import { UNISWAP_V3_POOL_INIT_CODE_HASH, alignedTick, createV3Pool, deployUniswapV3, mintV3Position, sqrtPriceX96Of, uniswapV3Artifacts } from "../../scripts/deploy/uniswapV3";
import { v3PoolAddress } from "../../sdk";
import { uniswapArtifacts } from "../../scripts/deploy/uniswapArtifacts";
import { deployBytecode } from "../../scripts/deploy/writeAndWait";

describe("Uniswap V3 from its npm builds", () => {
  it("deploys the canonical pool code, so pools sit where Uniswap's SDK computes them, and QuoterV2 prices a swap across them", async () => {
    const clients = await hardhatClients(hre);
    const deployer = clients.walletClients[0]!;
    const client = { public: clients.publicClient, wallet: deployer };
    expect(keccak256(uniswapV3Artifacts.pool().bytecode)).to.equal(UNISWAP_V3_POOL_INIT_CODE_HASH);

    const weth = await deployBytecode(clients, deployer, uniswapArtifacts.weth9());
    const a = await hre.viem.deployContract("DevToken", ["A", "A", 18, deployer.account.address], { client });
    const b = await hre.viem.deployContract("DevToken", ["B", "B", 6, deployer.account.address], { client });
    for (const token of [a, b]) await token.write.mint([deployer.account.address, parseUnits("1000000000", 18)]);
    const v3 = await deployUniswapV3(clients, deployer, weth, [{ fee: 2500, tickSpacing: 50 }]);

    // 1 A (18 decimals) = 2 B (6 decimals): raw price of token1 per token0 depends on the order.
    const [amountA, amountB] = [parseUnits("1", 18), parseUnits("2", 6)];
    const aFirst = a.address.toLowerCase() < b.address.toLowerCase();
    const sqrtPrice = aFirst ? sqrtPriceX96Of(amountB, amountA) : sqrtPriceX96Of(amountA, amountB);
    const pool = await createV3Pool(clients, deployer, v3, a.address, b.address, 2500, sqrtPrice);
    const factoryPool = await clients.publicClient.readContract({ address: v3.factory, abi: uniswapV3Artifacts.factory().abi, functionName: "getPool", args: [a.address, b.address, 2500] });
    expect(getAddress(factoryPool as string)).to.equal(pool);
    expect(v3PoolAddress(v3.factory, v3.poolInitCodeHash, b.address, a.address, 2500)).to.equal(pool);

    const center = alignedTick(sqrtPrice, 50);
    await mintV3Position(clients, deployer, v3, { tokenA: a.address, tokenB: b.address, fee: 2500, tickLower: center - 500, tickUpper: center + 500, amountA: parseUnits("1000", 18), amountB: parseUnits("2000", 6) });
    await mintV3Position(clients, deployer, v3, { tokenA: a.address, tokenB: b.address, fee: 2500, tickLower: center - 5000, tickUpper: center + 5000, amountA: parseUnits("10000", 18), amountB: parseUnits("20000", 6) });

    const { result } = await clients.publicClient.simulateContract({
      address: v3.quoterV2,
      abi: uniswapV3Artifacts.quoterV2().abi,
      functionName: "quoteExactInputSingle",
      args: [{ tokenIn: a.address, tokenOut: b.address, amountIn: parseUnits("3000", 18), fee: 2500, sqrtPriceLimitX96: 0n }],
    });
    const [amountOut, , ticksCrossed] = result as readonly [bigint, bigint, number, bigint];
    // 3,000 A is more than the narrow position holds on either side (at most 2,000 B, or 1,000 A): whichever
    // way the tokens sort, the price leaves it, crossing its edge, and the wide position fills the rest.
    expect(amountOut > parseUnits("2000", 6) && amountOut < parseUnits("6000", 6)).to.equal(true);
    expect(ticksCrossed).to.be.greaterThan(0);
  });
});
