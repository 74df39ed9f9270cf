import { expect } from "chai";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { randomUUID } from "node:crypto";
import { keccak256, toHex } from "viem";
import type { UnpaidGasEntry } from "../../relayer/ledger/unpaidGas";
import { gaslessReadyFixture, startGaslessStack, type GaslessStack } from "../fixtures/gaslessStack";
import { createApiKey, viewProfile } from "../fixtures/onboardingApi";

/**
 * The integrator sees its unpaid-gas budget where it sees its keys: POST /integrators/me and the
 * API-key response carry `gas_budget`, read from the relayer's ledger (GET /internal/gas-budget).
 */
describe("the integrator's gas budget on /integrators/me and in the key response", function () {
  this.timeout(60_000);
  let stack: GaslessStack;
  beforeEach(async () => {
    stack = await startGaslessStack(await loadFixture(gaslessReadyFixture), { relayerEnv: { RELAYER_TAKER_GAS_BUDGET: "300000", RELAYER_INTEGRATOR_GAS_BUDGET: "1000000" } });
  });
  afterEach(() => stack.close());

  const charge = (gasUsed: bigint, at: Date, cause: UnpaidGasEntry["cause"] = "taker"): UnpaidGasEntry => ({
    relayId: randomUUID(),
    taker: stack.api.owner.address,
    integratorId: stack.api.integratorId,
    cause,
    kind: cause === "integrator" ? "cancel_replacement" : "reverted_swap",
    gasUsed,
    gasPrice: 1_000_000_000n,
    txHash: keccak256(toHex(randomUUID())),
    at,
    detail: "test charge",
  });

  it("shows budget, charged and remaining gas (the market's and the operator's left out), and once spent when it frees up", async () => {
    const { api } = stack;
    const fresh = (await viewProfile(api, api.owner)).body.integrators[0].gas_budget;
    expect(fresh).to.deep.equal({
      window_hours: 24,
      taker_budget_gas: 300_000,
      integrator: { integrator_id: api.integratorId, budget_gas: 1_000_000, charged_gas: 0, remaining_gas: 1_000_000, spent: false, frees_at: null },
    });

    const store = stack.relayer!.context.store;
    const first = new Date(Date.now() - 3_600_000);
    await store.recordUnpaidGas(charge(400_000n, first));
    await store.recordUnpaidGas(charge(21_000n, new Date(), "integrator"));
    await store.recordUnpaidGas(charge(900_000n, new Date(), "market"));
    await store.recordUnpaidGas(charge(50_000n, new Date(), "operator"));
    const created = await createApiKey(api, api.owner, api.integratorId, "second key");
    expect(created.status).to.equal(201);
    expect(created.body.gas_budget.integrator).to.deep.include({ charged_gas: 421_000, remaining_gas: 579_000, spent: false, frees_at: null });

    await store.recordUnpaidGas(charge(600_000n, new Date()));
    const spent = (await viewProfile(api, api.owner)).body.integrators[0].gas_budget.integrator;
    // 1,021,000 charged: the oldest charge (400,000) leaving the window brings it below the budget.
    expect(spent).to.deep.equal({ integrator_id: api.integratorId, budget_gas: 1_000_000, charged_gas: 1_021_000, remaining_gas: 0, spent: true, frees_at: new Date(first.getTime() + 24 * 3_600_000).toISOString() });
  });

  it("shows null when the relayer cannot be reached, and the rest of the profile as usual", async () => {
    await stack.close();
    // Port 9 (discard) on loopback: nothing answers there.
    stack = await startGaslessStack(await loadFixture(gaslessReadyFixture), { gasless: { relayerUrls: ["http://127.0.0.1:9"] } });
    const profile = await viewProfile(stack.api, stack.api.owner);
    expect(profile.status).to.equal(200);
    expect(profile.body.integrators[0]).to.include({ integrator_id: stack.api.integratorId, gas_budget: null });
    expect(profile.body.integrators[0].api_keys).to.have.length(1);
  });
});
