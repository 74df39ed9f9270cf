import { expect } from "chai";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { parseUnits, type Hex } from "viem";
import type { SettlementFixture } from "../fixtures/settlementFixture";
import { closeSharedQuoteApis, quoteReady, type QuoteApi } from "../fixtures/quoteApi";
import { balanceOf } from "../fixtures/testRoute";
import { chainControl, moveDevnetPool } from "../fixtures/poolMoves";
import { v2OnlySources } from "../fixtures/onlySources";

after(closeSharedQuoteApis);

// These tests move V2 pairs and follow them: their quotes route over Uniswap V2 alone (v2OnlySources).

/** A native sell needs no approval or signature: quote it for the taker, send it, return what arrived and the quote. */
async function quoteAndSwap(f: SettlementFixture, api: QuoteApi, buySymbol: string, ether: string) {
  const { status, body } = await api.quote({ sell_token: "ETH", buy_token: buySymbol, sell_amount: parseUnits(ether, 18), taker: f.taker.account.address, ...v2OnlySources(f) });
  expect(status, JSON.stringify(body)).to.equal(200);
  expect(BigInt(body!.block_number), "priced at the latest block").to.equal(await f.publicClient.getBlockNumber());
  const before = await balanceOf(f, f.token(buySymbol), f.taker.account.address);
  const hash = await f.taker.sendTransaction({ to: body!.tx.to, data: body!.tx.data as Hex, value: BigInt(body!.tx.value) });
  expect((await f.publicClient.waitForTransactionReceipt({ hash })).status).to.equal("success");
  return { received: (await balanceOf(f, f.token(buySymbol), f.taker.account.address)) - before, quote: body! };
}

describe("GET /quote on pool state followed from events", () => {
  it("after other parties' swaps, each quote pays exactly its buy_amount", async () => {
    const { f, api } = await loadFixture(quoteReady);
    const rounds = [
      { move: ["WETH", "USDC", "WETH", "40"], buy: "USDC" },
      { move: ["WETH", "USDC", "USDC", "90000"], buy: "USDC" },
      { move: ["USDC", "DAI", "DAI", "20000"], buy: "DAI" },
      { move: ["LINK", "WETH", "LINK", "3000"], buy: "LINK" },
    ] as const;
    for (const { move, buy } of rounds) {
      const [a, b, sell, amount] = move;
      await moveDevnetPool(f, a, b, sell, amount);
      const { received, quote } = await quoteAndSwap(f, api, buy, "2");
      expect(received, `${move.join(" ")} then ETH → ${buy}`).to.equal(BigInt(quote.buy_amount));
    }
  });

  it("after a reorg, quotes are priced at the new chain's state, never at the orphaned blocks'", async () => {
    const { f, api } = await loadFixture(quoteReady);
    const fork = await chainControl.snapshot();
    // Fork A: a large sale of WETH into WETH/USDC makes ETH cheap; a quote is priced on it.
    await moveDevnetPool(f, "WETH", "USDC", "WETH", "300");
    const onA = await api.quote({ sell_token: "ETH", buy_token: "USDC", sell_amount: parseUnits("2", 18), taker: f.taker.account.address, ...v2OnlySources(f) });
    expect(onA.status).to.equal(200);

    // Fork B replaces it: the pool is back where it was, and the chain is taller than fork A.
    await chainControl.revert(fork);
    await moveDevnetPool(f, "USDC", "DAI", "USDC", "1000");
    await chainControl.mine(3);
    const { received, quote: onB } = await quoteAndSwap(f, api, "USDC", "2");
    expect(BigInt(onB.block_number) > BigInt(onA.body!.block_number)).to.equal(true);
    expect(received, "the quote pays exactly what fork B's pools pay").to.equal(BigInt(onB.buy_amount));
    expect(BigInt(onB.buy_amount) > BigInt(onA.body!.buy_amount), "fork A's cheap ETH is gone").to.equal(true);
  });
});
