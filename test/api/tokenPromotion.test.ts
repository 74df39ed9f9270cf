import { expect } from "chai";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { erc20Abi, type Address } from "viem";
import type { IntegratorAdministration } from "../../api/store/integratorAdministration";
import { openIntegratorAdministration } from "../../api/store/openIntegratorAdministration";
import { uniswapArtifacts } from "../../scripts/deploy/uniswapArtifacts";
import { settlementFixture, type SettlementFixture } from "../fixtures/settlementFixture";
import { startTradingApi, type TradingApi } from "../fixtures/tradingApi";
import { newDevToken } from "../fixtures/newDevToken";
import { applied, createApiKey, newWallet } from "../fixtures/onboardingApi";

const PATH = "/tokens/supported-tokens?chain_id=4663";

describe("automatic promotion of demanded tokens", () => {
  let f: SettlementFixture;
  let api: TradingApi;
  let admin: IntegratorAdministration;
  beforeEach(async () => {
    f = await loadFixture(settlementFixture);
    api = await startTradingApi(f);
    admin = await openIntegratorAdministration(api.config);
  });
  afterEach(async () => {
    await admin.close();
    await api.close();
  });

  /**
   * Integrators onboarded through the real endpoints (AUTO_APPROVE on: active at once), each confirmed
   * by an operator unless `confirmed` is false; their ids and owners.
   */
  const integrators = async (count: number, confirmed = true) => {
    const made: { id: number; slug: string; owner: ReturnType<typeof newWallet> }[] = [];
    for (let i = 0; i < count; i++) {
      const owner = newWallet();
      const slug = `demand-${owner.address.slice(2, 12).toLowerCase()}`;
      made.push({ id: await applied(api, owner, { slug }), slug, owner });
      if (confirmed) expect((await admin.changeStatus(slug, "confirm", { actor: "ops", at: new Date(), reason: undefined })).outcome).to.equal("changed");
    }
    return made;
  };
  const ids = async (count: number) => (await integrators(count)).map((integrator) => integrator.id);

  /** What an attacker does right after promotion: take all of the pool's liquidity back (the deployer holds the LP tokens). */
  const withdrawLiquidity = async (pair: Address) => {
    const pairAbi = uniswapArtifacts.pair().abi;
    const lp = await f.publicClient.readContract({ address: pair, abi: erc20Abi, functionName: "balanceOf", args: [f.deployer.account.address] });
    await f.publicClient.waitForTransactionReceipt({ hash: await f.deployer.writeContract({ address: pair, abi: erc20Abi, functionName: "transfer", args: [pair, lp] }) });
    await f.publicClient.waitForTransactionReceipt({ hash: await f.deployer.writeContract({ address: pair, abi: pairAbi, functionName: "burn", args: [f.deployer.account.address] }) });
  };

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
    const [one, two, three] = await ids(3);

    demand(token.address, [one!, two!, one!, two!, two!]);
    let outcome = await api.served.jobs.flushDemand();
    expect(outcome.flush.written).to.equal(2);
    expect(outcome.promotions).to.deep.equal([]);
    expect(tokens.resolve(token.address)).to.equal(undefined);
    const unchanged = await api.request("GET", PATH, { headers: { "If-None-Match": before.etag } });
    expect(unchanged.status, "two integrators are not enough").to.equal(304);

    demand(token.address, [three!]);
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
    const [one, two, three] = await ids(3);
    demand(token.address, [one!, two!]);
    await api.served.jobs.flushDemand();
    api.clock.advance(25 * 3600);
    demand(token.address, [three!]);
    expect((await api.served.jobs.flushDemand()).promotions).to.deep.equal([]);
    demand(token.address, [one!, two!]);
    expect((await api.served.jobs.flushDemand()).promotions.map((outcome) => outcome.promoted)).to.deep.equal([true]);
  });

  it("does not promote a token without a pool, without code, or with too thin a pool, and rechecks it only after the recheck delay", async () => {
    const poolless = await newDevToken(f, { symbol: "NOPOOL" });
    const thin = await newDevToken(f, { symbol: "THIN", wethLiquidity: "0.1" });
    const codeless = "0x00000000000000000000000000000000c0ffee00" as Address;
    const three = await ids(3);
    for (const token of [poolless.address, thin.address, codeless]) demand(token, three);
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
    demand(token.address, await ids(3));
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

    demand(token.address, await ids(3));
    expect((await api.served.jobs.flushDemand()).promotions).to.deep.equal([]);
    expect(await api.served.jobs.refresh(), "nothing changed, nothing rebuilt").to.equal(0);
  });

  it("stopping the background jobs writes the demand still buffered, and later job calls do nothing", async () => {
    api.served.jobs.start();
    demand("0x00000000000000000000000000000000000000d1" as Address, [1, 2]);
    await api.served.jobs.stop();
    expect((await api.store.listTokenDemand({ since: new Date(0) })).map((row) => row.integrators)).to.deep.equal([2]);
    demand("0x00000000000000000000000000000000000000d2" as Address, [1]);
    expect(await api.served.jobs.flushDemand()).to.deep.equal({ flush: { written: 0, dropped: 0 }, promotions: [], rechecks: [] });
    expect(await api.served.jobs.refresh()).to.equal(0);
  });
  it("counts only integrators an operator approved or confirmed: three free auto-approved wallets asking through GET /quote promote nothing until confirmed", async () => {
    const token = await newDevToken(f, { symbol: "FREE", wethLiquidity: "10" });
    const wallets = await integrators(3, false);
    const before = await snapshot();
    // Each asks for the token through the real quote endpoint with its own key: a 400 that records demand.
    for (const { id, owner } of wallets) {
      const key = await createApiKey(api, owner, id);
      expect(key.status, key.text).to.equal(201);
      const refused = await api.request("GET", `/quote?sell_token=${token.address}&buy_token=WETH&sell_amount=1000&taker=${f.taker.account.address}`, {
        headers: { authorization: `Bearer ${key.body.api_key as string}` },
      });
      expect(refused.status).to.equal(400);
      expect(refused.body.code).to.equal("unsupported_token");
    }
    const flushed = await api.served.jobs.flushDemand();
    expect(flushed.flush.written).to.equal(3);
    expect(flushed.promotions, "auto-approved wallets cost nothing: their demand does not count").to.deep.equal([]);
    expect((await api.store.listTokenDemand({ since: new Date(0) })).map((row) => row.integrators)).to.deep.equal([3]);
    expect((await api.request("GET", PATH, { headers: { "If-None-Match": before.etag } })).status).to.equal(304);

    // An operator confirms two: still short of three.
    for (const { slug } of wallets.slice(0, 2)) await admin.changeStatus(slug, "confirm", { actor: "ops", at: new Date(), reason: undefined });
    expect((await api.served.jobs.flushDemand()).promotions).to.deep.equal([]);
    await admin.changeStatus(wallets[2]!.slug, "confirm", { actor: "ops", at: new Date(), reason: undefined });
    expect((await api.served.jobs.flushDemand()).promotions).to.deep.equal([{ chainId: 4663, token: token.address.toLowerCase(), integrators: 3, promoted: true }]);
    expect((await snapshot()).body.addresses).to.include(token.address.toLowerCase());
  });

  it("rechecks a promoted token every PROMOTION_RECHECK_MINUTES: one whose pool was withdrawn is demoted (new ETag, reason stored), one still funded is kept", async () => {
    const drained = await newDevToken(f, { symbol: "RUG", wethLiquidity: "10" });
    const funded = await newDevToken(f, { symbol: "KEEP", wethLiquidity: "10" });
    const three = await ids(3);
    demand(drained.address, three);
    demand(funded.address, three);
    expect((await api.served.jobs.flushDemand()).promotions.map((outcome) => outcome.promoted)).to.deep.equal([true, true]);
    const promoted = await snapshot();
    expect(promoted.body.addresses).to.include.members([drained.address.toLowerCase(), funded.address.toLowerCase()]);

    await withdrawLiquidity(drained.pair!);
    expect((await api.served.jobs.flushDemand()).rechecks, "not due before the interval").to.deep.equal([]);
    api.clock.advance(9 * 60);
    expect((await api.served.jobs.flushDemand()).rechecks).to.deep.equal([]);
    api.clock.advance(60);
    const { rechecks } = await api.served.jobs.flushDemand();
    const byToken = new Map(rechecks.map((outcome) => [outcome.token, outcome]));
    expect(byToken.get(funded.address.toLowerCase() as Address)).to.deep.equal({ chainId: 4663, token: funded.address.toLowerCase(), kept: true });
    const demotion = byToken.get(drained.address.toLowerCase() as Address)!;
    expect(demotion).to.deep.include({ kept: false, demoted: true });
    expect(!demotion.kept && demotion.reason).to.match(/demoted at its recheck on .*: its deepest pool .* holds \d+ wei of WETH value on the known side, below the minimum 1000000000000000000/);

    const after = await api.request("GET", PATH, { headers: { "If-None-Match": promoted.etag } });
    expect(after.status, "the snapshot changed at once").to.equal(200);
    expect(after.headers.get("etag")).to.not.equal(promoted.etag);
    expect(after.body.addresses).to.not.include(drained.address.toLowerCase());
    expect(after.body.addresses).to.include(funded.address.toLowerCase());
    expect(api.served.registry.get(4663)!.tokens.resolve(drained.address)).to.equal(undefined);
    const stored = (await api.store.listTokenOverrides(4663)).find((override) => override.token === drained.address.toLowerCase());
    expect(stored).to.deep.include({ status: "disabled", source: "demand", symbol: "RUG", reason: !demotion.kept ? demotion.reason : "" });

    // Refilling the pool and more demand do not bring it back: that is the operator's call (tokens enable).
    demand(drained.address, await ids(3));
    expect((await api.served.jobs.flushDemand()).promotions).to.deep.equal([]);
    api.clock.advance(10 * 60);
    expect((await api.served.jobs.flushDemand()).rechecks.map((outcome) => [outcome.token, outcome.kept])).to.deep.equal([[funded.address.toLowerCase(), true]]);
  });
});
