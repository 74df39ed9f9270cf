import { expect } from "chai";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { parseUnits, type Address } from "viem";
import { settlementFixture } from "../fixtures/settlementFixture";
import { startQuoteApi, type QuoteApi } from "../fixtures/quoteApi";

const started: QuoteApi[] = [];
after(async () => {
  for (const api of started.splice(0)) await api.close();
});

describe("pools that cannot be read", () => {
  it("a recorded pool with no code (as after a devnet restart) is left out of routing and reported on /health; other quotes still succeed", async () => {
    const f = await loadFixture(settlementFixture);
    const api = await startQuoteApi(f, { defaultQuoteRateLimitPerMinute: 1_000 });
    started.push(api);
    const ghost = "0x00000000000000000000000000000000000a11ce" as Address;
    const deadPool = "0x00000000000000000000000000000000000dead1" as Address;
    const weth = f.token("WETH");
    const [token0, token1] = ghost.toLowerCase() < weth.toLowerCase() ? [ghost, weth] : [weth, ghost];
    await api.store.saveTokenOverride(
      {
        chainId: 4663,
        token: ghost,
        status: "promoted",
        source: "demand",
        symbol: "GHOST",
        decimals: 18,
        pool: { address: deadPool, token0, token1, type: "uniswap-v2", source: "uniswap-v2", feeBps: 30 },
        reason: "test",
        chainRun: api.manifest.deployBlockHash,
        at: api.clock.now(),
      },
      "replace",
    );
    expect(await api.served.jobs.refresh()).to.equal(1);

    const quote = await api.quote({ sell_token: "USDC", buy_token: "DAI", sell_amount: parseUnits("100", 6), taker: f.taker.account.address });
    expect(quote.status, JSON.stringify(quote.body)).to.equal(200);
    const ghostQuote = await api.quote({ sell_token: "GHOST", buy_token: "WETH", sell_amount: parseUnits("1", 18), taker: f.taker.account.address });
    expect(ghostQuote.status).to.equal(400);
    expect(ghostQuote.body).to.deep.include({ code: "no_route" });

    const health = await api.get("/health", {}, null);
    expect(health.status).to.equal(200);
    expect(health.body!.status).to.equal("ok");
    expect(health.body!.unreadable_pools).to.have.length(1);
    expect(health.body!.unreadable_pools[0]).to.include({ chain_id: 4663, pool: deadPool.toLowerCase() });
    expect(health.body!.unreadable_pools[0].reason).to.be.a("string").and.not.equal("");
  });

  it("a node that cannot be reached still fails the quote with 503 chain_unavailable", async () => {
    const f = await loadFixture(settlementFixture);
    const api = await startQuoteApi(f);
    started.push(api);
    const { createChainClient } = await import("../../api/chains/loadChains");
    const chain = api.served.registry.get(4663)!;
    // Same chain context, but its client points at a port nothing listens on.
    Object.defineProperty(chain, "client", { value: createChainClient(4663, "http://127.0.0.1:9") });
    const quote = await api.quote({ sell_token: "USDC", buy_token: "DAI", sell_amount: parseUnits("100", 6), taker: f.taker.account.address });
    expect(quote.status).to.equal(503);
    expect(quote.body).to.deep.include({ code: "chain_unavailable" });
  });
});
