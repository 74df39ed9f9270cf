import { expect } from "chai";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { getContract, parseUnits, type Address } from "viem";
import { propAmmAllowlistAbi } from "../../sdk/abis/propAmmAllowlistAbi";
import { checkTokenOnChain } from "../../api/tokens/tokenOnChainCheck";
import { closeSharedQuoteApis, quoteReady } from "../fixtures/quoteApi";
import { fixtureManifest } from "../fixtures/tradingApi";

after(closeSharedQuoteApis);

type Ready = Awaited<ReturnType<typeof quoteReady>>;

function allowlistOf({ f }: Ready) {
  const address = f.contracts.propAmmAllowlist;
  if (address === undefined) throw new Error("expected the devnet's propAMM allowlist");
  return getContract({ address, abi: propAmmAllowlistAbi, client: { public: f.publicClient, wallet: f.deployer } });
}

/** GET `path` (/quote or /price) with these parameters through the integrator's key. */
function ask({ api }: Ready, path: "/quote" | "/price", params: Record<string, string | bigint>) {
  return api.get(`${path}?${new URLSearchParams(Object.entries(params).map(([name, value]): [string, string] => [name, String(value)])).toString()}`);
}

describe("an allowlisted propAMM pair is never admitted as a quote's token (API)", () => {
  it("refuses LINK as sell_token or buy_token in /quote and /price (400 token_is_propamm_pair naming the field) while the registry lists it as a pair, and quotes it again once removed", async () => {
    const ready = await loadFixture(quoteReady);
    const { f } = ready;
    const [link, weth] = [f.token("LINK"), f.token("WETH")];
    const taker = f.taker.account.address;
    const sellLink = { sell_token: link, buy_token: weth, sell_amount: parseUnits("10", 18), taker };
    const buyLink = { sell_token: weth, buy_token: link, sell_amount: parseUnits("0.1", 18), taker };

    const before = await ask(ready, "/quote", sellLink);
    expect(before.status, JSON.stringify(before.body)).to.equal(200);

    const allowlist = allowlistOf(ready);
    await f.publicClient.waitForTransactionReceipt({ hash: await allowlist.write.add([link, f.token("DAI"), f.token("USDT")], { account: f.deployer.account }) });
    // /quote first: it reads a fresh head, which the indicative /price may then reuse.
    for (const path of ["/quote", "/price"] as const) {
      for (const [params, parameter] of [[sellLink, "sell_token"], [buyLink, "buy_token"]] as const) {
        const { status, body } = await ask(ready, path, params);
        expect(status, `${path} ${parameter}: ${JSON.stringify(body)}`).to.equal(400);
        expect(body!.code).to.equal("token_is_propamm_pair");
        expect(body!.parameter).to.equal(parameter);
        expect((body!.token as string).toLowerCase()).to.equal(link.toLowerCase());
        expect(body!.error).to.match(new RegExp(`^${parameter} LINK \\(0x[0-9a-fA-F]{40}\\) is allowlisted as a propAMM pair`));
      }
    }
    // A quote between two other tokens is untouched.
    const other = await ask(ready, "/quote", { sell_token: f.token("USDC"), buy_token: weth, sell_amount: parseUnits("100", 6), taker });
    expect(other.status, JSON.stringify(other.body)).to.equal(200);

    await f.publicClient.waitForTransactionReceipt({ hash: await allowlist.write.remove([link], { account: f.deployer.account }) });
    for (const params of [sellLink, buyLink]) {
      const again = await ask(ready, "/quote", params);
      expect(again.status, JSON.stringify(again.body)).to.equal(200);
    }
  });

  it("keeps an allowlisted pair out of promotion: the on-chain token check fails it, and passes it once removed", async () => {
    const ready = await loadFixture(quoteReady);
    const { f } = ready;
    const manifest = await fixtureManifest(f);
    const link = f.token("LINK");
    const bases = manifest.tokens.map((token) => token.address).filter((token: Address) => token.toLowerCase() !== link.toLowerCase());
    const check = () => checkTokenOnChain({ client: f.publicClient, manifest, token: link, bases, minLiquidityWei: 1n });
    expect((await check()).ok).to.equal(true);
    const allowlist = allowlistOf(ready);
    await f.publicClient.waitForTransactionReceipt({ hash: await allowlist.write.add([link, f.token("DAI"), f.token("USDT")], { account: f.deployer.account }) });
    const refused = await check();
    expect(refused.ok).to.equal(false);
    expect(!refused.ok && refused.unreadable).to.equal(false);
    expect(!refused.ok && refused.reason).to.match(/^is allowlisted as a propAMM pair on 0x[0-9a-fA-F]{40}: the routers never move a pair as a token$/);
    await f.publicClient.waitForTransactionReceipt({ hash: await allowlist.write.remove([link], { account: f.deployer.account }) });
    expect((await check()).ok).to.equal(true);
  });
});
