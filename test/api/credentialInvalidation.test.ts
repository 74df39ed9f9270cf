import { expect } from "chai";
import hre from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { parseUnits } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { loadApiConfig } from "../../api/config";
import { startApi } from "../../api/startApi";
import type { RunningServer } from "../../api/serveApp";
import { openPgIntegratorAdministration } from "../../api/store/postgres/postgresStore";
import type { IntegratorAdministration } from "../../api/store/integratorAdministration";
import { manifestPath, onboardIntegrator, writeManifest } from "../../sdk";
import { startChainServer, type ChainServer } from "../../scripts/devnet/chainServer";
import { createTestDatabase } from "../fixtures/postgresServer";
import { settlementFixture } from "../fixtures/settlementFixture";
import { fixtureManifest } from "../fixtures/tradingApi";

/**
 * Two API instances on one PostgreSQL, each caching credentials while it listens for NOTIFY
 * api_credentials: an operator's revocation or suspension (written by a third party, the operator's
 * CLI) is refused by BOTH instances on their next request, though both had the key cached.
 */
describe("cached credentials on PostgreSQL: revocation and suspension reach every instance", function () {
  this.timeout(180_000);
  let chain: ChainServer;
  let directory: string;
  let url: string;
  const apis: RunningServer[] = [];
  let operator: IntegratorAdministration;
  const by = { actor: "test", at: new Date(), reason: undefined };

  before(async () => {
    const manifest = await fixtureManifest(await loadFixture(settlementFixture));
    directory = mkdtempSync(join(tmpdir(), "credential-invalidation-"));
    writeManifest(manifestPath(directory, 4663), manifest);
    chain = await startChainServer(hre, "127.0.0.1", 0);
    url = await createTestDatabase("credential_invalidation");
    for (let index = 0; index < 2; index++) {
      const config = { ...loadApiConfig({ API_PORT: "0", AUTO_APPROVE: "true", DATABASE_URL: url, DEPLOYMENTS_DIR: directory }), rpcUrl: chain.url };
      apis.push(await startApi(config, pino({ level: "silent" })));
    }
    operator = await openPgIntegratorAdministration(url);
  });

  after(async () => {
    await operator?.close();
    for (const api of apis) await api.close();
    await chain?.close();
    if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
  });

  async function onboard(): Promise<{ secret: string; keyId: number; slug: string }> {
    const owner = privateKeyToAccount(generatePrivateKey());
    const slug = `cache-${owner.address.slice(2, 10).toLowerCase()}`;
    const onboarded = await onboardIntegrator({
      baseUrl: apis[0]!.url,
      account: owner,
      application: { chain_id: 4663, display_name: "Cache", slug, requested_max_fee_bps: 0 },
      keyLabel: "cache",
    });
    return { secret: onboarded.apiKey!.secret, keyId: onboarded.apiKey!.keyId, slug };
  }

  const quotePath = `/quote?${new URLSearchParams({ sell_token: "USDC", buy_token: "WETH", sell_amount: parseUnits("10", 6).toString(), taker: privateKeyToAccount(generatePrivateKey()).address })}`;
  async function quote(api: RunningServer, key: string): Promise<{ status: number; code?: string }> {
    const response = await fetch(`${api.url}${quotePath}`, { headers: { authorization: `Bearer ${key}` } });
    const body = (await response.json()) as { code?: string };
    return { status: response.status, code: body.code };
  }

  /**
   * The bound on a change's reach: an instance acts on it once PostgreSQL's notification (sent at the
   * change's commit) arrives, milliseconds later on one host. Polls until `expected`, for at most 2 s.
   */
  const NOTIFY_BOUND_MS = 2_000;
  async function answersWithin(api: RunningServer, key: string, expected: { status: number; code?: string }): Promise<void> {
    const deadline = Date.now() + NOTIFY_BOUND_MS;
    let last = await quote(api, key);
    while (!(last.status === expected.status && (expected.code === undefined || last.code === expected.code)) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      last = await quote(api, key);
    }
    expect(last.status === expected.status ? { status: last.status, ...(expected.code === undefined ? {} : { code: last.code }) } : last).to.deep.equal(expected);
  }

  /** Both instances serve the key (and so hold it in their caches). */
  async function warm(key: string): Promise<void> {
    for (const api of apis) for (let index = 0; index < 2; index++) expect((await quote(api, key)).status).to.equal(200);
  }

  it("an operator's revocation is refused (401 api_key_revoked) on both instances once the notification arrives (within 2 s)", async () => {
    const { secret, keyId } = await onboard();
    await warm(secret);
    expect(await operator.revokeKey(keyId, by)).to.include({ outcome: "revoked" });
    await answersWithin(apis[1]!, secret, { status: 401, code: "api_key_revoked" });
    await answersWithin(apis[0]!, secret, { status: 401, code: "api_key_revoked" });
  });

  it("an operator's suspension is refused (403 integrator_not_active) on both instances once the notification arrives (within 2 s), and reinstatement serves again", async () => {
    const { secret, slug } = await onboard();
    await warm(secret);
    expect(await operator.changeStatus(slug, "suspend", by)).to.include({ outcome: "changed" });
    await answersWithin(apis[1]!, secret, { status: 403, code: "integrator_not_active" });
    await answersWithin(apis[0]!, secret, { status: 403, code: "integrator_not_active" });
    await operator.changeStatus(slug, "reinstate", by);
    await answersWithin(apis[1]!, secret, { status: 200 });
    await answersWithin(apis[0]!, secret, { status: 200 });
  });

  it("a key's lowered limit reaches both instances once the notification arrives (within 2 s)", async () => {
    const { secret, keyId } = await onboard();
    await warm(secret);
    // Four quotes were served this minute: with a limit of 1, the next one is refused on either instance.
    await operator.changeKeyLimits(keyId, { quoteRateLimitPerMinute: 1 }, by);
    await answersWithin(apis[1]!, secret, { status: 429, code: "rate_limited" });
    await answersWithin(apis[0]!, secret, { status: 429, code: "rate_limited" });
  });
});
