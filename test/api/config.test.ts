import { expect } from "chai";
import { resolve } from "node:path";
import { loadApiConfig } from "../../api/config";

describe("api configuration", () => {
  it("has the documented defaults", () => {
    expect(loadApiConfig({})).to.deep.equal({
      host: "127.0.0.1",
      port: 8080,
      dbPath: resolve("data/api.sqlite"),
      logLevel: "info",
      maxBodyBytes: 16_384,
      nonceTtlSeconds: 600,
      autoApprove: true,
      defaultQuoteRateLimitPerMinute: 60,
      defaultSwapRateLimitPerMinute: 10,
      maxFeeBps: 1000,
      siweDomain: "localhost",
      siweUri: "http://localhost",
      chainId: 4663,
      rpcUrl: "http://127.0.0.1:8545",
    });
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

  it("refuses invalid values at start, naming the variable", () => {
    expect(() => loadApiConfig({ AUTO_APPROVE: "maybe" })).to.throw(/AUTO_APPROVE/);
    expect(() => loadApiConfig({ API_PORT: "70000" })).to.throw(/API_PORT/);
    expect(() => loadApiConfig({ MAX_FEE_BPS: "-1" })).to.throw(/MAX_FEE_BPS/);
    expect(() => loadApiConfig({ NONCE_TTL_SECONDS: "0" })).to.throw(/NONCE_TTL_SECONDS/);
    expect(() => loadApiConfig({ SIWE_DOMAIN: "not a domain" })).to.throw(/SIWE_DOMAIN/);
  });
});
