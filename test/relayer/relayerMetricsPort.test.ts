import { expect } from "chai";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { randomUUID } from "node:crypto";
import pino from "pino";
import { gaslessReadyFixture, RELAYER_TOKEN, startGaslessStack, type GaslessStack } from "../fixtures/gaslessStack";
import type { UnpaidGasEntry } from "../../relayer/ledger/unpaidGas";

/**
 * The relayer's metrics tell its signers' balances: they are served on RELAYER_METRICS_PORT only,
 * never on the internal endpoint every API instance reaches, nor on the API's public port.
 */
describe("relayer metrics on a port of their own", function () {
  this.timeout(60_000);
  let stack: GaslessStack | undefined;
  afterEach(async () => {
    await stack?.close();
    stack = undefined;
  });

  it("serves GET /metrics, signer balances included, on RELAYER_METRICS_PORT, and not on the internal port even with the token", async () => {
    stack = await startGaslessStack(await loadFixture(gaslessReadyFixture));
    const relayer = stack.relayer!;
    expect(relayer.metricsUrl).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
    const scraped = await (await fetch(`${relayer.metricsUrl}/metrics`)).text();
    expect(scraped).to.match(/^relayer_signer_balance_wei\{signer="0x[0-9a-fA-F]{40}"\} [0-9.e+]+$/m);
    const internal = await fetch(`${relayer.url}/metrics`, { headers: { authorization: `Bearer ${RELAYER_TOKEN}` } });
    expect(internal.status).to.equal(404);
    const publicApi = await stack.api.request("GET", "/metrics");
    expect(publicApi.status).to.equal(404);
    for (const path of ["/health", "/ready"]) expect((await stack.api.request("GET", path)).text).to.not.match(/balance/i);
  });

  it("serves the unpaid-gas ledger by cause and kind (gas, wei, charges) from the store, an entry recorded twice counted once and every scrape the same; the operator's own costs are logged at warn", async () => {
    const lines: string[] = [];
    const f = await loadFixture(gaslessReadyFixture);
    stack = await startGaslessStack(f, { relayerLogger: pino({ level: "warn" }, { write: (line: string) => void lines.push(line) }) });
    const entry = (overrides: Partial<UnpaidGasEntry>): UnpaidGasEntry => ({
      relayId: randomUUID(),
      taker: f.taker.account.address,
      integratorId: stack!.api.integratorId,
      cause: "taker",
      kind: "reverted_swap",
      gasUsed: 100_000n,
      gasPrice: 3_000_000_000n,
      txHash: `0x${"ab".repeat(32)}`,
      at: new Date(),
      detail: "the swap reverted",
      ...overrides,
    });
    const store = stack.relayer!.context.store;
    const reverted = entry({});
    expect(await store.recordUnpaidGas(reverted)).to.equal(true);
    expect(await store.recordUnpaidGas(reverted)).to.equal(false); // a retry after a crash: no second charge
    await store.recordUnpaidGas(entry({ cause: "operator", kind: "nonce_release", gasUsed: 21_000n, txHash: `0x${"cd".repeat(32)}`, detail: "the deadline passed" }));
    const scrape = async () => (await (await fetch(`${stack!.relayer!.metricsUrl}/metrics`)).text()).split("\n");
    const expected = [
      'relayer_unpaid_gas{cause="operator",kind="nonce_release"} 21000',
      'relayer_unpaid_gas{cause="taker",kind="reverted_swap"} 100000',
      'relayer_unpaid_gas_wei{cause="operator",kind="nonce_release"} 63000000000000',
      'relayer_unpaid_gas_wei{cause="taker",kind="reverted_swap"} 300000000000000',
      'relayer_unpaid_gas_charges{cause="operator",kind="nonce_release"} 1',
      'relayer_unpaid_gas_charges{cause="taker",kind="reverted_swap"} 1',
    ];
    expect(await scrape()).to.include.members(expected);
    // Scraped again, the totals are the same (they are read, not added up per scrape).
    expect(await scrape()).to.include.members(expected);
    const warned = lines.map((line) => JSON.parse(line) as { level: number; msg: string; relayId?: string; hash?: string }).filter((line) => line.msg === "unpaid gas caused by the operator");
    expect(warned.map((line) => [line.level, line.hash])).to.deep.equal([[40, `0x${"cd".repeat(32)}`]]);
    expect(warned[0]!.relayId).to.be.a("string");
  });

  it("serves no metrics at all without RELAYER_METRICS_PORT", async () => {
    stack = await startGaslessStack(await loadFixture(gaslessReadyFixture), { relayerEnv: { RELAYER_METRICS_PORT: undefined } });
    expect(stack.relayer!.metricsUrl).to.equal(undefined);
    expect((await fetch(`${stack.relayer!.url}/metrics`)).status).to.equal(401);
  });
});
