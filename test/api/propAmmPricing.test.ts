import { expect } from "chai";
import fc from "fast-check";
import hre from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { createPublicClient, custom, type Address, type PublicClient } from "viem";
import { devnetChain } from "../../sdk/chain/devnet";
import { propAmmPriceFromDecimal } from "../../sdk/amm/propAmmPrice";
import {
  ladderAmountOut,
  ladderAmounts,
  MAX_PROPAMM_PAIRS,
  PropAmmPricing,
  propAmmDirection,
  readPropAmmVenues,
  type PropAmmVenue,
  type QuotedBlock,
} from "../../api/quote/venues/propAmmPricing";
import { propAmmFixture, type PropAmmFixture } from "../fixtures/propAmmFixture";
import { fuzzRuns } from "../helpers/fuzzRuns";

/** A client over the in-process chain that counts the eth_calls it sends. */
function countingClient(): { client: PublicClient; ethCalls: () => number } {
  let count = 0;
  const client = createPublicClient({
    chain: devnetChain,
    transport: custom({
      request: (args: { method: string; params?: unknown }) => {
        if (args.method === "eth_call") count++;
        return hre.network.provider.request(args as never);
      },
    }, { retryCount: 0 }),
  }) as PublicClient;
  return { client, ethCalls: () => count };
}

async function latest(f: PropAmmFixture): Promise<QuotedBlock> {
  const block = await f.publicClient.getBlock();
  return { hash: block.hash, number: block.number };
}

async function setup(f: PropAmmFixture) {
  const { client, ethCalls } = countingClient();
  const decimals = new Map(f.tokens.map((token) => [token.address.toLowerCase(), token.decimals]));
  const pricing = new PropAmmPricing(client, (token) => decimals.get(token)!);
  const names = new Map<Address, string>([[f.wethUsdc.address, "dev-propamm"], [f.daiPropAmm.address, "dai-propamm"]]);
  const venues = await readPropAmmVenues(client, f.allowlist.address, await latest(f), names);
  return { client, ethCalls, pricing, venues };
}

const venueOf = (venues: readonly PropAmmVenue[], pair: Address) => venues.find((venue) => venue.pair === pair.toLowerCase())!;

describe("propAMM pricing for the quote API (api/quote/venues/propAmmPricing.ts)", () => {
  it("reads the allowlisted propAMMs with their configured tokens and source names", async () => {
    const f = await loadFixture(propAmmFixture);
    const { venues } = await setup(f);
    expect(venues).to.have.deep.members([
      { source: "dev-propamm", pair: f.wethUsdc.address.toLowerCase(), token0: f.token("WETH").toLowerCase(), token1: f.token("USDC").toLowerCase() },
      { source: "dai-propamm", pair: f.daiPropAmm.address.toLowerCase(), token0: f.token("DAI").toLowerCase(), token1: f.token("WETH").toLowerCase() },
    ]);
    const wethUsdc = venueOf(venues, f.wethUsdc.address);
    expect(propAmmDirection(wethUsdc, wethUsdc.token0, wethUsdc.token1)).to.equal(true);
    expect(propAmmDirection(wethUsdc, wethUsdc.token1, wethUsdc.token0)).to.equal(false);
    expect(propAmmDirection(wethUsdc, wethUsdc.token0, f.token("DAI").toLowerCase() as Address)).to.equal(undefined);
  });

  it("reads every venue's ladders in both directions in one eth_call per block, equal to getAmountOut at each rung, and again only on a new block", async () => {
    const f = await loadFixture(propAmmFixture);
    const { ethCalls, pricing, venues } = await setup(f);
    const block = await latest(f);
    const before = ethCalls();
    const [first, second] = await Promise.all([pricing.ladders(block, venues), pricing.ladders(block, venues)]);
    expect(ethCalls() - before).to.equal(1);
    expect(second).to.equal(first);
    const quotes = first!.find((entry) => entry.venue.pair === f.wethUsdc.address.toLowerCase())!;
    expect(quotes.zeroForOne.amounts).to.deep.equal(ladderAmounts(18));
    expect(quotes.oneForZero.amounts).to.deep.equal(ladderAmounts(6));
    for (const [zeroForOne, ladder] of [[true, quotes.zeroForOne], [false, quotes.oneForZero]] as const) {
      for (const [index, amountIn] of ladder.amounts.entries()) {
        expect(ladder.amountsOut[index], `${zeroForOne} ${amountIn}`).to.equal(await f.wethUsdc.read.getAmountOut([zeroForOne, amountIn]));
      }
    }
    // Past its inventory (450,000 USDC) the venue quotes nothing, and neither does the ladder.
    expect(ladderAmountOut(quotes.zeroForOne, 10n ** 18n * 1000n)).to.equal(0n);

    // The operator moves the price: the next block's quotes follow, the old block's stay what they were.
    await f.wethUsdc.write.setPrice([propAmmPriceFromDecimal("2500", 18, 6), 5]);
    const next = await latest(f);
    const moved = (await pricing.ladders(next, venues)).find((entry) => entry.venue.pair === f.wethUsdc.address.toLowerCase())!;
    expect(ethCalls() - before).to.equal(2);
    expect(ladderAmountOut(moved.zeroForOne, 10n ** 18n)).to.equal((2500_000000n * 9995n) / 10_000n);
    const old = (await new PropAmmPricing((await setup(f)).client, () => 18).ladders(block, [venueOf(venues, f.wethUsdc.address)]))[0]!;
    expect(ladderAmountOut(old.zeroForOne, 10n ** 18n)).to.equal((3001_500000n * 9995n) / 10_000n);
  });

  it("bounds a block's ladder read: an allowlist longer than MAX_PROPAMM_PAIRS is read up to the cap, in its order, still in one eth_call", async () => {
    const f = await loadFixture(propAmmFixture);
    const { ethCalls, pricing, venues } = await setup(f);
    // Distinct venues (a source name each) over the two real pairs, so the cap, not the chain, is what binds.
    const many = Array.from({ length: MAX_PROPAMM_PAIRS + 5 }, (_, index) => ({ ...venues[index % venues.length]!, source: `propamm-${index}` }));
    const before = ethCalls();
    const ladders = await pricing.ladders(await latest(f), many);
    expect(ethCalls() - before).to.equal(1);
    expect(ladders.map((entry) => entry.venue.source)).to.deep.equal(many.slice(0, MAX_PROPAMM_PAIRS).map((venue) => venue.source));
  });

  it("prices any amount off the ladder within three units of getAmountOut (its two roundings at each rung, and the unit kept back) and never above it: the reference propAMM is linear", async () => {
    const f = await loadFixture(propAmmFixture);
    const { pricing, venues } = await setup(f);
    const quotes = (await pricing.ladders(await latest(f), venues)).find((entry) => entry.venue.pair === f.wethUsdc.address.toLowerCase())!;
    await fc.assert(
      fc.asyncProperty(fc.boolean(), fc.bigInt({ min: 1n, max: 10n ** 20n }), async (zeroForOne, raw) => {
        const amountIn = zeroForOne ? raw : raw / 10n ** 9n + 1n;
        const exact = await f.wethUsdc.read.getAmountOut([zeroForOne, amountIn]);
        const priced = ladderAmountOut(zeroForOne ? quotes.zeroForOne : quotes.oneForZero, amountIn);
        expect(priced <= exact, `${priced} > ${exact}`).to.equal(true);
        expect(exact - priced <= 3n, `${exact} - ${priced}`).to.equal(true);
      }),
      fuzzRuns(60),
    );
  });

  it("quotes exact amounts once per block per (pair, direction, amount): a tick's requests share one eth_call, repeats are cached, a venue that reverts quotes 0", async () => {
    const f = await loadFixture(propAmmFixture);
    const { ethCalls, pricing } = await setup(f);
    const block = await latest(f);
    const pair = f.wethUsdc.address;
    const requests = [
      { pair, zeroForOne: true, amountIn: 10n ** 18n },
      { pair, zeroForOne: false, amountIn: 5_000_000_000n },
      { pair: f.daiPropAmm.address, zeroForOne: true, amountIn: 10n ** 21n },
      // A token is no propAMM: its call reverts, and it quotes nothing.
      { pair: f.token("LINK"), zeroForOne: true, amountIn: 1n },
    ];
    const before = ethCalls();
    const [quoted, again] = await Promise.all([pricing.exactQuotes(block, requests), pricing.exactQuotes(block, requests.slice(0, 2))]);
    expect(ethCalls() - before).to.equal(1);
    expect(quoted).to.deep.equal([
      await f.wethUsdc.read.getAmountOut([true, 10n ** 18n]),
      await f.wethUsdc.read.getAmountOut([false, 5_000_000_000n]),
      await f.daiPropAmm.read.getAmountOut([true, 10n ** 21n]),
      0n,
    ]);
    expect(again).to.deep.equal(quoted.slice(0, 2));
    expect(await pricing.exactQuotes(block, requests.slice(1, 3))).to.deep.equal(quoted.slice(1, 3));
    expect(ethCalls() - before, "cached at the same block").to.equal(1);
  });
});
