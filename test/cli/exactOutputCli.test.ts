import { expect } from "chai";
import { runCli as run, type CliRun } from "../fixtures/cliProcess";
import { DEV_KEYS, sharedDevnet, type SharedDevnet } from "../fixtures/sharedDevnet";

const json = (result: CliRun): any => {
  try {
    return JSON.parse(result.stdout);
  } catch {
    throw new Error(`stdout is not JSON (exit ${result.code}):\n${result.stdout}\nstderr:\n${result.stderr}`);
  }
};

describe("swap-api --buy-amount (exact output) against npm start's devnet", function () {
  this.timeout(240_000);
  let devnet: SharedDevnet;
  before(async function () {
    this.timeout(120_000);
    devnet = await sharedDevnet();
  });

  it("quote and price take --buy-amount (and --amount-unit token), swap executes it, and <amount> with --buy-amount is a usage error", async () => {
    const { apiKey } = await devnet.onboardedClient();
    const env = { SWAP_API_URL: devnet.apiUrl, RPC_URL: devnet.rpcUrl, DEPLOYMENTS_DIR: devnet.directory, PRIVATE_KEY: DEV_KEYS[3], SWAP_API_KEY: apiKey };

    const quote = await run(["quote", "USDC", "WETH", "--buy-amount", "0.02", "--amount-unit", "token", "--json"], env);
    expect(quote.code, quote.stderr).to.equal(0);
    expect(json(quote)).to.include({ buy_amount: "20000000000000000", min_buy_amount: "20000000000000000" });
    expect(BigInt(json(quote).max_sell_amount) >= BigInt(json(quote).sell_amount)).to.equal(true);

    const price = await run(["price", "USDC", "WETH", "--buy-amount", "20000000000000000", "--json"], env);
    expect(price.code, price.stderr).to.equal(0);
    expect(json(price)).to.include({ buy_amount: "20000000000000000" }).and.to.have.property("max_sell_amount");
    expect(json(price)).to.not.have.any.keys("quote_id", "tx", "permit2");
    const table = await run(["price", "USDC", "WETH", "--buy-amount", "20000000000000000"], env);
    expect(table.stdout).to.match(/max_sell_amount\s+[0-9]+/);

    const swap = await run(["swap", "USDC", "WETH", "--buy-amount", "0.01", "--amount-unit", "token", "--yes", "--json"], env);
    expect(swap.code, swap.stderr).to.equal(0);
    expect(json(swap).status).to.equal("success");

    const both = await run(["quote", "USDC", "WETH", "1000000", "--buy-amount", "1000", "--json"], env);
    expect(both.code).to.equal(2);
    expect(both.stderr).to.include("exactly one of <amount>").and.include("--buy-amount");
    const neither = await run(["quote", "USDC", "WETH", "--json"], env);
    expect(neither.code).to.equal(2);
    const decimals = await run(["price", "USDC", "WETH", "--buy-amount", "0.5", "--json"], env);
    expect(decimals.code).to.equal(2);
    expect(decimals.stderr).to.include("--buy-amount must be an integer in base units");
  });
});
