import { expect } from "chai";
import { devnetRpcUrl } from "../../sdk";
import { resolve } from "node:path";
import { loadApiConfig } from "../../api/config";

describe("api configuration", () => {
  it("has the documented defaults", () => {
    expect(loadApiConfig({})).to.deep.equal({
      host: "127.0.0.1",
      port: 8080,
      httpLimits: { maxHeaderBytes: 16_384, headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000 },
      trustProxy: false,
      metrics: undefined,
      dbPath: resolve("data/api.sqlite"),
      databaseUrl: undefined,
      logLevel: "info",
      maxBodyBytes: 16_384,
      nonceTtlSeconds: 600,
      autoApprove: false,
      maxApiKeysPerIntegrator: 10,
      defaultQuoteRateLimitPerMinute: 60,
      defaultSwapRateLimitPerMinute: 10,
      maxFeeBps: 1000,
      maxCombinedFeeBps: 100,
      siweDomain: "localhost",
      siweUri: "http://localhost",
      chainId: 4663,
      rpcUrl: "http://127.0.0.1:8545",
      rpcUrls: ["http://127.0.0.1:8545"],
      rpcMaxHeadLagBlocks: 3,
      rpcProbeMs: 1_000,
      deploymentsDir: resolve("deployments"),
      additionalChains: [],
      snapshotRateLimitPerMinute: 120,
      onboardingRateLimitPerMinute: 120,
      onboardingWalletRateLimitPerMinute: 30,
      onboarding1271Gas: 300_000,
      onboarding1271TimeoutMs: 3_000,
      snapshotRefreshSeconds: 5,
      demandFlushSeconds: 5,
      demandMaxTracked: 10_000,
      promotionMinIntegrators: 3,
      promotionWindowHours: 24,
      promotionMinLiquidityWeth: "1",
      promotionRecheckMinutes: 10,
      quoteTtlSeconds: 300,
      quoteProbeMultiplier: 10,
      statusRateLimitMultiplier: 10,
      priceRateLimitMultiplier: 5,
      l1FeeModel: "none",
      pushed: { allowLoopbackWebhooks: true, maxStreamsPerKey: 5, maxStreamsPerIntegrator: 10, maxStreams: 1000, maxLifetimeSeconds: 300, keepAliveSeconds: 15 },
      gasless: undefined,
    });
  });

  it("pushed status: loopback webhooks only on the devnet unless WEBHOOK_ALLOW_LOOPBACK_HTTP says otherwise; stream limits", () => {
    expect(loadApiConfig({ CHAIN_ID: "1" }).pushed.allowLoopbackWebhooks).to.equal(false);
    expect(loadApiConfig({ CHAIN_ID: "1", WEBHOOK_ALLOW_LOOPBACK_HTTP: "true" }).pushed.allowLoopbackWebhooks).to.equal(true);
    expect(loadApiConfig({ WEBHOOK_ALLOW_LOOPBACK_HTTP: "false" }).pushed.allowLoopbackWebhooks).to.equal(false);
    expect(loadApiConfig({ SSE_MAX_STREAMS_PER_KEY: "2", SSE_KEEPALIVE_SECONDS: "5" }).pushed).to.deep.include({ maxStreamsPerKey: 2, keepAliveSeconds: 5 });
    expect(loadApiConfig({ SSE_MAX_STREAMS_PER_INTEGRATOR: "3", SSE_MAX_STREAMS: "50", SSE_MAX_LIFETIME_SECONDS: "60" }).pushed).to.deep.include({ maxStreamsPerIntegrator: 3, maxStreams: 50, maxLifetimeSeconds: 60 });
    expect(loadApiConfig({ MAX_API_KEYS_PER_INTEGRATOR: "3" }).maxApiKeysPerIntegrator).to.equal(3);
    expect(() => loadApiConfig({ MAX_API_KEYS_PER_INTEGRATOR: "0" })).to.throw(/MAX_API_KEYS_PER_INTEGRATOR/);
    expect(() => loadApiConfig({ WEBHOOK_ALLOW_LOOPBACK_HTTP: "yes" })).to.throw(/WEBHOOK_ALLOW_LOOPBACK_HTTP/);
    expect(() => loadApiConfig({ SSE_MAX_STREAMS_PER_KEY: "0" })).to.throw(/SSE_MAX_STREAMS_PER_KEY/);
  });

  it("reads the security settings: trusted proxies, the metrics port, the ERC-1271 limits and the status bucket", () => {
    expect(loadApiConfig({ API_TRUST_PROXY: "false" }).trustProxy).to.equal(false);
    expect(loadApiConfig({ API_TRUST_PROXY: "2" }).trustProxy).to.equal(2);
    expect(loadApiConfig({ API_TRUST_PROXY: "10.0.0.1, 10.1.0.0/16,fd00::/8,loopback,10.2.0.0/255.255.0.0" }).trustProxy).to.deep.equal([
      "10.0.0.1",
      "10.1.0.0/16",
      "fd00::/8",
      "loopback",
      "10.2.0.0/255.255.0.0",
    ]);
    expect(() => loadApiConfig({ API_TRUST_PROXY: "true" })).to.throw(/API_TRUST_PROXY: true would trust an X-Forwarded-For any client can write/);
    expect(() => loadApiConfig({ API_TRUST_PROXY: "10.0.0.1,lb.internal" })).to.throw(/API_TRUST_PROXY: "lb.internal" is not/);
    expect(() => loadApiConfig({ API_TRUST_PROXY: "10.0.0.0/33" })).to.throw(/API_TRUST_PROXY/);
    expect(loadApiConfig({ METRICS_PORT: "9464" }).metrics).to.deep.equal({ host: "127.0.0.1", port: 9464 });
    expect(loadApiConfig({ METRICS_PORT: "0", METRICS_HOST: "10.0.0.5" }).metrics).to.deep.equal({ host: "10.0.0.5", port: 0 });
    expect(() => loadApiConfig({ METRICS_PORT: "70000" })).to.throw(/METRICS_PORT/);
    expect(loadApiConfig({ ONBOARDING_1271_GAS: "500000", ONBOARDING_1271_TIMEOUT_MS: "1000", STATUS_RATE_LIMIT_MULTIPLIER: "4" })).to.deep.include({
      onboarding1271Gas: 500_000,
      onboarding1271TimeoutMs: 1_000,
      statusRateLimitMultiplier: 4,
    });
    expect(() => loadApiConfig({ ONBOARDING_1271_GAS: "100" })).to.throw(/ONBOARDING_1271_GAS/);
  });

  it("offers gasless quotes only with a relayer secret and a fee recipient, with documented defaults", () => {
    const payee = "0xcd3B766CCDd6AE721141F452C550Ca635964ce71";
    expect(loadApiConfig({ RELAYER_FEE_RECIPIENT: payee }).gasless).to.equal(undefined);
    expect(loadApiConfig({ RELAYER_INTERNAL_TOKEN: "a-secret-of-16-chars" }).gasless).to.equal(undefined);
    expect(loadApiConfig({ RELAYER_INTERNAL_TOKEN: "a-secret-of-16-chars", RELAYER_FEE_RECIPIENT: payee.toLowerCase() }).gasless).to.deep.equal({
      relayerUrls: ["http://127.0.0.1:8090"],
      relayerToken: "a-secret-of-16-chars",
      feeRecipient: payee,
      feeMarginBps: 2000,
      sponsorGas: false,
      priorityFeeWei: 1_000_000_000n,
      standingCacheMs: 5000,
      feeTokens: undefined,
    });
    expect(() => loadApiConfig({ RELAYER_STANDING_CACHE_MS: "-5" })).to.throw(/RELAYER_STANDING_CACHE_MS/);
    const listed = loadApiConfig({ RELAYER_INTERNAL_TOKEN: "a-secret-of-16-chars", RELAYER_FEE_RECIPIENT: payee, RELAYER_FEE_TOKENS: " usdc, 0xcd3B766CCDd6AE721141F452C550Ca635964ce71 " });
    expect(listed.gasless?.feeTokens).to.deep.equal(["usdc", "0xcd3B766CCDd6AE721141F452C550Ca635964ce71"]);
    expect(() => loadApiConfig({ RELAYER_FEE_TOKENS: "USDC,,WETH" })).to.throw(/RELAYER_FEE_TOKENS/);
    expect(() => loadApiConfig({ RELAYER_FEE_TOKENS: "not a token" })).to.throw(/RELAYER_FEE_TOKENS.*neither an address nor a token symbol/);
    expect(() => loadApiConfig({ RELAYER_INTERNAL_TOKEN: "short" })).to.throw(/RELAYER_INTERNAL_TOKEN/);
    expect(() => loadApiConfig({ RELAYER_FEE_RECIPIENT: "0x12" })).to.throw(/RELAYER_FEE_RECIPIENT/);
    expect(() => loadApiConfig({ RELAYER_PRIORITY_FEE_GWEI: "-1" })).to.throw(/RELAYER_PRIORITY_FEE_GWEI/);
  });

  it("reads the chain, snapshot, demand, promotion and quote variables", () => {
    const config = loadApiConfig({
      DEPLOYMENTS_DIR: "/tmp/deployments",
      API_CHAINS: '[{"chainId": 1, "rpcUrl": "https://rpc.example.com", "manifest": "/tmp/mainnet.json"}]',
      SNAPSHOT_RATE_LIMIT_PER_MINUTE: "30",
      SNAPSHOT_REFRESH_SECONDS: "2",
      DEMAND_FLUSH_SECONDS: "3",
      DEMAND_MAX_TRACKED: "50",
      PROMOTION_MIN_INTEGRATORS: "5",
      PROMOTION_WINDOW_HOURS: "48",
      PROMOTION_MIN_LIQUIDITY_WETH: "0.25",
      PROMOTION_RECHECK_MINUTES: "1",
      QUOTE_TTL_SECONDS: "60",
      QUOTE_PROBE_MULTIPLIER: "4",
    });
    expect(config).to.deep.include({
      deploymentsDir: "/tmp/deployments",
      additionalChains: [{ chainId: 1, rpcUrl: "https://rpc.example.com", manifestPath: "/tmp/mainnet.json" }],
      snapshotRateLimitPerMinute: 30,
      snapshotRefreshSeconds: 2,
      demandFlushSeconds: 3,
      demandMaxTracked: 50,
      promotionMinIntegrators: 5,
      promotionWindowHours: 48,
      promotionMinLiquidityWeth: "0.25",
      promotionRecheckMinutes: 1,
      quoteTtlSeconds: 60,
      quoteProbeMultiplier: 4,
    });
    expect(loadApiConfig({ API_CHAINS: "" }).additionalChains).to.deep.equal([]);
  });

  it("refuses API_CHAINS that is not a JSON array of chains, or that serves a chain twice", () => {
    expect(() => loadApiConfig({ API_CHAINS: "not json" })).to.throw(/API_CHAINS/);
    expect(() => loadApiConfig({ API_CHAINS: '{"chainId": 1}' })).to.throw(/API_CHAINS/);
    expect(() => loadApiConfig({ API_CHAINS: '[{"chainId": 1, "rpcUrl": "ftp://x", "manifest": "m.json"}]' })).to.throw(/API_CHAINS\.0\.rpcUrl/);
    expect(() => loadApiConfig({ API_CHAINS: '[{"chainId": 4663, "rpcUrl": "http://x", "manifest": "m.json"}]' })).to.throw(/API_CHAINS\.0\.chainId.*twice/);
    expect(() => loadApiConfig({ PROMOTION_MIN_LIQUIDITY_WETH: "-1" })).to.throw(/PROMOTION_MIN_LIQUIDITY_WETH/);
    expect(() => loadApiConfig({ SNAPSHOT_RATE_LIMIT_PER_MINUTE: "0" })).to.throw(/SNAPSHOT_RATE_LIMIT_PER_MINUTE/);
  });

  it("reads every variable, and AUTO_APPROVE as an explicit true/false/1/0", () => {
    const config = loadApiConfig({
      API_HOST: "0.0.0.0",
      API_PORT: "0",
      API_DB_PATH: "/tmp/x.sqlite",
      NONCE_TTL_SECONDS: "30",
      AUTO_APPROVE: "False",
      DEFAULT_QUOTE_RATE_LIMIT_PER_MINUTE: "5",
      DEFAULT_SWAP_RATE_LIMIT_PER_MINUTE: "2",
      MAX_FEE_BPS: "50",
      SIWE_DOMAIN: "api.example.com",
      SIWE_URI: "https://api.example.com/integrators",
      CHAIN_ID: "1",
      RPC_URL: "https://rpc.example.com",
    });
    expect(config).to.include({
      host: "0.0.0.0",
      port: 0,
      dbPath: "/tmp/x.sqlite",
      nonceTtlSeconds: 30,
      autoApprove: false,
      defaultQuoteRateLimitPerMinute: 5,
      defaultSwapRateLimitPerMinute: 2,
      maxFeeBps: 50,
      siweDomain: "api.example.com",
      siweUri: "https://api.example.com/integrators",
      chainId: 1,
      rpcUrl: "https://rpc.example.com",
    });
    expect(loadApiConfig({ AUTO_APPROVE: "1" }).autoApprove).to.equal(true);
  });

  it("defaults RPC_URL to the devnet's own DEVNET_HOST and DEVNET_PORT, as every script and CLI does", () => {
    expect(loadApiConfig({}).rpcUrl).to.equal("http://127.0.0.1:8545");
    expect(loadApiConfig({ DEVNET_PORT: "9545" }).rpcUrl).to.equal("http://127.0.0.1:9545");
    expect(loadApiConfig({ DEVNET_HOST: "0.0.0.0", DEVNET_PORT: "9545" }).rpcUrl, "a wildcard bind is reached on loopback").to.equal("http://127.0.0.1:9545");
    expect(loadApiConfig({ DEVNET_PORT: "9545", RPC_URL: "http://node:8545" }).rpcUrl, "RPC_URL wins").to.equal("http://node:8545");
    expect(devnetRpcUrl({ DEVNET_HOST: "::1", DEVNET_PORT: "1" })).to.equal("http://[::1]:1");
  });

  it("refuses invalid values at start, naming the variable", () => {
    expect(() => loadApiConfig({ AUTO_APPROVE: "maybe" })).to.throw(/AUTO_APPROVE/);
    expect(() => loadApiConfig({ API_PORT: "70000" })).to.throw(/API_PORT/);
    expect(() => loadApiConfig({ MAX_FEE_BPS: "-1" })).to.throw(/MAX_FEE_BPS/);
    expect(() => loadApiConfig({ NONCE_TTL_SECONDS: "0" })).to.throw(/NONCE_TTL_SECONDS/);
    expect(() => loadApiConfig({ SIWE_DOMAIN: "not a domain" })).to.throw(/SIWE_DOMAIN/);
  });
});
