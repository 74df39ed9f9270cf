import { expect } from "chai";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { erc20Abi, getAddress, type Address } from "viem";
import {
  ApiError,
  InsufficientBalanceError,
  QuoteKindError,
  StaleQuoteError,
  TokenNotSupportedError,
  UntrustedRouterError,
  createTradingClient,
  type FetchFunction,
  type QuoteJson,
} from "../../sdk";
import { DEV_KEYS, sharedDevnet, type SharedDevnet } from "../fixtures/sharedDevnet";
import { fundedTaker } from "../fixtures/fundedTaker";
import hre from "hardhat";
import { devAccounts } from "../../scripts/devnet/devAccounts";

const ROOT = join(__dirname, "..", "..");

/** Real fetch, with a log of what was asked and a hook that may answer or fail instead. */
function recordingFetch(intercept?: (url: string, init: RequestInit | undefined, call: number) => Promise<Response | undefined> | Response | undefined) {
  const calls: { url: string; method: string; body: string | undefined }[] = [];
  const fetch: FetchFunction = async (url, init) => {
    calls.push({ url, method: init?.method ?? "GET", body: typeof init?.body === "string" ? init.body : undefined });
    const answer = await intercept?.(url, init, calls.length);
    return answer ?? globalThis.fetch(url, init);
  };
  return { fetch, calls };
}

async function balance(devnet: SharedDevnet, token: Address, owner: Address): Promise<bigint> {
  return devnet.publicClient.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [owner] });
}

describe("trading client (sdk) against npm start's devnet", function () {
  this.timeout(120_000);
  let devnet: SharedDevnet;
  before(async function () {
    this.timeout(120_000);
    devnet = await sharedDevnet();
  });

  describe("supported-token snapshot", () => {
    it("fetches one snapshot per chain, verifies it, and revalidates with If-None-Match (304 keeps the set)", async () => {
      const { fetch, calls } = recordingFetch();
      const client = createTradingClient({ apiUrl: devnet.apiUrl, fetch });
      const [a, b] = await Promise.all([client.getSupportedTokens(4663), client.isSupported(4663, devnet.token("USDC").toUpperCase().replace("0X", "0x"))]);
      expect(b).to.equal(true);
      expect(calls.filter((call) => call.url.includes("/tokens/supported-tokens"))).to.have.length(1);
      expect(a.addresses.size).to.be.greaterThan(5);
      expect(a.etag).to.match(/^W\/"/);
      expect(await client.refreshSupportedTokens(4663)).to.equal("unchanged");
      expect((await client.getSupportedTokens(4663)).snapshotId).to.equal(a.snapshotId);
      expect(calls).to.have.length(2);
      client.close();
    });

    it("hands out the snapshot as served (its documented wire shape) next to the parsed set, and getTokens lists each token's symbol and decimals", async () => {
      const client = createTradingClient({ apiUrl: devnet.apiUrl });
      const snapshot = await client.getSupportedTokens();
      const served = (await (await globalThis.fetch(`${devnet.apiUrl}/tokens/supported-tokens?chain_id=4663`)).json()) as Record<string, unknown>;
      expect(snapshot.json).to.deep.equal(served);
      expect(new Set(snapshot.json.addresses)).to.deep.equal(snapshot.addresses);
      const listed = await client.getTokens();
      expect(listed.chain_id).to.equal(4663);
      const usdc = listed.tokens.find((token) => token.address === devnet.token("USDC").toLowerCase());
      expect(usdc).to.include({ symbol: "USDC", decimals: 6 });
      expect(listed.tokens.map((token) => token.address).sort()).to.deep.equal([...snapshot.addresses].sort());
      client.close();
    });

    it("keeps the current set when a refresh fails or the body is malformed, and replaces it when parsing succeeds", async () => {
      let mode: "pass" | "down" | "wrong-chain" | "bad-count" = "pass";
      const { fetch } = recordingFetch(async (url, init) => {
        if (mode === "pass") return undefined;
        if (mode === "down") throw new TypeError("fetch failed");
        const real = (await (await globalThis.fetch(url, { ...init, headers: {} })).json()) as Record<string, unknown>;
        const body = mode === "wrong-chain" ? { ...real, chain_id: 1 } : { ...real, count: 1 };
        return new Response(JSON.stringify(body), { status: 200, headers: { etag: 'W/"other"' } });
      });
      const client = createTradingClient({ apiUrl: devnet.apiUrl, fetch, maxAttempts: 1 });
      const first = await client.getSupportedTokens();
      for (const failure of ["down", "wrong-chain", "bad-count"] as const) {
        mode = failure;
        expect(await client.refreshSupportedTokens(), failure).to.equal("kept");
        expect(await client.getSupportedTokens()).to.equal(first);
      }
      mode = "pass";
      // Without the ETag the API answers 200: a full parse, then an atomic replace.
      expect(await client.refreshSupportedTokens()).to.be.oneOf(["unchanged", "replaced"]);
      client.close();
    });
  });

  describe("admission before quoting", () => {
    const unknownToken = "0x1111111111111111111111111111111111111111";

    it("does not call /quote for a token outside the snapshot unless it is genuine demand, and then probes exactly once", async () => {
      const { apiKey } = await devnet.onboardedClient();
      const { fetch, calls } = recordingFetch();
      const client = createTradingClient({ apiUrl: devnet.apiUrl, apiKey, fetch, retryBaseDelayMs: 1 });
      const taker = devnet.wallet(DEV_KEYS[4]).account.address;
      const request = { sellToken: devnet.token("USDC"), buyToken: unknownToken, sellAmount: 1_000_000n, taker };
      const refused = await client.getQuote(request).catch((error: unknown) => error);
      expect(refused).to.be.instanceOf(TokenNotSupportedError);
      expect((refused as TokenNotSupportedError).tokens).to.deep.equal([unknownToken]);
      expect(calls.filter((call) => call.url.includes("/quote"))).to.have.length(0);

      const probed = await client.getQuote({ ...request, genuineDemand: true }).catch((error: unknown) => error);
      expect(probed).to.be.instanceOf(ApiError);
      expect(probed).to.include({ status: 400, code: "unsupported_token", retryable: false });
      expect((probed as ApiError).message).to.include("buy_token");
      expect(calls.filter((call) => call.url.includes("/quote?"))).to.have.length(1);
      client.close();
    });
  });

  describe("executeQuote", () => {
    it("executes a permit quote: approves Permit2, signs, patches, simulates, sends and waits", async () => {
      const { client } = await devnet.onboardedClient();
      const taker = devnet.wallet(DEV_KEYS[4]);
      const [usdc, weth] = [devnet.token("USDC"), devnet.token("WETH")];
      const before = await balance(devnet, weth, taker.account.address);
      const quote = await client.getQuote({ sellToken: usdc, buyToken: weth, sellAmount: 500_000_000n, taker: taker.account.address });
      expect(quote.settlement).to.equal("permit2");
      const result = await client.executeQuote(quote, taker);
      expect(result.receipt.status).to.equal("success");
      expect(getAddress(result.receipt.to!)).to.equal(getAddress(quote.tx.to));
      expect((await balance(devnet, weth, taker.account.address)) - before >= BigInt(quote.min_buy_amount)).to.equal(true);

      // The same quote again: its Permit2 nonce is spent, so the simulation fails before sending.
      const again = await client.executeQuote(quote, taker).catch((error: unknown) => error);
      expect(again).to.be.instanceOf(StaleQuoteError);
      expect((again as StaleQuoteError).message).to.include("fresh quote");
      client.close();
    });

    it("executes native and allowance quotes unchanged", async () => {
      const { client } = await devnet.onboardedClient();
      const taker = devnet.wallet(DEV_KEYS[5]);
      const usdc = devnet.token("USDC");
      const native = await client.getQuote({ sellToken: "ETH", buyToken: usdc, sellAmount: 10n ** 17n, taker: taker.account.address });
      expect(native.tx.value).to.equal(String(10n ** 17n));
      expect((await client.executeQuote(native, taker)).receipt.status).to.equal("success");
      const allowance = await client.getQuote({ sellToken: usdc, buyToken: devnet.token("DAI"), sellAmount: 10_000_000n, taker: taker.account.address, settlement: "allowance" });
      expect(allowance.tx.to).to.equal(getAddress(devnet.manifest.contracts.allowanceHolder));
      const executed = await client.executeQuote(allowance, taker);
      expect(executed.approvalHash).to.match(/^0x/);
      expect(executed.receipt.status).to.equal("success");
      client.close();
    });

    it("refuses a quote with a balance issue before touching the chain", async () => {
      const { client } = await devnet.onboardedClient();
      const poor = devnet.emptyWallet();
      const quote = await client.getQuote({ sellToken: devnet.token("USDC"), buyToken: devnet.token("WETH"), sellAmount: 1_000_000n, taker: poor.account.address });
      expect(quote.issues.balance).to.not.equal(null);
      const error = await client.executeQuote(quote, poor).catch((caught: unknown) => caught);
      expect(error).to.be.instanceOf(InsufficientBalanceError);
      expect((error as InsufficientBalanceError).expected).to.equal(1_000_000n);
      client.close();
    });

    it("refuses a tampered router, Permit2 spender or approval spender, naming the addresses", async () => {
      const { client } = await devnet.onboardedClient();
      const taker = devnet.wallet(DEV_KEYS[6]);
      const quote = await client.getQuote({ sellToken: devnet.token("USDC"), buyToken: devnet.token("WETH"), sellAmount: 1_000_000n, taker: taker.account.address });
      const attacker = "0x000000000000000000000000000000000000bEEF";
      const tampered: QuoteJson[] = [
        { ...quote, tx: { ...quote.tx, to: attacker } },
        { ...quote, permit2: { ...quote.permit2!, message: { ...quote.permit2!.message, spender: attacker } } },
        { ...quote, issues: { ...quote.issues, allowance: { spender: attacker, actual: "0" } } },
      ];
      for (const bad of tampered) {
        const error = await client.executeQuote(bad, taker).catch((caught: unknown) => caught);
        expect(error).to.be.instanceOf(UntrustedRouterError);
        expect((error as Error).message).to.include(getAddress(attacker));
      }
      const [first] = tampered;
      const error = (await client.executeQuote(first!, taker).catch((caught: unknown) => caught)) as UntrustedRouterError;
      expect(error.accepted).to.deep.equal([getAddress(quote.tx.to)]);
      expect(error.message).to.include(getAddress(quote.tx.to));
      // A gasless quote is not for executeQuote.
      const gasless = await client.getQuote({ sellToken: devnet.token("USDC"), buyToken: devnet.token("WETH"), sellAmount: 1_000_000n, taker: taker.account.address, gasless: true });
      expect(await client.executeQuote(gasless, taker).catch((caught: unknown) => caught)).to.be.instanceOf(QuoteKindError);
      client.close();
    });
  });

  describe("gasless", () => {
    it("signs, submits with an idempotency key and waits for the relay to confirm", async () => {
      const { client } = await devnet.onboardedClient();
      const taker = devnet.wallet(DEV_KEYS[7]);
      const quote = await client.getQuote({ sellToken: devnet.token("USDC"), buyToken: devnet.token("WETH"), sellAmount: 200_000_000n, taker: taker.account.address, gasless: true });
      expect(quote.gasless).to.equal(true);
      const statuses: string[] = [];
      const relay = await client.swapGasless(quote, taker, { intervalMs: 200, timeoutMs: 60_000, onStatus: (seen) => statuses.push(seen.status) });
      expect(relay.status, JSON.stringify(relay)).to.equal("confirmed");
      expect(statuses.at(-1)).to.equal("confirmed");
      const receipt = await devnet.publicClient.getTransactionReceipt({ hash: relay.tx_hash! });
      expect(receipt.status).to.equal("success");
      client.close();
    });

    it("a wallet with USDC and zero ETH swaps gasless: the client signs the quote's token permit with the order and sends no transaction", async () => {
      const { client } = await devnet.onboardedClient();
      const funded = await fundedTaker(devnet, { USDC: 500_000_000n });
      await devnet.publicClient.request({ method: "hardhat_setBalance" as never, params: [funded.address, "0x0"] as never });
      const taker = devnet.wallet(funded.privateKey);
      const quote = await client.getQuote({ sellToken: devnet.token("USDC"), buyToken: devnet.token("WETH"), sellAmount: 200_000_000n, taker: taker.account.address, gasless: true });
      expect(quote.approval?.type).to.equal("permit");
      expect(quote.permit2?.signature_kind).to.equal("eoa");
      const relay = await client.swapGasless(quote, taker, { intervalMs: 200, timeoutMs: 60_000 });
      expect(relay.status, JSON.stringify(relay)).to.equal("confirmed");
      expect(await devnet.publicClient.getBalance({ address: taker.account.address })).to.equal(0n);
      expect(await devnet.publicClient.getTransactionCount({ address: taker.account.address })).to.equal(0);
      client.close();
    });

    it("the devnet's smart wallet (DevSmartWallet, owned by dev key #12) trades gasless with its owner's ERC-1271 signature", async () => {
      const { client } = await devnet.onboardedClient();
      const smart = devnet.manifest.devnet;
      expect(smart, "npm start's manifest records the devnet's smart wallet").to.not.equal(undefined);
      const owner = devnet.wallet(devAccounts(hre)[12]!.privateKey);
      expect(getAddress(owner.account.address)).to.equal(smart!.smartWalletOwner);
      const quote = await client.getQuote({ sellToken: devnet.token("USDC"), buyToken: devnet.token("WETH"), sellAmount: 100_000_000n, taker: smart!.smartWallet, gasless: true });
      expect(quote.permit2?.signature_kind).to.equal("eip1271");
      const { EIP712Domain: _domain, ...types } = quote.permit2!.types;
      const signature = await owner.signTypedData({ account: owner.account, ...quote.permit2!, types } as Parameters<typeof owner.signTypedData>[0]);
      const relay = await client.submitGasless(quote, signature);
      const done = await client.waitForRelay(relay.relay_id, { intervalMs: 200, timeoutMs: 60_000 });
      expect(done.status, JSON.stringify(done)).to.equal("confirmed");
      expect(await balance(devnet, devnet.token("WETH"), smart!.smartWallet) > 0n).to.equal(true);
      client.close();
    });

    it("retries POST /gasless/submit after a lost response with the same idempotency key, and gets the same relay", async () => {
      const { apiKey } = await devnet.onboardedClient();
      const { fetch, calls } = recordingFetch(async (url, init, call) => {
        if (!url.endsWith("/gasless/submit")) return undefined;
        const response = await globalThis.fetch(url, init);
        // The first submission reaches the API, but its answer is lost on the way back.
        if (calls.filter((entry) => entry.url.endsWith("/gasless/submit")).length === 1) throw new TypeError(`socket hang up (call ${call})`);
        return response;
      });
      const client = createTradingClient({
        apiUrl: devnet.apiUrl,
        apiKey,
        fetch,
        publicClient: devnet.publicClient,
        contracts: { routerRegistry: devnet.manifest.contracts.routerRegistry },
        retryBaseDelayMs: 10,
      });
      const taker = devnet.wallet(DEV_KEYS[8]);
      const quote = await client.getQuote({ sellToken: devnet.token("USDC"), buyToken: devnet.token("WETH"), sellAmount: 100_000_000n, taker: taker.account.address, gasless: true });
      const signature = await client.signGaslessQuote(quote, taker);
      const relay = await client.submitGasless(quote, signature);
      const submits = calls.filter((entry) => entry.url.endsWith("/gasless/submit"));
      expect(submits).to.have.length(2);
      const keys = submits.map((entry) => JSON.parse(entry.body!).idempotency_key as string);
      expect(keys[0]).to.be.a("string").and.equal(keys[1]);
      const final = await client.waitForRelay(relay.relay_id, { intervalMs: 200, timeoutMs: 60_000 });
      expect(final.relay_id).to.equal(relay.relay_id);
      expect(final.status).to.equal("confirmed");
      client.close();
    });
  });

  describe("errors and retries", () => {
    it("retries a GET after 429 honouring Retry-After, and after a network error", async () => {
      const { fetch, calls } = recordingFetch((_url, _init, call) => {
        if (call === 1) return new Response(JSON.stringify({ error: "slow down", code: "rate_limited", bucket: "snapshot" }), { status: 429, headers: { "retry-after": "1" } });
        if (call === 2) throw new TypeError("fetch failed");
        return undefined;
      });
      const client = createTradingClient({ apiUrl: devnet.apiUrl, fetch, retryBaseDelayMs: 10 });
      const started = Date.now();
      await client.getSupportedTokens();
      expect(calls).to.have.length(3);
      expect(Date.now() - started).to.be.at.least(1000);
      client.close();
    });

    it("surfaces the API's status, code, message, retryability and Retry-After, and does not retry what cannot succeed", async () => {
      const { client, apiKey } = await devnet.onboardedClient();
      const bad = await client.getQuote({ sellToken: devnet.token("USDC"), buyToken: devnet.token("USDC"), sellAmount: 1n, taker: devnet.wallet(DEV_KEYS[9]).account.address }).catch((error: unknown) => error);
      expect(bad).to.be.instanceOf(ApiError);
      expect(bad).to.include({ status: 400, code: "same_token", retryable: false });

      // Empty the key's quote:read bucket (60 a minute), then one more: a 429 with Retry-After.
      const { fetch, calls } = recordingFetch();
      const limited = createTradingClient({ apiUrl: devnet.apiUrl, apiKey, fetch, maxAttempts: 1 });
      const taker = devnet.wallet(DEV_KEYS[9]).account.address;
      let error: unknown;
      for (let i = 0; i < 80 && error === undefined; i++) {
        error = await limited.getQuote({ sellToken: devnet.token("USDC"), buyToken: devnet.token("WETH"), sellAmount: 1000n, taker }).then(() => undefined, (caught: unknown) => caught);
      }
      expect(error).to.be.instanceOf(ApiError);
      expect(error).to.include({ status: 429, code: "rate_limited", retryable: true });
      expect((error as ApiError).retryAfterSeconds).to.be.greaterThan(0);
      expect((error as ApiError).body.bucket).to.equal("quote:read");
      expect(calls.filter((call) => call.url.includes("/quote?")).length).to.be.at.most(80);
      client.close();
      limited.close();
    });
  });

  describe("onboarding", () => {
    it("onboards, reads the profile, creates and revokes a key; a revoked key is refused", async () => {
      const client = createTradingClient({ apiUrl: devnet.apiUrl });
      const owner = devnet.emptyWallet();
      const slug = `onboard-${owner.account.address.slice(2, 10).toLowerCase()}`;
      const { application, apiKey } = await client.onboard(owner, { chainId: 4663, displayName: "Onboard Test", slug, requestedMaxFeeBps: 20, keyLabel: "first" });
      expect(application.status).to.equal("active");
      expect(apiKey!.api_key).to.match(/^tsk_[0-9a-f]{64}$/);
      const second = await client.createApiKey(owner, application.integrator_id, "second", 4663);
      const profile = await client.viewProfile(owner);
      expect(JSON.stringify(profile)).to.include(slug).and.not.include(apiKey!.api_key);
      const revoked = await client.revokeApiKey(owner, application.integrator_id, second.key_id);
      expect(revoked.revoked).to.equal(true);
      const trading = createTradingClient({ apiUrl: devnet.apiUrl, apiKey: second.api_key });
      const refused = await trading.getQuote({ sellToken: devnet.token("USDC"), buyToken: devnet.token("WETH"), sellAmount: 1000n, taker: owner.account.address }).catch((error: unknown) => error);
      expect(refused).to.include({ status: 401, code: "api_key_revoked" });
      client.close();
      trading.close();
    });
  });

  describe("router migration", () => {
    it("accepts the previous router inside its dwell window after npm run migrate-router", async () => {
      const { client } = await devnet.onboardedClient();
      const taker = devnet.wallet(DEV_KEYS[3]);
      const quote = await client.getQuote({ sellToken: devnet.token("DAI"), buyToken: devnet.token("USDC"), sellAmount: 10n ** 18n, taker: taker.account.address });
      const migration = spawnSync(process.execPath, [require.resolve("ts-node/dist/bin.js"), "--transpile-only", "scripts/migrateRouter.ts", "2"], {
        cwd: ROOT,
        env: { ...process.env, RPC_URL: devnet.rpcUrl, DEPLOYMENTS_DIR: devnet.directory },
        encoding: "utf8",
      });
      expect(migration.status, migration.stderr).to.equal(0);
      const state = await client.readFeature(2n);
      expect(state.previous).to.equal(getAddress(quote.tx.to));
      expect(state.current).to.not.equal(getAddress(quote.tx.to));
      // The quote made before the migration names the previous router: still accepted, and it fills.
      expect((await client.executeQuote(quote, taker)).receipt.status).to.equal("success");
      client.close();
    });
  });
});
