import { expect } from "chai";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { erc20Abi, maxUint256, parseUnits, type Address, type Hex } from "viem";
import { patchSignature } from "../../sdk";
import type { SettlementFixture } from "../fixtures/settlementFixture";
import { closeSharedQuoteApis, quoteReady } from "../fixtures/quoteApi";
import { balanceOf } from "../fixtures/testRoute";
import { gaslessReadyFixture, startGaslessStack } from "../fixtures/gaslessStack";
import { V4_HOP_GAS } from "../../api/quote/venues/uniswapV4/v4Adapter";

after(closeSharedQuoteApis);

type Hop = { pool: string; source: string; leg: string; token_out: string; amount_in: string; amount_out: string; gas: number };
type QuoteBody = Record<string, any>;

const V3_SOURCES = ["uniswap-v3", "forkswap-v3"];
const PROPAMM = "dev-propamm";
/** A V4 hop's pool is its 32-byte pool id; the others' a 20-byte address. */
const LEG = /^([a-z0-9-]+):chain-4663:(0x[0-9a-fA-F]{40}(?:[0-9a-fA-F]{24})?):(\d+)$/;
/** Uniswap V4: excluded where a test proves another venue's settlement (it routes once the routers have SWAP_V4). */
const V4 = "uniswap-v4";

/** The taker's wallet: approve when issues.allowance says so, sign permit2, patch, send. */
async function execute(f: SettlementFixture, quote: QuoteBody) {
  if (quote.issues.allowance !== null) {
    await f.publicClient.waitForTransactionReceipt({
      hash: await f.taker.writeContract({ address: quote.sell_token, abi: erc20Abi, functionName: "approve", args: [quote.issues.allowance.spender as Address, maxUint256] }),
    });
  }
  let data = quote.tx.data as Hex;
  if (quote.permit2 !== undefined) data = patchSignature(data, quote.tx.signature_offset, await f.signerOf(f.taker.account.address).signTypedData(quote.permit2));
  const hash = await f.taker.sendTransaction({ to: quote.tx.to, data, value: BigInt(quote.tx.value) });
  return f.publicClient.waitForTransactionReceipt({ hash });
}

const hopsOf = (body: QuoteBody): Hop[] => body.route.hops as Hop[];

/** Every hop names its venue and its leg `<venue>:chain-4663:<pool>:<fee>` for the same pool. */
function expectNamedHops(body: QuoteBody) {
  for (const hop of hopsOf(body)) {
    const match = LEG.exec(hop.leg);
    expect(match, hop.leg).to.not.equal(null);
    expect(match![1]).to.equal(hop.source);
    expect(match![2]!.toLowerCase()).to.equal(hop.pool.toLowerCase());
    if (hop.source === PROPAMM) expect(match![3]).to.equal("0");
  }
}

function expectGasClose(label: string, body: QuoteBody, used: bigint) {
  const ratio = body.tx.estimated_gas / Number(used);
  if (process.env.GAS_CALIBRATION) console.log(`    gas ${label}: estimated ${body.tx.estimated_gas}, used ${used}, ratio ${ratio.toFixed(3)}; hops ${hopsOf(body).map((hop) => `${hop.source}=${hop.gas}`).join(", ")}`);
  expect(ratio, `${label}: estimated_gas ${body.tx.estimated_gas} vs gasUsed ${used}`).to.be.within(0.85, 1.15);
}

/** Sends the quote and returns what the taker received of `buyToken`. */
async function settle(f: SettlementFixture, body: QuoteBody, buyToken: Address | "ETH", label: string): Promise<bigint> {
  const balance = () => (buyToken === "ETH" ? f.publicClient.getBalance({ address: f.taker.account.address }) : balanceOf(f, buyToken, f.taker.account.address));
  const before = await balance();
  const receipt = await execute(f, body);
  expect(receipt.status).to.equal("success");
  expectGasClose(label, body, receipt.gasUsed);
  return (await balance()) - before;
}

describe("GET /quote over V2, V3, V4 and propAMM venues, settled on chain", () => {
  it("a V3 route (permit2): hops name their V3 venue and leg, and the taker receives exactly buy_amount", async () => {
    const { f, api } = await loadFixture(quoteReady);
    const { status, body } = await api.quote({ sell_token: f.token("USDC"), buy_token: f.token("WETH"), sell_amount: parseUnits("1000", 6), taker: f.taker.account.address, excluded_sources: `${PROPAMM},${V4}` });
    expect(status, JSON.stringify(body)).to.equal(200);
    expect(body!.settlement).to.equal("permit2");
    expect(hopsOf(body!).some((hop) => V3_SOURCES.includes(hop.source))).to.equal(true);
    expectNamedHops(body!);
    const received = await settle(f, body!, f.token("WETH"), "V3 1 hop, permit2");
    expect(received).to.equal(BigInt(body!.buy_amount));
    expect(received >= BigInt(body!.min_buy_amount)).to.equal(true);

    // Again through the same pool, now warm (its fee growth and liquidity slots already written).
    const again = await api.quote({ sell_token: f.token("USDC"), buy_token: f.token("WETH"), sell_amount: parseUnits("1000", 6), taker: f.taker.account.address, excluded_sources: `${PROPAMM},${V4}` });
    expect(hopsOf(again.body!).map((hop) => hop.pool)).to.deep.equal(hopsOf(body!).map((hop) => hop.pool));
    expect(await settle(f, again.body!, f.token("WETH"), "V3 1 hop, warm pool")).to.equal(BigInt(again.body!.buy_amount));
  });

  it("a Uniswap V4 route (permit2): every hop is a V4 pool named by its pool id, and the routers' SWAP_V4 settles exactly buy_amount", async () => {
    const { f, api } = await loadFixture(quoteReady);
    const { status, body } = await api.quote({ sell_token: f.token("USDC"), buy_token: f.token("USDT"), sell_amount: parseUnits("5000", 6), taker: f.taker.account.address, excluded_sources: `uniswap-v2,${V3_SOURCES.join(",")},${PROPAMM}` });
    expect(status, JSON.stringify(body)).to.equal(200);
    const hops = hopsOf(body!);
    expect(hops.length).to.be.greaterThan(0);
    expect(hops.every((hop) => hop.source === V4 && /^0x[0-9a-f]{64}$/i.test(hop.pool))).to.equal(true);
    expectNamedHops(body!);
    const received = await settle(f, body!, f.token("USDT"), "V4 route, permit2");
    expect(received).to.equal(BigInt(body!.buy_amount));
  });

  it("a run of V4 hops (USDC → WETH → WBTC) settles in one unlock: its second hop is modelled V4_HOP_GAS.runSaving cheaper, and the estimate stays within 15 % of gasUsed", async () => {
    const { f, api } = await loadFixture(quoteReady);
    const { status, body } = await api.quote({ sell_token: f.token("USDC"), buy_token: f.token("WBTC"), sell_amount: parseUnits("10000", 6), taker: f.taker.account.address, excluded_sources: `uniswap-v2,${V3_SOURCES.join(",")},${PROPAMM}` });
    expect(status, JSON.stringify(body)).to.equal(200);
    const hops = hopsOf(body!);
    expect(hops.map((hop) => [hop.source, hop.token_out.toLowerCase()])).to.deep.equal([
      [V4, f.token("WETH").toLowerCase()],
      [V4, f.token("WBTC").toLowerCase()],
    ]);
    // Neither hop crosses a tick at this size: the first pays a whole V4 hop, the second only what a hop inside the unlock adds.
    expect(hops.map((hop) => hop.gas)).to.deep.equal([V4_HOP_GAS.base, V4_HOP_GAS.base - V4_HOP_GAS.runSaving]);
    const received = await settle(f, body!, f.token("WBTC"), "V4 run of 2 hops, permit2");
    expect(received).to.equal(BigInt(body!.buy_amount));
  });

  it("a large V3 hop crossing ticks settles for buy_amount and its estimate counts the crossings", async () => {
    const { f, api } = await loadFixture(quoteReady);
    const { status, body } = await api.quote({ sell_token: f.token("USDC"), buy_token: f.token("WETH"), sell_amount: parseUnits("150000", 6), taker: f.taker.account.address, excluded_sources: `uniswap-v2,forkswap-v3,${PROPAMM},${V4}` });
    expect(status, JSON.stringify(body)).to.equal(200);
    expect(hopsOf(body!).every((hop) => hop.source === "uniswap-v3")).to.equal(true);
    const received = await settle(f, body!, f.token("WETH"), "V3 large, ticks crossed");
    expect(received).to.equal(BigInt(body!.buy_amount));
  });

  it("an exact-output quote (buy_amount) over V3 alone settles for exactly buy_amount and spends exactly sell_amount, the rest of max_sell_amount refunded", async () => {
    const { f, api } = await loadFixture(quoteReady);
    const buyAmount = parseUnits("1.5", 18);
    const { status, body } = await api.quote({ sell_token: f.token("USDC"), buy_token: f.token("WETH"), buy_amount: buyAmount, taker: f.taker.account.address, excluded_sources: `uniswap-v2,${PROPAMM},${V4}` });
    expect(status, JSON.stringify(body)).to.equal(200);
    expect(hopsOf(body!).length > 0 && hopsOf(body!).every((hop) => V3_SOURCES.includes(hop.source)), JSON.stringify(hopsOf(body!))).to.equal(true);
    expectNamedHops(body!);
    const sellAmount = BigInt(body!.sell_amount);
    expect(BigInt(body!.max_sell_amount) > sellAmount).to.equal(true);
    const [usdcBefore, wethBefore] = [await balanceOf(f, f.token("USDC"), f.taker.account.address), await balanceOf(f, f.token("WETH"), f.taker.account.address)];
    const receipt = await execute(f, body!);
    expect(receipt.status).to.equal("success");
    expect((await balanceOf(f, f.token("WETH"), f.taker.account.address)) - wethBefore).to.equal(buyAmount);
    // Nothing moved the pools between the quote's block and the swap: the pools asked for exactly sell_amount.
    expect(usdcBefore - (await balanceOf(f, f.token("USDC"), f.taker.account.address))).to.equal(sellAmount);
  });

  it("a propAMM route (native sell): dev-propamm's leg settles for at least buy_amount", async () => {
    const { f, api } = await loadFixture(quoteReady);
    const { status, body } = await api.quote({ sell_token: "ETH", buy_token: f.token("USDC"), sell_amount: parseUnits("1", 18), taker: f.taker.account.address, excluded_sources: `uniswap-v2,uniswap-v3,forkswap-v3,${V4}` });
    expect(status, JSON.stringify(body)).to.equal(200);
    expect(body!.tx.value).to.equal(parseUnits("1", 18).toString());
    expect(hopsOf(body!).map((hop) => hop.source)).to.deep.equal([PROPAMM]);
    expectNamedHops(body!);
    const received = await settle(f, body!, f.token("USDC"), "propAMM 1 hop, native sell");
    // The quote comes from getAmountOut ladders, which may promise a few units less than the fill.
    expect(received >= BigInt(body!.buy_amount)).to.equal(true);
    expect(received - BigInt(body!.buy_amount) <= 10n).to.equal(true);

    const back = await api.quote({ sell_token: f.token("USDC"), buy_token: f.token("WETH"), sell_amount: parseUnits("2000", 6), taker: f.taker.account.address, excluded_sources: `uniswap-v2,uniswap-v3,forkswap-v3,${V4}` });
    expect(back.status, JSON.stringify(back.body)).to.equal(200);
    expect(hopsOf(back.body!).map((hop) => hop.source)).to.deep.equal([PROPAMM]);
    const bought = await settle(f, back.body!, f.token("WETH"), "propAMM 1 hop, permit2, token1 in");
    expect(bought >= BigInt(back.body!.buy_amount)).to.equal(true);
  });

  it("the split pair (WETH/USDC, ~300k USD) splits across venues and settles (allowance) for exactly buy_amount", async () => {
    const { f, api } = await loadFixture(quoteReady);
    const { status, body } = await api.quote({ sell_token: f.token("USDC"), buy_token: f.token("WETH"), sell_amount: parseUnits("300000", 6), taker: f.taker.account.address, settlement: "allowance" });
    expect(status, JSON.stringify(body)).to.equal(200);
    const legs = body!.route.legs as { share_bps: number; hops: Hop[] }[];
    expect(legs.length).to.be.within(2, 3);
    expect(new Set(hopsOf(body!).map((hop) => hop.source)).size).to.be.greaterThan(1);
    expectNamedHops(body!);
    const received = await settle(f, body!, f.token("WETH"), "split 300k");
    expect(received >= BigInt(body!.buy_amount)).to.equal(true);
    if (!hopsOf(body!).some((hop) => hop.source === PROPAMM)) expect(received).to.equal(BigInt(body!.buy_amount));
  });

  it("excluded_sources naming every V3 venue, the propAMM and V4 gives a V2-only route; an unknown name is a 400 naming excluded_sources", async () => {
    const { f, api } = await loadFixture(quoteReady);
    const { status, body } = await api.quote({ sell_token: f.token("USDC"), buy_token: f.token("WETH"), sell_amount: parseUnits("300000", 6), taker: f.taker.account.address, excluded_sources: `uniswap-v3,forkswap-v3,${PROPAMM},${V4}` });
    expect(status, JSON.stringify(body)).to.equal(200);
    expect(hopsOf(body!).every((hop) => hop.source === "uniswap-v2")).to.equal(true);
    const unknown = await api.quote({ sell_token: f.token("USDC"), buy_token: f.token("WETH"), sell_amount: 1000n, taker: f.taker.account.address, excluded_sources: "sushiswap" });
    expect(unknown.status).to.equal(400);
    expect(unknown.body!.error).to.include("excluded_sources");
  });

  it("GET /sources lists uniswap-v2, both V3 venues and dev-propamm", async () => {
    const { api } = await loadFixture(quoteReady);
    const { status, body } = await api.get("/sources?chain_id=4663");
    expect(status, JSON.stringify(body)).to.equal(200);
    const names = JSON.stringify(body);
    for (const name of ["uniswap-v2", "uniswap-v3", "forkswap-v3", PROPAMM]) expect(names).to.include(`"${name}"`);
  });
});

describe("gasless quotes route over every venue (the relayer reprices a failed relay's V2, V3 and propAMM hops)", function () {
  this.timeout(120_000);
  it("excluding Uniswap V2 leaves a gasless route over V3 pools and the propAMM, named leg by leg, that relays and settles for the quoted amount", async () => {
    const f = await loadFixture(gaslessReadyFixture);
    const stack = await startGaslessStack(f);
    try {
      const taker = f.signerOf(f.taker.account.address);
      const { status, body } = await stack.gaslessQuote(taker.address, { sell_token: f.token("USDC"), buy_token: f.token("WETH"), excluded_sources: "uniswap-v2" });
      expect(status, JSON.stringify(body)).to.equal(200);
      expect(hopsOf(body!).every((hop) => hop.source !== "uniswap-v2")).to.equal(true);
      expectNamedHops(body!);
      const before = await balanceOf(f, f.token("WETH"), taker.address);
      const submitted = await stack.submit({ quote_id: body!.quote_id, signature: await stack.sign(body!, taker) });
      expect(submitted.status, JSON.stringify(submitted.body)).to.equal(202);
      const relay = await stack.waitFor(submitted.body!.relay_id);
      expect(relay.status, JSON.stringify(relay)).to.equal("confirmed");
      const received = (await balanceOf(f, f.token("WETH"), taker.address)) - before;
      expect(received).to.equal(BigInt(body!.buy_amount));
    } finally {
      await stack.close();
    }
  });
});
