import { expect } from "chai";
import hre from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { erc20Abi, maxUint256, parseEther, parseUnits, type Address, type Hex } from "viem";
import { patchSignature } from "../../sdk";
import { TAXED_DEV_TOKEN } from "../../scripts/deploy/devnetMarket";
import { fundAccount } from "../../scripts/deploy/deployTestToken";
import { uniswapArtifacts } from "../../scripts/deploy/uniswapArtifacts";
import { writeAndWait } from "../../scripts/deploy/writeAndWait";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { manifestPath, writeManifest } from "../../sdk";
import { checkTokenOnChain } from "../../api/tokens/tokenOnChainCheck";
import { deployTaxedToken } from "../../scripts/deploy/deployTaxedToken";
import { runTokensCommand } from "../../scripts/tokens";
import { startQuoteApi, type QuoteApi } from "../fixtures/quoteApi";
import { balanceOf } from "../fixtures/testRoute";
import { taxedMarketFixture, type TaxedMarketFixture } from "../fixtures/taxedMarket";

type QuoteBody = Record<string, any>;
const NO_TAX = { buy_tax_bps: 0, sell_tax_bps: 0, transfer_tax_bps: 0 };
const TAXD_TAX = { buy_tax_bps: TAXED_DEV_TOKEN.buyTaxBps, sell_tax_bps: TAXED_DEV_TOKEN.sellTaxBps, transfer_tax_bps: TAXED_DEV_TOKEN.transferTaxBps };

/** The devnet with TAXD, and the API serving it with an onboarded integrator. */
async function taxedApiReady() {
  const f = await taxedMarketFixture();
  const api = await startQuoteApi(f as never, { defaultQuoteRateLimitPerMinute: 1_000_000 });
  started.push(api);
  return { f, api };
}
const started: QuoteApi[] = [];
after(async () => {
  for (const api of started.splice(0)) await api.close();
});

/** The taker's wallet: approve when issues.allowance says so, sign permit2, patch, send. */
async function execute(f: TaxedMarketFixture, quote: QuoteBody) {
  if (quote.issues.allowance !== null) {
    await f.publicClient.waitForTransactionReceipt({
      hash: await f.taker.writeContract({ address: quote.sell_token, abi: erc20Abi, functionName: "approve", args: [quote.issues.allowance.spender as Address, maxUint256] }),
    });
  }
  let data = quote.tx.data as Hex;
  if (quote.permit2 !== undefined) data = patchSignature(data, quote.tx.signature_offset, await f.signerOf(f.taker.account.address).signTypedData(quote.permit2));
  const receipt = await f.publicClient.waitForTransactionReceipt({ hash: await f.taker.sendTransaction({ to: quote.tx.to, data, value: BigInt(quote.tx.value) }) });
  expect(receipt.status).to.equal("success");
  return receipt;
}

/** What the route's last hops pay out before the token's tax (the split legs' outputs add up). */
const grossOut = (quote: QuoteBody): bigint =>
  quote.route.legs.length > 1 ? quote.route.legs.reduce((sum: bigint, leg: QuoteBody) => sum + BigInt(leg.buy_amount), 0n) : BigInt(quote.route.hops.at(-1).amount_out);

describe("tokens that tax transfers, through the API", () => {
  it("buys TAXD with ETH: buy_amount is the route's output less the 300 bps buy tax, token_metadata shows both tokens' taxes, and the recipient gets at least buy_amount", async () => {
    const { f, api } = await loadFixture(taxedApiReady);
    const { status, body } = await api.quote({ sell_token: "ETH", buy_token: f.taxed.token.address, sell_amount: parseEther("1"), taker: f.taker.account.address, slippage_bps: 50 });
    expect(status, JSON.stringify(body)).to.equal(200);
    expect(body!.token_metadata).to.deep.equal({ sell_token: NO_TAX, buy_token: TAXD_TAX });
    const gross = grossOut(body!);
    const tax = (gross * 300n + 9_999n) / 10_000n;
    expect(BigInt(body!.buy_amount)).to.equal(gross - tax);
    expect(BigInt(body!.min_buy_amount)).to.equal(((gross - tax) * 9_950n) / 10_000n);

    const before = await balanceOf(f, f.taxed.token.address, f.taker.account.address);
    await execute(f, body!);
    const received = (await balanceOf(f, f.taxed.token.address, f.taker.account.address)) - before;
    expect(received >= BigInt(body!.min_buy_amount), `received ${received} < min_buy_amount ${body!.min_buy_amount}`).to.equal(true);
    expect(received >= BigInt(body!.buy_amount), `received ${received} < buy_amount ${body!.buy_amount}`).to.equal(true);
    // The token burns 300 bps rounded down; the quote took it rounded up: at most one unit apart.
    expect(received - BigInt(body!.buy_amount) <= 1n).to.equal(true);
  });

  it("buys TAXD with USDC by Permit2 signature through WETH, and the swap settles with at least min_buy_amount", async () => {
    const { f, api } = await loadFixture(taxedApiReady);
    const { status, body } = await api.quote({ sell_token: f.token("USDC"), buy_token: "TAXD", sell_amount: parseUnits("5000", 6), taker: f.taker.account.address });
    expect(status, JSON.stringify(body)).to.equal(200);
    expect(body!.settlement).to.equal("permit2");
    expect(body!.route.hops.map((hop: QuoteBody) => hop.token_out)).to.deep.equal([f.token("WETH").toLowerCase(), f.taxed.token.address.toLowerCase()]);
    expect(body!.token_metadata).to.deep.equal({ sell_token: NO_TAX, buy_token: TAXD_TAX });
    const before = await balanceOf(f, f.taxed.token.address, f.taker.account.address);
    await execute(f, body!);
    const received = (await balanceOf(f, f.taxed.token.address, f.taker.account.address)) - before;
    expect(received >= BigInt(body!.buy_amount), `received ${received} < buy_amount ${body!.buy_amount}`).to.equal(true);
  });

  it("refuses to sell TAXD with a 400 token_taxed naming sell_token and the token, in every settlement mode", async () => {
    const { f, api } = await loadFixture(taxedApiReady);
    const extras: Record<string, string>[] = [{}, { settlement: "allowance" }, { buy_token: "ETH" }];
    for (const extra of extras) {
      const { status, body } = await api.quote({ sell_token: f.taxed.token.address, buy_token: f.token("USDC"), sell_amount: parseEther("10"), taker: f.taker.account.address, ...extra });
      expect(status, JSON.stringify(body)).to.equal(400);
      expect(body).to.deep.include({ code: "token_taxed", parameter: "sell_token", token: f.taxed.token.address.toLowerCase(), ...TAXD_TAX });
      expect(body!.error).to.include("sell_token TAXD").and.include(f.taxed.token.address.toLowerCase()).and.include("sell 500 bps");
    }
  });

  it("refuses an integrator fee on a TAXD buy (400 token_taxed naming buy_token): the router's fee payout would find the output cut by the tax", async () => {
    const { f, api } = await loadFixture(taxedApiReady);
    const { status, body } = await api.quote({ sell_token: "ETH", buy_token: f.taxed.token.address, sell_amount: parseEther("1"), taker: f.taker.account.address, fee_bps: 10 });
    expect(status, JSON.stringify(body)).to.equal(400);
    expect(body).to.deep.include({ code: "token_taxed", parameter: "buy_token", token: f.taxed.token.address.toLowerCase() });
    expect(body!.error).to.include("fee_bps");
  });

  it("never routes through TAXD, even where a pool of it pays more, and such a swap settles", async () => {
    const { f, api } = await loadFixture(taxedApiReady);
    // A TAXD/USDC pool pricing TAXD at 2 USDC (its WETH pool says 1): WETH → TAXD → USDC would pay about twice the direct pool.
    const factory = uniswapArtifacts.factory();
    await writeAndWait(f, f.deployer, { address: f.contracts.uniswapV2Factory, abi: factory.abi, functionName: "createPair", args: [f.taxed.token.address, f.token("USDC")] });
    const pair = (await f.publicClient.readContract({ address: f.contracts.uniswapV2Factory, abi: factory.abi, functionName: "getPair", args: [f.taxed.token.address, f.token("USDC")] })) as Address;
    const taxd = await hre.viem.getContractAt("TaxedDevToken", f.taxed.token.address, { client: { public: f.publicClient, wallet: f.deployer } });
    await f.publicClient.waitForTransactionReceipt({ hash: await taxd.write.mint([pair, parseEther("1000000")]) });
    await fundAccount(hre, f, f.deployer, f, { account: pair, token: "USDC", amount: "2000000" });
    await writeAndWait(f, f.deployer, { address: pair, abi: uniswapArtifacts.pair().abi, functionName: "mint", args: [f.deployer.account.address] });

    const { status, body } = await api.quote({ sell_token: "ETH", buy_token: f.token("USDC"), sell_amount: parseEther("1"), taker: f.taker.account.address });
    expect(status, JSON.stringify(body)).to.equal(200);
    const touched = [...body!.route.hops, ...body!.route.legs.flatMap((leg: QuoteBody) => leg.hops)].flatMap((hop: QuoteBody) => [hop.token_in, hop.token_out]);
    expect(touched).to.not.include(f.taxed.token.address.toLowerCase());
    expect(body!.token_metadata).to.deep.equal({ sell_token: NO_TAX, buy_token: NO_TAX });
    await execute(f, body!);
  });

  it("keeps GET /tokens/supported-tokens exactly as the spec says: the five fields, TAXD listed, the same body and ETag once taxes are measured", async () => {
    const { f, api } = await loadFixture(taxedApiReady);
    const before = await api.get("/tokens/supported-tokens?chain_id=4663", {}, null);
    expect(Object.keys(before.body!)).to.deep.equal(["schema_version", "chain_id", "snapshot_id", "count", "addresses"]);
    expect(before.body!.addresses).to.include(f.taxed.token.address.toLowerCase());
    expect(await api.served.taxes.get(4663)!.measureAll()).to.equal(0);
    expect(api.served.taxes.get(4663)!.known(f.taxed.token.address)).to.deep.equal({ buyTaxBps: 300, sellTaxBps: 500, transferTaxBps: 100 });
    expect(api.served.taxes.get(4663)!.known(f.token("USDC"))).to.deep.equal({ buyTaxBps: 0, sellTaxBps: 0, transferTaxBps: 0 });
    const after = await api.get("/tokens/supported-tokens?chain_id=4663", {}, null);
    expect(after.body).to.deep.equal(before.body);
    expect(after.headers.get("etag")).to.equal(before.headers.get("etag"));
  });

  it("measures a token when the operator enables it, stores its taxes with the decision, and quotes show them", async () => {
    const { f, api } = await loadFixture(taxedApiReady);
    const spec = { ...TAXED_DEV_TOKEN, symbol: "TAX2", name: "Second taxed", buyTaxBps: 200, sellTaxBps: 0, transferTaxBps: 0 };
    const second = await deployTaxedToken(hre, f, f.deployer, f.contracts, spec);
    const bases = api.manifest.tokens.map((token) => token.address);
    const check = await checkTokenOnChain({ client: f.publicClient, manifest: api.manifest, token: second.token.address, bases, minLiquidityWei: 1n });
    expect(check).to.deep.include({ ok: true, tax: { buyTaxBps: 200, sellTaxBps: 0, transferTaxBps: 0 } });

    const directory = mkdtempSync(join(tmpdir(), "taxed-enable-"));
    try {
      writeManifest(manifestPath(directory, 4663), api.manifest);
      const output: string[] = [];
      const config = { ...api.config, deploymentsDir: directory };
      const code = await runTokensCommand(["enable", second.token.address], { store: api.store, config, print: (line) => output.push(line), now: new Date(), connect: () => f.publicClient });
      expect(code, output.join("\n")).to.equal(0);
      expect(output.at(-1)).to.include("it taxes transfers (buy 200 bps, sell 0 bps, transfer 0 bps): quotes selling it are refused with token_taxed");
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
    const stored = (await api.store.listTokenOverrides(4663)).find((override) => override.token.toLowerCase() === second.token.address.toLowerCase());
    expect(stored?.tax).to.deep.equal({ buyTaxBps: 200, sellTaxBps: 0, transferTaxBps: 0 });
    await api.served.jobs.refresh();
    const { status, body } = await api.quote({ sell_token: "ETH", buy_token: second.token.address, sell_amount: parseEther("0.1"), taker: f.taker.account.address });
    expect(status, JSON.stringify(body)).to.equal(200);
    expect(body!.token_metadata.buy_token).to.deep.equal({ buy_tax_bps: 200, sell_tax_bps: 0, transfer_tax_bps: 0 });
    const before = await balanceOf(f, second.token.address, f.taker.account.address);
    await execute(f, body!);
    expect((await balanceOf(f, second.token.address, f.taker.account.address)) - before >= BigInt(body!.buy_amount)).to.equal(true);
  });
});
