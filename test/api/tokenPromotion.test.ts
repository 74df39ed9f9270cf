import { expect } from "chai";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import type { Address } from "viem";
import { settlementFixture, type SettlementFixture } from "../fixtures/settlementFixture";
import { startTradingApi, type TradingApi } from "../fixtures/tradingApi";
import { newDevToken } from "../fixtures/newDevToken";

const PATH = "/tokens/supported-tokens?chain_id=4663";

describe("automatic promotion of demanded tokens", () => {
  let f: SettlementFixture;
  let api: TradingApi;
  beforeEach(async () => {
    f = await loadFixture(settlementFixture);
    api = await startTradingApi(f);
  });
  afterEach(() => api.close());

  /** What the quote path does on an unsupported-token 400, for each of these integrators, at the test clock's now. */
  const demand = (token: Address, integrators: readonly number[]) => {
    const chain = api.served.registry.get(4663)!;
    for (const integratorId of integrators) chain.demand.record({ chainId: 4663, token, integratorId, at: api.clock.now() });
  };
  const snapshot = async () => {
    const response = await api.request("GET", PATH);
    return { etag: response.headers.get("etag")!, body: response.body as { snapshot_id: string; count: number; addresses: string[] } };
  };

  it("promotes a token with a funded pool once three distinct integrators asked: new snapshot, new ETag, its pool routable, its symbol an alias", async () => {
    const token = await newDevToken(f, { symbol: "DMD", wethLiquidity: "10" });
    const before = await snapshot();
    const tokens = api.served.registry.get(4663)!.tokens;

    demand(token.address, [1, 2, 1, 2, 2]);
    let outcome = await api.served.jobs.flushDemand();
    expect(outcome.flush.written).to.equal(2);
    expect(outcome.promotions).to.deep.equal([]);
    expect(tokens.resolve(token.address)).to.equal(undefined);
    const unchanged = await api.request("GET", PATH, { headers: { "If-None-Match": before.etag } });
    expect(unchanged.status, "two integrators are not enough").to.equal(304);

    demand(token.address, [3]);
    outcome = await api.served.jobs.flushDemand();
    expect(outcome.promotions).to.deep.equal([{ chainId: 4663, token: token.address.toLowerCase(), integrators: 3, promoted: true }]);

    const after = await api.request("GET", PATH, { headers: { "If-None-Match": before.etag } });
    expect(after.status).to.equal(200);
    expect(after.headers.get("etag")).to.not.equal(before.etag);
    expect(after.body.snapshot_id).to.not.equal(before.body.snapshot_id);
    expect(after.body.count).to.equal(before.body.count + 1);
    expect(after.body.addresses).to.include(token.address.toLowerCase());
    expect(tokens.resolve("dmd")).to.deep.equal({ address: token.address.toLowerCase(), symbol: "DMD", decimals: 18 });
    expect(tokens.pools().map((pool) => pool.address)).to.include(token.pair);
    const [override] = await api.store.listTokenOverrides(4663);
    expect(override).to.deep.include({ token: token.address.toLowerCase(), status: "promoted", source: "demand", symbol: "DMD", decimals: 18 });
  });

  it("counts only integrators seen within the window", async () => {
    const token = await newDevToken(f, { symbol: "OLD", wethLiquidity: "10" });
    demand(token.address, [1, 2]);
    await api.served.jobs.flushDemand();
    api.clock.advance(25 * 3600);
    demand(token.address, [3]);
    expect((await api.served.jobs.flushDemand()).promotions).to.deep.equal([]);
    demand(token.address, [1, 2]);
    expect((await api.served.jobs.flushDemand()).promotions.map((outcome) => outcome.promoted)).to.deep.equal([true]);
  });

  it("does not promote a token without a pool, without code, or with too thin a pool, and rechecks it only after the recheck delay", async () => {
    const poolless = await newDevToken(f, { symbol: "NOPOOL" });
    const thin = await newDevToken(f, { symbol: "THIN", wethLiquidity: "0.1" });
    const codeless = "0x00000000000000000000000000000000c0ffee00" as Address;
    for (const token of [poolless.address, thin.address, codeless]) demand(token, [1, 2, 3]);
    const before = (await snapshot()).etag;

    const { promotions } = await api.served.jobs.flushDemand();
    const reasons = new Map(promotions.map((outcome) => [outcome.token, outcome.promoted ? "promoted" : outcome.reason]));
    expect(reasons.get(poolless.address.toLowerCase() as Address)).to.match(/no Uniswap V2 pool/);
    expect(reasons.get(thin.address.toLowerCase() as Address)).to.match(/below the minimum/);
    expect(reasons.get(codeless)).to.match(/no contract code/);
    expect((await snapshot()).etag).to.equal(before);

    expect((await api.served.jobs.flushDemand()).promotions, "no recheck before the delay").to.deep.equal([]);
    api.clock.advance(10 * 60);
    expect((await api.served.jobs.flushDemand()).promotions).to.have.length(3);
  });

  it("a token disabled by the operator leaves the snapshot at the next refresh and is not promoted again", async () => {
    const token = await newDevToken(f, { symbol: "GONE", wethLiquidity: "10" });
    demand(token.address, [1, 2, 3]);
    await api.served.jobs.flushDemand();
    const promoted = await snapshot();
    expect(promoted.body.addresses).to.include(token.address.toLowerCase());

    // The operator CLI is another process: it only writes the database.
    await api.store.saveTokenOverride(
      { chainId: 4663, token: token.address.toLowerCase() as Address, status: "disabled", source: "operator", symbol: undefined, decimals: undefined, pool: undefined, reason: "test", chainRun: api.manifest.deployBlockHash, at: api.clock.now() },
      "replace",
    );
    expect((await snapshot()).etag, "unchanged until the refresh").to.equal(promoted.etag);
    expect(await api.served.jobs.refresh()).to.equal(1);
    const disabled = await snapshot();
    expect(disabled.etag).to.not.equal(promoted.etag);
    expect(disabled.body.addresses).to.not.include(token.address.toLowerCase());
    expect(api.served.registry.get(4663)!.tokens.pools().map((pool) => pool.address)).to.not.include(token.pair);

    demand(token.address, [4, 5, 6]);
    expect((await api.served.jobs.flushDemand()).promotions).to.deep.equal([]);
    expect(await api.served.jobs.refresh(), "nothing changed, nothing rebuilt").to.equal(0);
  });

  it("stopping the background jobs writes the demand still buffered, and later job calls do nothing", async () => {
    api.served.jobs.start();
    demand("0x00000000000000000000000000000000000000d1" as Address, [1, 2]);
    await api.served.jobs.stop();
    expect((await api.store.listTokenDemand({ since: new Date(0) })).map((row) => row.integrators)).to.deep.equal([2]);
    demand("0x00000000000000000000000000000000000000d2" as Address, [1]);
    expect(await api.served.jobs.flushDemand()).to.deep.equal({ flush: { written: 0, dropped: 0 }, promotions: [] });
    expect(await api.served.jobs.refresh()).to.equal(0);
  });
});
