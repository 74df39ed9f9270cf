import { expect } from "chai";
import { erc20Abi, parseEther } from "viem";
import { TAXED_DEV_TOKEN } from "../../scripts/deploy/devnetMarket";
import { fundedTaker } from "../fixtures/fundedTaker";
import { sharedDevnet } from "../fixtures/sharedDevnet";
import { scaledTimeout } from "../fixtures/testTimeouts";

/** The devnet `npm start` runs (chain, API and relayer in their own process) trades its taxed token TAXD. */
describe("the devnet's taxed token, through the running API", () => {
  it("lists TAXD and its WETH pool in the manifest, quotes a TAXD buy with its measured taxes, settles it with at least min_buy_amount, and refuses a TAXD sell with token_taxed", async function () {
    this.timeout(scaledTimeout(240_000));
    const devnet = await sharedDevnet();
    const taxd = devnet.token(TAXED_DEV_TOKEN.symbol);
    expect(devnet.manifest.pools.some((pool) => [pool.token0, pool.token1].includes(taxd) && [pool.token0, pool.token1].includes(devnet.token("WETH")))).to.equal(true);
    const { apiKey, client } = await devnet.onboardedClient();
    client.close();
    const taker = await fundedTaker(devnet, {});
    const get = async (query: Record<string, string>) => {
      const response = await fetch(`${devnet.apiUrl}/quote?${new URLSearchParams(query).toString()}`, { headers: { authorization: `Bearer ${apiKey}` } });
      return { status: response.status, body: (await response.json()) as Record<string, any> };
    };

    const bought = await get({ sell_token: "ETH", buy_token: "TAXD", sell_amount: parseEther("0.5").toString(), taker: taker.address });
    expect(bought.status, JSON.stringify(bought.body)).to.equal(200);
    expect(bought.body.token_metadata).to.deep.equal({
      sell_token: { buy_tax_bps: 0, sell_tax_bps: 0, transfer_tax_bps: 0 },
      buy_token: { buy_tax_bps: TAXED_DEV_TOKEN.buyTaxBps, sell_tax_bps: TAXED_DEV_TOKEN.sellTaxBps, transfer_tax_bps: TAXED_DEV_TOKEN.transferTaxBps },
    });
    const wallet = devnet.wallet(taker.privateKey);
    const before = await devnet.publicClient.readContract({ address: taxd, abi: erc20Abi, functionName: "balanceOf", args: [taker.address] });
    const hash = await wallet.sendTransaction({ to: bought.body.tx.to, data: bought.body.tx.data, value: BigInt(bought.body.tx.value), chain: undefined });
    expect((await devnet.publicClient.waitForTransactionReceipt({ hash })).status).to.equal("success");
    const received = (await devnet.publicClient.readContract({ address: taxd, abi: erc20Abi, functionName: "balanceOf", args: [taker.address] })) - before;
    expect(received >= BigInt(bought.body.min_buy_amount), `received ${received} < min_buy_amount ${bought.body.min_buy_amount}`).to.equal(true);
    expect(received >= BigInt(bought.body.buy_amount), `received ${received} < buy_amount ${bought.body.buy_amount}`).to.equal(true);

    const sold = await get({ sell_token: "TAXD", buy_token: "ETH", sell_amount: (received / 2n).toString(), taker: taker.address });
    expect(sold.status, JSON.stringify(sold.body)).to.equal(400);
    expect(sold.body).to.deep.include({ code: "token_taxed", parameter: "sell_token", token: taxd.toLowerCase() });
  });
});
