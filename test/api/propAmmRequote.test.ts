import { expect } from "chai";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { erc20Abi, getAddress, parseUnits, type Address } from "viem";
import { propAmmAbi } from "../../sdk/abis/propAmmAbi";
import { closeSharedQuoteApis, quoteReady } from "../fixtures/quoteApi";

after(closeSharedQuoteApis);

const NOT_PROPAMM = "uniswap-v2,uniswap-v3,forkswap-v3,uniswap-v4";

describe("GET /quote re-quotes the chosen route's propAMM hops exactly before answering (api/quote/venues/propAmmRequote.ts)", () => {
  for (const [label, sellSymbol, buySymbol, amount] of [
    ["token0 in (a native sell, ETH → USDC)", "ETH", "USDC", "1.37"],
    ["token1 in (USDC → WETH)", "USDC", "WETH", "2345.678901"],
  ] as const) {
    it(`${label}: buy_amount is getAmountOut at the sold amount at the quote's block, not the ladder's chord below it, and the taker receives exactly it`, async () => {
      const { f, api } = await loadFixture(quoteReady);
      const propAmm = f.propAmms?.find((entry) => entry.name === "dev-propamm");
      expect(propAmm, "the devnet lists dev-propamm").to.not.equal(undefined);
      const native = sellSymbol === "ETH";
      const [sell, buy] = [f.token(native ? "WETH" : sellSymbol), f.token(buySymbol)];
      const decimals = await f.publicClient.readContract({ address: sell, abi: erc20Abi, functionName: "decimals" });
      const sellAmount = parseUnits(amount, decimals);
      const { status, body } = await api.quote({ sell_token: native ? "ETH" : sell, buy_token: buy, sell_amount: sellAmount, taker: f.taker.account.address, settlement: "allowance", excluded_sources: NOT_PROPAMM });
      expect(status, JSON.stringify(body)).to.equal(200);
      const hops = body!.route.hops as { source: string; pool: Address; amount_out: string }[];
      expect(hops.map((hop) => hop.source)).to.deep.equal(["dev-propamm"]);
      const zeroForOne = getAddress(sell) === getAddress(propAmm!.token0);
      const exact = await f.publicClient.readContract({ address: propAmm!.address, abi: propAmmAbi, functionName: "getAmountOut", args: [zeroForOne, sellAmount], blockNumber: BigInt(body!.block_number) });
      expect(BigInt(body!.buy_amount)).to.equal(exact);
      expect(BigInt(hops[0]!.amount_out)).to.equal(exact);

      if (body!.issues.allowance !== null) {
        await f.publicClient.waitForTransactionReceipt({ hash: await f.taker.writeContract({ address: sell, abi: erc20Abi, functionName: "approve", args: [body!.issues.allowance.spender, sellAmount] }) });
      }
      const before = await f.publicClient.readContract({ address: buy, abi: erc20Abi, functionName: "balanceOf", args: [f.taker.account.address] });
      const receipt = await f.publicClient.waitForTransactionReceipt({ hash: await f.taker.sendTransaction({ to: body!.tx.to, data: body!.tx.data, value: BigInt(body!.tx.value) }) });
      expect(receipt.status).to.equal("success");
      const after = await f.publicClient.readContract({ address: buy, abi: erc20Abi, functionName: "balanceOf", args: [f.taker.account.address] });
      expect(after - before).to.equal(BigInt(body!.buy_amount));
    });
  }
});
