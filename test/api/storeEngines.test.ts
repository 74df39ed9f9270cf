import { expect } from "chai";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getAddress, type Address, type Hex } from "viem";
import { defaultApiKeyScopes } from "../../api/apiKeyScopes";
import { OnboardingAction } from "../../sdk";
import { openPostgresStore } from "../../api/store/postgres/postgresStore";
import { openSqliteStore } from "../../api/store/sqlite/sqliteStore";
import type {
  NewApiKey,
  NewIntegrator,
  Store,
} from "../../api/store/store";
import { createTestDatabase } from "../fixtures/postgresServer";
import { quote } from "../fixtures/quoteRecord";

const owner: Address = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const token: Address = "0x5fbdb2315678afecb367f032d93f642f64180aa3";
const issuedAt = new Date("2026-01-01T00:00:00.000Z");
const during = new Date("2026-01-01T00:05:00.000Z");
/** MAX_API_KEYS_PER_INTEGRATOR for the tests that are not about it. */
const KEY_LIMIT = 100;

/** The same behaviour, asserted against each engine: the handlers cannot tell them apart. */
const engines: {
  name: string;
  open(): Promise<{ store: Store; cleanup(): void }>;
}[] = [
  {
    name: "SQLite",
    open: async () => {
      const directory = mkdtempSync(join(tmpdir(), "store-engines-"));
      return {
        store: openSqliteStore(join(directory, "api.sqlite")),
        cleanup: () => rmSync(directory, { recursive: true, force: true }),
      };
    },
  },
  {
    name: "PostgreSQL",
    open: async () => ({
      store: await openPostgresStore(await createTestDatabase("api_store")),
      cleanup: () => undefined,
    }),
  },
];

function integrator(
  slug: string,
  status: NewIntegrator["status"] = "active",
): NewIntegrator {
  return {
    slug,
    ownerWallet: owner,
    displayName: slug,
    contactEmail: undefined,
    telegramHandle: undefined,
    appUrl: undefined,
    feeRecipient: owner,
    maxFeeBps: 30,
    chainId: 4663,
    status,
    createdAt: issuedAt,
  };
}

function apiKey(integratorId: number, secretHash: string): NewApiKey {
  return {
    integratorId,
    label: "k",
    prefix: "tsk_abcd",
    lastFour: secretHash.slice(-4),
    secretHash,
    scopes: defaultApiKeyScopes,
    quoteRateLimitPerMinute: 60,
    swapRateLimitPerMinute: 10,
    createdAt: issuedAt,
  };
}

for (const engine of engines) {
  describe(`store on ${engine.name}`, () => {
    let store: Store;
    let cleanup: () => void;
    let nonces = 0;
    beforeEach(async () => ({ store, cleanup } = await engine.open()));
    afterEach(async () => {
      await store.close();
      cleanup();
    });

    async function challenge(
      action: OnboardingAction = OnboardingAction.CreateApiKey,
    ): Promise<string> {
      nonces += 1;
      const nonce = `nonce${String(nonces).padStart(8, "0")}`;
      await store.saveChallenge({
        nonce,
        wallet: owner,
        action,
        chainId: 4663,
        payloadHash: undefined,
        message: "m",
        issuedAt,
        expiresAt: new Date(issuedAt.getTime() + 600_000),
      });
      return nonce;
    }

    async function activeProfile(slug: string): Promise<number> {
      const created = await store.createIntegrator(integrator(slug), {
        nonce: await challenge(OnboardingAction.CreateApplication),
        at: during,
      });
      if (created.outcome !== "created") throw new Error(created.outcome);
      return created.integrator.id;
    }

    it("spends a nonce exactly once when 20 requests race to create a key with it", async () => {
      const id = await activeProfile("racer");
      const nonce = await challenge();
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          store.createApiKey(apiKey(id, `hash${index}`), { nonce, at: during }, KEY_LIMIT),
        ),
      );
      expect(
        results.filter((result) => result.outcome === "created"),
      ).to.have.length(1);
      expect(
        results.filter((result) => result.outcome === "nonce_used"),
      ).to.have.length(19);
      expect(await store.listApiKeys([id])).to.have.length(1);
      expect(await store.consumeChallenge({ nonce, at: during })).to.equal(
        "used",
      );
      expect((await store.findChallenge(nonce))?.usedAt).to.deep.equal(during);
    });

    it("lets at most 3 signature checks of one nonce run at once, gives back the valid and unavailable ones, and spends the nonce at the third failure", async () => {
      const nonce = await challenge();
      const use = { nonce, at: during };
      // 10 racing checks: 3 start, the others are told the nonce is used up.
      const starts = await Promise.all(Array.from({ length: 10 }, () => store.beginVerification(use, 3)));
      expect(starts.filter((start) => start === "started")).to.have.length(3);
      expect(starts.filter((start) => start === "used_up")).to.have.length(7);
      await store.settleVerification(use, "valid", 3);
      await store.settleVerification(use, "unavailable", 3);
      expect((await store.findChallenge(nonce))?.failedVerifications).to.equal(1);
      expect(await store.beginVerification(use, 3)).to.equal("started");
      await store.settleVerification(use, "invalid", 3);
      expect((await store.findChallenge(nonce))?.usedAt).to.equal(undefined);
      expect(await store.beginVerification(use, 3)).to.equal("started");
      await store.settleVerification(use, "invalid", 3);
      const spent = await store.findChallenge(nonce);
      expect([spent?.usedAt, spent?.failedVerifications]).to.deep.equal([during, 3]);
      expect(await store.beginVerification(use, 3)).to.equal("used_up");
      expect(await store.consumeChallenge(use)).to.equal("used");

      // A nonce spent by its request, or expired, is said to be so.
      const used = await challenge();
      expect(await store.consumeChallenge({ nonce: used, at: during })).to.equal("consumed");
      expect(await store.beginVerification({ nonce: used, at: during }, 3)).to.equal("used");
      const late = await challenge();
      expect(await store.beginVerification({ nonce: late, at: new Date(issuedAt.getTime() + 600_000) }, 3)).to.equal("expired");
    });

    it("creates a key only for an active profile, and leaves the nonce unspent when it refuses", async () => {
      const pending = await store.createIntegrator(
        integrator("waiting", "pending"),
        {
          nonce: await challenge(OnboardingAction.CreateApplication),
          at: during,
        },
      );
      if (pending.outcome !== "created") throw new Error(pending.outcome);
      const nonce = await challenge();
      expect(
        (
          await store.createApiKey(apiKey(pending.integrator.id, "h1"), {
            nonce,
            at: during,
          }, KEY_LIMIT)
        ).outcome,
      ).to.equal("integrator_not_active");
      expect(
        (await store.createApiKey(apiKey(9999, "h2"), { nonce, at: during }, KEY_LIMIT))
          .outcome,
      ).to.equal("integrator_not_found");
      expect(
        (await store.approveIntegrator("waiting", during)).outcome,
      ).to.equal("approved");
      // An approval by the operator vouches for the profile: its demand counts toward promotion.
      expect((await store.findIntegrator(pending.integrator.id))?.operatorApprovedAt).to.deep.equal(during);
      expect(
        (await store.approveIntegrator("waiting", during)).outcome,
      ).to.equal("already_active");
      expect(
        (
          await store.createApiKey(apiKey(pending.integrator.id, "h3"), {
            nonce,
            at: during,
          }, KEY_LIMIT)
        ).outcome,
      ).to.equal("created");
    });

    it("gives a slug to one of two racing profiles; the other is told it is taken", async () => {
      const [a, b] = [
        await challenge(OnboardingAction.CreateApplication),
        await challenge(OnboardingAction.CreateApplication),
      ];
      const results = await Promise.all([
        store.createIntegrator(integrator("same"), { nonce: a, at: during }),
        store.createIntegrator(integrator("same"), { nonce: b, at: during }),
      ]);
      expect(results.map((result) => result.outcome).sort()).to.deep.equal([
        "created",
        "slug_taken",
      ]);
      expect(
        await store.listIntegrators({ ownerWallet: owner }),
      ).to.have.length(1);
    });

    it("caps a profile's keys that are not revoked, also when 6 creations race for the last 3 places; a revoked key frees its place; a refusal does not spend the nonce", async () => {
      const id = await activeProfile("capped");
      for (let index = 0; index < 2; index++) {
        expect((await store.createApiKey(apiKey(id, `cap-${index}`), { nonce: await challenge(), at: during }, 5)).outcome).to.equal("created");
      }
      const nonces = await Promise.all(Array.from({ length: 6 }, () => challenge()));
      const raced = await Promise.all(nonces.map((nonce, index) => store.createApiKey(apiKey(id, `race-${index}`), { nonce, at: during }, 5)));
      expect(raced.filter((result) => result.outcome === "created")).to.have.length(3);
      expect(raced.filter((result) => result.outcome === "key_limit_reached").map((result) => (result as { active: number }).active)).to.deep.equal([5, 5, 5]);
      const refusedNonce = nonces[raced.findIndex((result) => result.outcome === "key_limit_reached")]!;
      const first = (await store.listApiKeys([id]))[0]!;
      expect((await store.revokeApiKey(first.id, during, { nonce: await challenge(OnboardingAction.RevokeApiKey), at: during })).outcome).to.equal("revoked");
      // The refused request's nonce is still good, and the revoked key's place is free.
      expect((await store.createApiKey(apiKey(id, "after-revoke"), { nonce: refusedNonce, at: during }, 5)).outcome).to.equal("created");
      expect((await store.createApiKey(apiKey(id, "one-more"), { nonce: await challenge(), at: during }, 5)).outcome).to.equal("key_limit_reached");
    });

    it("revokes a key once and finds credentials by prefix with their profile", async () => {
      const id = await activeProfile("revoker");
      const created = await store.createApiKey(apiKey(id, "secret-hash-1"), {
        nonce: await challenge(),
        at: during,
      }, KEY_LIMIT);
      if (created.outcome !== "created") throw new Error(created.outcome);
      const [credential] = await store.findCredentialsByPrefix("tsk_abcd");
      expect(credential?.secretHash).to.equal("secret-hash-1");
      expect(credential?.integrator.slug).to.equal("revoker");
      expect(credential?.key).to.deep.equal(created.key);
      expect(
        (
          await store.revokeApiKey(created.key.id, during, {
            nonce: await challenge(OnboardingAction.RevokeApiKey),
            at: during,
          })
        ).outcome,
      ).to.equal("revoked");
      expect(
        (
          await store.revokeApiKey(created.key.id, during, {
            nonce: await challenge(OnboardingAction.RevokeApiKey),
            at: during,
          })
        ).outcome,
      ).to.equal("already_revoked");
      expect((await store.findApiKey(created.key.id))?.revokedAt).to.deep.equal(
        during,
      );
    });

    it("aggregates token demand per integrator, honours decisions of the same chain run, and prunes", async () => {
      const at = (minutes: number) =>
        new Date(issuedAt.getTime() + minutes * 60_000);
      await store.recordTokenDemand([
        {
          chainId: 4663,
          token,
          integratorId: 1,
          firstSeen: at(5),
          lastSeen: at(6),
        },
        {
          chainId: 4663,
          token,
          integratorId: 2,
          firstSeen: at(1),
          lastSeen: at(2),
        },
      ]);
      await store.recordTokenDemand([
        {
          chainId: 4663,
          token,
          integratorId: 1,
          firstSeen: at(0),
          lastSeen: at(9),
        },
      ]);
      expect(await store.listTokenDemand({ since: at(0) })).to.deep.equal([
        {
          chainId: 4663,
          token,
          integrators: 2,
          firstSeen: at(0),
          lastSeen: at(9),
        },
      ]);
      const run: Hex = `0x${"11".repeat(32)}`;
      const decision = {
        chainId: 4663,
        token,
        status: "disabled",
        source: "operator",
        symbol: undefined,
        decimals: undefined,
        pool: undefined,
        reason: "r",
        chainRun: run,
        at: at(3),
      } as const;
      expect(await store.saveTokenOverride(decision, "if_absent")).to.equal(
        true,
      );
      expect(
        await store.saveTokenOverride(
          { ...decision, reason: "later" },
          "if_absent",
        ),
      ).to.equal(false);
      expect(
        await store.listTokenDemand({
          since: at(0),
          withoutOverride: true,
          chainRun: run,
        }),
      ).to.deep.equal([]);
      expect(
        await store.saveTokenOverride(
          { ...decision, reason: "operator's word", at: at(4) },
          "replace",
        ),
      ).to.equal(true);
      const [saved] = await store.listTokenOverrides(4663);
      expect(saved).to.deep.include({
        reason: "operator's word",
        createdAt: at(3),
        updatedAt: at(4),
        chainRun: run,
      });
      expect(await store.removeTokenOverride(4663, token)).to.equal(true);
      expect(await store.pruneTokenDemand(at(5))).to.equal(1);
    });

    it("keeps a promoted token's measured transfer taxes with its decision, replaces them with the next decision, and reads none where none were stored", async () => {
      const token = "0x00000000000000000000000000000000000000aa" as Address;
      const pool = { address: getAddress("0x00000000000000000000000000000000000000bb"), token0: getAddress(token), token1: getAddress("0x00000000000000000000000000000000000000cc"), type: "uniswap-v2", source: "uniswap-v2", feeBps: 30 } as const;
      const run: Hex = `0x${"22".repeat(32)}`;
      const at = (minutes: number) => new Date(issuedAt.getTime() + minutes * 60_000);
      const promoted = { chainId: 4663, token, status: "promoted", source: "demand", symbol: "TAX", decimals: 18, pool, reason: "r", chainRun: run, at: at(1) } as const;
      expect(await store.saveTokenOverride({ ...promoted, tax: { buyTaxBps: 300, sellTaxBps: 500, transferTaxBps: 100 } }, "if_absent")).to.equal(true);
      expect((await store.listTokenOverrides(4663))[0]!.tax).to.deep.equal({ buyTaxBps: 300, sellTaxBps: 500, transferTaxBps: 100 });
      expect(await store.saveTokenOverride({ ...promoted, status: "enabled", source: "operator", tax: { buyTaxBps: 0, sellTaxBps: 0, transferTaxBps: 0 }, at: at(2) }, "replace")).to.equal(true);
      expect((await store.listTokenOverrides(4663))[0]!.tax).to.deep.equal({ buyTaxBps: 0, sellTaxBps: 0, transferTaxBps: 0 });
      expect(await store.saveTokenOverride({ ...promoted, status: "disabled", source: "operator", at: at(3) }, "replace")).to.equal(true);
      expect((await store.listTokenOverrides(4663))[0]!.tax).to.equal(undefined);
    });

    it("reads a buffered quote at once, and drops only the record that breaks a constraint", async () => {
      const id: Hex = `0x${"00".repeat(31)}01`;
      const record = quote(id, "first");
      await store.saveQuote(record);
      await store.saveQuote(quote(id, "duplicate on-chain id"));
      await store.saveQuote(quote(`0x${"00".repeat(31)}02`, "third"));
      expect(await store.findQuoteByOnchainId(4663, id)).to.deep.equal(record);
      expect((await store.findQuote("third"))?.onchainId).to.equal(
        `0x${"00".repeat(31)}02`,
      );
      expect(await store.findQuote("duplicate on-chain id")).to.equal(
        undefined,
      );
    });
  });
}
