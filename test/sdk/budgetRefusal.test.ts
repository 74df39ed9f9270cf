import { expect } from "chai";
import { type GaslessStandingJson } from "../../sdk";
import { budgetRefusal, budgetRefusalOfStanding, parseBudgetRefusal } from "../../sdk/relay/budgetRefusal";

const view = { budget_gas: 100, charged_gas: 120, remaining_gas: 0, spent: true, frees_at: "2026-03-02T12:00:00.000Z" };
const open = { budget_gas: 1000, charged_gas: 0, remaining_gas: 1000, spent: false, frees_at: null };

describe("the one 'gas budget spent' body", () => {
  it("names the taker's spent budget first, with its address, and reads back as built", () => {
    const standing: GaslessStandingJson = { window_hours: 24, taker: { address: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", ...view }, integrator: { integrator_id: 7, ...view } };
    const body = budgetRefusalOfStanding(standing);
    expect(body).to.include({ code: "gasless_taker_gas_budget_spent", budget: "taker", address: standing.taker.address, charged_gas: 120, window_hours: 24 });
    expect(parseBudgetRefusal(JSON.parse(JSON.stringify(body)))).to.deep.equal(body);
  });

  it("an integrator's refusal with no ledger release time (its charges cleared meanwhile) says what frees it instead of a time", () => {
    const body = budgetRefusal("integrator", { ...open, spent: true, remaining_gas: 0 }, 24, "cancels are refused");
    expect(body).to.include({ code: "gasless_integrator_gas_budget_spent", address: null, frees_at: null });
    expect(body.error).to.match(/cancels are refused until its charges leave the window or an operator clears them/);
  });

  it("any other body is not a budget refusal", () => {
    for (const other of [undefined, null, "x", { code: "fee_token_not_accepted", error: "no" }, { code: "gasless_taker_gas_budget_spent", standing: {} }]) expect(parseBudgetRefusal(other)).to.equal(undefined);
  });
});
