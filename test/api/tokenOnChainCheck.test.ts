import { expect } from "chai";
import hre from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { parseEther } from "viem";
import { createChainClient } from "../../api/chains/loadChains";
import { checkTokenOnChain } from "../../api/tokens/tokenOnChainCheck";
import { startChainServer } from "../../scripts/devnet/chainServer";
import { settlementFixture } from "../fixtures/settlementFixture";
import { fixtureManifest } from "../fixtures/tradingApi";
import { newDevToken } from "../fixtures/newDevToken";

describe("on-chain token checks", () => {
  it("run over the node's HTTP JSON-RPC with batching, as the API's chain client reads, and record the deepest pool", async () => {
    const f = await loadFixture(settlementFixture);
    const manifest = await fixtureManifest(f);
    const token = await newDevToken(f, { symbol: "BATCH", decimals: 6, wethLiquidity: "2" });
    const server = await startChainServer(hre, "127.0.0.1", 0);
    try {
      const client = createChainClient(4663, server.url);
      const bases = manifest.tokens.map((candidate) => candidate.address);
      const result = await checkTokenOnChain({ client, manifest, token: token.address, bases, minLiquidityWei: parseEther("1") });
      expect(result).to.deep.include({ ok: true, symbol: "BATCH", decimals: 6, liquidityWei: parseEther("2") });
      expect(result.ok && result.pool.address).to.equal(token.pair);

      const strict = await checkTokenOnChain({ client, manifest, token: token.address, bases, minLiquidityWei: parseEther("3") });
      expect(strict.ok).to.equal(false);
      const router = await checkTokenOnChain({ client, manifest, token: manifest.contracts.takerSwapRouter, bases, minLiquidityWei: 0n });
      expect(router).to.deep.equal({ ok: false, reason: "does not answer ERC20 decimals()", unreadable: false });
    } finally {
      await server.close();
    }
  });

  it("values the known side of a pool with another manifest token at that token's spot price against WETH", async () => {
    const f = await loadFixture(settlementFixture);
    const manifest = await fixtureManifest(f);
    // The devnet's WETH/USDC pool is seeded at 3,000 USDC per WETH, so 6,000 USDC are worth 2 WETH.
    const token = await newDevToken(f, { symbol: "VIAUSDC", pairWith: { symbol: "USDC", amount: "6000" } });
    const bases = manifest.tokens.map((candidate) => candidate.address);
    const result = await checkTokenOnChain({ client: f.publicClient, manifest, token: token.address, bases, minLiquidityWei: parseEther("1") });
    expect(result).to.deep.include({ ok: true, liquidityWei: parseEther("2") });
    expect(result.ok && result.pool.address).to.equal(token.pair);

    const wethOnly = await checkTokenOnChain({ client: f.publicClient, manifest, token: token.address, bases: [manifest.contracts.weth], minLiquidityWei: 0n });
    expect(wethOnly).to.deep.equal({ ok: false, reason: "has no Uniswap V2 pool with a supported token that is priced against WETH", unreadable: false });
  });
});
