import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { keccak256, toHex, type Address, type Hex } from "viem";
import { relayGasLimit } from "../../sdk";
import { handoffBudgetRefusal, inFlightGas } from "../../relayer/inFlightGas";
import { serialTurns } from "../../relayer/serialTurns";
import type { NewRelay, RelayStore } from "../../relayer/store/relayStore";
import { openPostgresRelayStore } from "../../relayer/store/postgresRelayStore";
import { openSqliteRelayStore } from "../../relayer/store/sqliteRelayStore";
import { createTestDatabase } from "../fixtures/postgresServer";

const TAKER: Address = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const OTHER_TAKER: Address = "0x90F79bf6EB2c4f870365E785982E1f101E93b906";
const NOW = new Date("2026-03-01T12:00:00Z");
const ESTIMATED_GAS = 200_000;
/** The worst case one of these relays can cost unpaid (its calldata is not a swap: the modelled limit). */
const WORST = relayGasLimit(ESTIMATED_GAS, 0);

function newRelay(overrides: Partial<NewRelay> = {}): NewRelay {
  return {
    id: randomUUID(),
    chainId: 4663,
    quoteId: randomUUID(),
    onchainQuoteId: `0x${"00".repeat(16)}${"ab".repeat(16)}`,
    integratorId: 7,
    apiKeyId: 1,
    idempotencyKey: undefined,
    taker: TAKER,
    router: "0x2546BcD3c84621e976D8185a91A922aE77ECEc30",
    data: "0x1234",
    signature: `0x${"11".repeat(65)}` as Hex,
    permit2Nonce: 5n,
    deadline: 1_900_000_000n,
    estimatedGas: ESTIMATED_GAS,
    acceptedBlock: 10n,
    createdAt: NOW,
    ...overrides,
  };
}

/** The hand-off route's admission: the budget check and the insert it allows, taking turns. */
function admit(store: RelayStore, budgets: { taker: bigint; integrator: bigint }) {
  const turn = serialTurns();
  return (relay: NewRelay) =>
    turn(async () => {
      const refusal = await handoffBudgetRefusal(store, budgets, relay, NOW);
      if (refusal !== undefined) return refusal;
      return (await store.createRelay(relay)).outcome;
    });
}

describe("the worst case of relays in flight counts against gas budgets", () => {
  it("sums each open relay's gas limit for its taker and its integrator, leaving out the relay being cancelled", () => {
    const relays = [newRelay(), newRelay({ taker: OTHER_TAKER }), newRelay({ integratorId: 8 })];
    expect(inFlightGas(relays, { taker: TAKER, integratorId: 7 })).to.deep.equal({ taker: 2n * WORST, integrator: 2n * WORST });
    expect(inFlightGas(relays, { taker: TAKER, integratorId: 7 }, relays[0]!.id)).to.deep.equal({ taker: WORST, integrator: WORST });
  });
});

type Engine = { name: string; open(): Promise<RelayStore>; cleanup(): void };
let directory: string;
const engines: Engine[] = [
  {
    name: "SQLite",
    open: async () => {
      directory = mkdtempSync(join(tmpdir(), "in-flight-"));
      return openSqliteRelayStore(join(directory, "relayer.sqlite"));
    },
    cleanup: () => rmSync(directory, { recursive: true, force: true }),
  },
  { name: "PostgreSQL", open: async () => openPostgresRelayStore(await createTestDatabase("in_flight")), cleanup: () => undefined },
];

for (const engine of engines) {
  describe(`concurrent hand-offs against gas budgets on ${engine.name}`, () => {
    let store: RelayStore;
    beforeEach(async () => {
      store = await engine.open();
    });
    afterEach(async () => {
      await store.close();
      engine.cleanup();
    });

    it("refuses hand-offs at once past a taker's budget: only those whose worst case fits are stored, so unpaid gas stays within budget plus one transaction", async () => {
      const budgets = { taker: 3n * WORST - 1n, integrator: 100n * WORST };
      // One turn queue per route: built once, as the route does.
      const handOff = admit(store, budgets);
      const outcomes = await Promise.all(Array.from({ length: 6 }, () => handOff(newRelay())));
      const others = await Promise.all(Array.from({ length: 6 }, () => handOff(newRelay({ taker: OTHER_TAKER }))));
      for (const results of [outcomes, others]) {
        expect(results.filter((result) => result === "created")).to.have.length(3);
        const refusals = results.filter((result) => typeof result === "object");
        expect(refusals).to.have.length(3);
        expect(refusals[0]).to.include({ code: "gasless_taker_gas_budget_spent", budget: "taker", charged_gas: 0, frees_at: null });
      }
      const open = await store.listOpenRelays();
      expect(open.filter((relay) => relay.taker === TAKER)).to.have.length(3);
      expect(3n * WORST <= budgets.taker + WORST, "the stored worst case is within budget plus one transaction").to.equal(true);
    });

    it("refuses hand-offs at once past an integrator's budget over many takers, counting its charged gas with its relays in flight", async () => {
      const charged = WORST / 2n;
      await store.recordUnpaidGas({ relayId: randomUUID(), taker: OTHER_TAKER, integratorId: 7, cause: "integrator", kind: "reverted_swap", gasUsed: charged, gasPrice: 1n, txHash: keccak256(toHex(randomUUID())), at: NOW, detail: "test" });
      const budgets = { taker: 100n * WORST, integrator: 2n * WORST };
      const handOff = admit(store, budgets);
      const takers = Array.from({ length: 5 }, (_, index) => `0x${(index + 1).toString(16).padStart(40, "0")}` as Address);
      const results = await Promise.all(takers.map((taker) => handOff(newRelay({ taker }))));
      // 0.5 charged: the first two fit (0.5, 1.5 < 2), the third would start at 2.5.
      expect(results.filter((result) => result === "created")).to.have.length(2);
      expect(results.filter((result) => typeof result === "object" && result.code === "gasless_integrator_gas_budget_spent")).to.have.length(3);
    });

    it("a retry of an accepted quote is not refused by its own relay in flight", async () => {
      const budgets = { taker: WORST, integrator: 100n * WORST };
      const handOff = admit(store, budgets);
      const relay = newRelay();
      expect(await handOff(relay)).to.equal("created");
      expect(await handOff({ ...relay, id: randomUUID() })).to.equal("existing");
      expect(await handOff(newRelay())).to.include({ code: "gasless_taker_gas_budget_spent" });
    });
  });
}
