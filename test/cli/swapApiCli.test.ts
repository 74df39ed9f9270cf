import { expect } from "chai";
import { writeFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { erc20Abi } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { createTradingClient, quoteJsonSchema } from "../../sdk";
import { runCli as run, type CliRun } from "../fixtures/cliProcess";
import { withCall } from "../fixtures/quoteTampering";
import { DEV_KEYS, sharedDevnet, type SharedDevnet } from "../fixtures/sharedDevnet";


/** stdout of a --json run must be one JSON document and nothing else. */
function json(result: CliRun): any {
  try {
    return JSON.parse(result.stdout);
  } catch {
    throw new Error(`stdout is not JSON (exit ${result.code}):\n${result.stdout}\nstderr:\n${result.stderr}`);
  }
}

describe("swap-api (command-line tool) against npm start's devnet", function () {
  this.timeout(120_000);
  let devnet: SharedDevnet;
  let env: Record<string, string | undefined>;

  before(async function () {
    this.timeout(120_000);
    devnet = await sharedDevnet();
    env = { SWAP_API_URL: devnet.apiUrl, RPC_URL: devnet.rpcUrl, DEPLOYMENTS_DIR: devnet.directory, PRIVATE_KEY: DEV_KEYS[6] };
  });

  it("runs as `npx swap-api` from the checkout", async () => {
    const result = await run(["--help"], env, ["npx", "--no-install", "swap-api"]);
    expect(result.code, result.stderr).to.equal(0);
    for (const command of ["onboard", "tokens", "quote", "price", "swap", "relay", "registry", "doctor"]) expect(result.stdout).to.include(command);
  });

  it("onboards, lists tokens, quotes, swaps (permit and gasless), follows the relay, reads the registry and passes doctor", async function () {
    // About a dozen CLI processes (ts-node each), relay watch included: more than the suite's default on loaded cores.
    this.timeout(240_000);
    const ownerKey = "0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6";
    const onboarded = await run(["onboard", "apply", "--name", "CLI Tests", "--slug", `cli-${Date.now().toString(36)}`, "--max-fee-bps", "10", "--json"], { ...env, PRIVATE_KEY: ownerKey });
    expect(onboarded.code, onboarded.stderr).to.equal(0);
    const apiKey = json(onboarded).apiKey.api_key as string;
    expect(apiKey).to.match(/^tsk_/);
    expect(onboarded.stderr).to.include("shown once");
    const trading = { ...env, SWAP_API_KEY: apiKey };

    const profile = await run(["onboard", "profile", "--json"], { ...env, PRIVATE_KEY: ownerKey });
    expect(profile.code, profile.stderr).to.equal(0);
    expect(JSON.stringify(json(profile))).to.include("CLI Tests").and.not.include(apiKey);
    // For people, a table like every other command: the profile, then its keys, masked.
    const profileTable = await run(["onboard", "profile"], { ...env, PRIVATE_KEY: ownerKey });
    expect(profileTable.code, profileTable.stderr).to.equal(0);
    expect(profileTable.stdout).to.match(/^integrator_id\s+slug\s+status\s+name/m).and.match(/CLI Tests/).and.match(/^integrator_id\s+key_id\s+label\s+key/m);
    expect(profileTable.stdout).to.not.include("{").and.not.include(apiKey);

    const tokens = await run(["tokens", "--json"], env);
    expect(tokens.code, tokens.stderr).to.equal(0);
    expect(json(tokens).addresses).to.include(devnet.token("USDC").toLowerCase());
    const table = await run(["tokens"], env);
    expect(table.stdout).to.match(/USDC\s+0x/);

    const quote = await run(["quote", "USDC", "WETH", "250000000", "--json"], trading);
    expect(quote.code, quote.stderr).to.equal(0);
    expect(json(quote).quote_id).to.match(/^[0-9a-f-]{36}$/);

    const price = await run(["price", "USDC", "WETH", "250000000", "--json"], trading);
    expect(price.code, price.stderr).to.equal(0);
    expect(json(price)).to.not.have.any.keys("quote_id", "tx", "permit2");
    expect(BigInt(json(price).buy_amount)).to.equal(BigInt(json(quote).buy_amount));
    const priceTable = await run(["price", "USDC", "WETH", "250000000"], trading);
    expect(priceTable.stdout).to.match(/network_fee\s+[0-9.]+ ETH/).and.not.match(/quote_id/);

    const dry = await run(["swap", "USDC", "WETH", "250000000", "--dry-run", "--json"], trading);
    expect(dry.code, dry.stderr).to.equal(0);
    expect(json(dry)).to.include({ dry_run: true, checks: "passed" });

    const swap = await run(["swap", "USDC", "WETH", "250000000", "--yes", "--json"], trading);
    expect(swap.code, swap.stderr).to.equal(0);
    const swapped = json(swap);
    expect(swapped.status).to.equal("success");
    expect((await devnet.publicClient.getTransactionReceipt({ hash: swapped.tx_hash })).status).to.equal("success");

    const gasless = await run(["swap", "USDC", "WETH", "150000000", "--gasless", "--yes", "--json"], trading);
    expect(gasless.code, gasless.stderr).to.equal(0);
    const relay = json(gasless).relay;
    expect(relay.status).to.equal("confirmed");
    expect(gasless.stderr).to.include(`relay ${relay.relay_id}`);

    const status = await run(["relay", "status", relay.relay_id, "--wait", "--json"], trading);
    expect(status.code, status.stderr).to.equal(0);
    expect(json(status)).to.include({ relay_id: relay.relay_id, status: "confirmed" });

    // Over server-sent events: a final relay answers at once, with its status.
    const watched = await run(["relay", "watch", relay.relay_id, "--json"], trading);
    expect(watched.code, watched.stderr).to.equal(0);
    expect(json(watched)).to.include({ relay_id: relay.relay_id, status: "confirmed", tx_hash: relay.tx_hash });
    expect(watched.stderr).to.include(`relay ${relay.relay_id}: confirmed`);

    const registry = await run(["registry", "3", "--json"], env);
    expect(registry.code, registry.stderr).to.equal(0);
    const [feature] = json(registry).features;
    expect(feature.feature).to.equal("3");
    expect(feature.ownerOf).to.equal(feature.getFeature.current);
    expect(feature.prev).to.include({ reverted: true });

    const doctor = await run(["doctor", "--json"], trading);
    expect(doctor.code, doctor.stdout + doctor.stderr).to.equal(0);
    expect(json(doctor).checks.map((check: { check: string }) => check.check)).to.include.members(["RPC chain id", "router registry", "key scope quote:read", "key scope swap:create"]);
  });

  it("doctor passes against a devnet on non-default ports found through DEVNET_PORT and API_PORT alone", async () => {
    const rpcPort = new URL(devnet.rpcUrl).port;
    const apiPort = new URL(devnet.apiUrl).port;
    expect([rpcPort, apiPort]).to.not.include.members(["8545", "8080"]);
    const { apiKey } = await devnet.onboardedClient();
    // No SWAP_API_URL and no RPC_URL (run() drops them): only the variables npm start was given.
    const doctor = await run(["doctor", "--json"], { DEVNET_PORT: rpcPort, API_PORT: apiPort, DEPLOYMENTS_DIR: devnet.directory, SWAP_API_KEY: apiKey });
    expect(doctor.code, doctor.stdout + doctor.stderr).to.equal(0);
    const checks = json(doctor).checks as { check: string; ok: boolean; detail: string }[];
    expect(checks.filter((check) => !check.ok)).to.deep.equal([]);
    expect(checks.find((check) => check.check === "API reachable")!.detail).to.include(devnet.apiUrl);
    expect(checks.find((check) => check.check === "RPC chain id")!.detail).to.include(devnet.rpcUrl);
  });

  it("doctor names the URL of every connection it could not make", async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const closed = String((probe.address() as { port: number }).port);
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const doctor = await run(["doctor", "--json"], { DEVNET_PORT: closed, API_PORT: closed, DEPLOYMENTS_DIR: devnet.directory, SWAP_API_KEY: "tsk_unused" });
    expect(doctor.code).to.equal(7);
    // One document: the checks, with the error that made the run fail.
    const report = json(doctor);
    expect(report.error.exit_code).to.equal(7);
    const failed = (report.checks as { check: string; ok: boolean; detail: string }[]).filter((check) => !check.ok);
    expect(failed.map((check) => check.check)).to.include.members(["API reachable", "API serves the chain", "RPC chain id", "router registry", "API key"]);
    for (const check of failed) expect(check.detail, check.check).to.include(`http://127.0.0.1:${closed}`);
    expect(failed.find((check) => check.check === "RPC chain id")!.detail).to.not.match(/^HTTP request failed/);
  });

  describe("exit codes, each produced by its cause", () => {
    let apiKey: string;
    before(async () => {
      apiKey = (await devnet.onboardedClient()).apiKey;
    });

    it("2: usage errors (unknown option, no confirmation on a pipe, missing PRIVATE_KEY)", async () => {
      expect((await run(["--bogus"], env)).code).to.equal(2);
      const unconfirmed = await run(["swap", "USDC", "WETH", "1000000"], { ...env, SWAP_API_KEY: apiKey });
      expect(unconfirmed.code, unconfirmed.stderr).to.equal(2);
      expect(unconfirmed.stderr).to.include("--yes");
      const keyless = await run(["swap", "USDC", "WETH", "1000000", "--yes", "--json"], { ...env, SWAP_API_KEY: apiKey, PRIVATE_KEY: undefined });
      expect(keyless.code).to.equal(2);
      expect(json(keyless).error.exit_code).to.equal(2);
      const argumentless = await run(["swap", "--yes"], { ...env, SWAP_API_KEY: apiKey });
      expect(argumentless.code, argumentless.stderr).to.equal(2);
      expect(argumentless.stderr).to.include("<sell> <buy> <amount>").and.include("--quote");
    });

    it("3: the API refused the request (4xx)", async () => {
      const result = await run(["quote", "USDC", "USDC", "1000000", "--json"], { ...env, SWAP_API_KEY: apiKey });
      expect(result.code, result.stderr).to.equal(3);
      expect(json(result).error).to.include({ status: 400, code: "same_token" });
    });

    it("4: rate-limited (429)", async () => {
      const client = createTradingClient({ apiUrl: devnet.apiUrl, apiKey, maxAttempts: 1 });
      const taker = devnet.wallet(DEV_KEYS[6]).account.address;
      let limited = false;
      for (let i = 0; i < 80 && !limited; i++) {
        limited = await client.getQuote({ sellToken: devnet.token("USDC"), buyToken: devnet.token("WETH"), sellAmount: 1000n, taker }).then(
          () => false,
          (error: { status?: number }) => error.status === 429,
        );
      }
      client.close();
      expect(limited).to.equal(true);
      const result = await run(["quote", "USDC", "WETH", "1000", "--retries", "0", "--json"], { ...env, SWAP_API_KEY: apiKey });
      expect(result.code, result.stderr).to.equal(4);
      expect(json(result).error).to.include({ status: 429, code: "rate_limited" });
    });

    it("5: on chain, a quote that no longer fills (executed twice)", async () => {
      const { apiKey: fresh } = await devnet.onboardedClient();
      const trading = { ...env, SWAP_API_KEY: fresh, PRIVATE_KEY: DEV_KEYS[7] };
      const quote = await run(["quote", "USDC", "DAI", "5000000", "--json"], trading);
      expect(quote.code, quote.stderr).to.equal(0);
      const file = join(devnet.directory, "saved-quote.json");
      writeFileSync(file, quote.stdout);
      // A saved quote needs no <sell> <buy> <amount>: the help says they are ignored.
      const first = await run(["swap", "--quote", file, "--yes", "--json"], trading);
      expect(first.code, first.stderr).to.equal(0);
      const second = await run(["swap", "x", "y", "0", "--quote", file, "--yes", "--json"], trading);
      expect(second.code, second.stderr).to.equal(5);
      expect(json(second).error.name).to.equal("StaleQuoteError");
    });

    describe("with an API that does not answer, or is not there", () => {
      let silent: Server;
      const sockets: Socket[] = [];
      let silentUrl: string;
      let closedUrl: string;
      before(async () => {
        silent = createServer((socket) => sockets.push(socket));
        await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
        silentUrl = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
        const probe = createServer();
        await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
        closedUrl = `http://127.0.0.1:${(probe.address() as { port: number }).port}`;
        await new Promise<void>((resolve) => probe.close(() => resolve()));
      });
      after(async () => {
        for (const socket of sockets) socket.destroy();
        await new Promise<void>((resolve) => silent.close(() => resolve()));
      });

      it("6: timeout", async () => {
        const result = await run(["tokens", "--timeout", "1", "--retries", "0", "--json"], { ...env, SWAP_API_URL: silentUrl });
        expect(result.code, result.stderr).to.equal(6);
        expect(json(result).error.code).to.equal("timeout");
      });

      it("7: an unreachable RPC, named by its URL, is a connection error, not a refused router", async () => {
        const { client } = await devnet.onboardedClient();
        const quote = await client.getQuote({ sellToken: devnet.token("USDC"), buyToken: devnet.token("WETH"), sellAmount: 1_000_000n, taker: privateKeyToAccount(DEV_KEYS[6]).address });
        client.close();
        const file = join(devnet.directory, "quote-for-dead-rpc.json");
        writeFileSync(file, JSON.stringify(quote));
        for (const mode of ["--dry-run", "--yes"]) {
          const result = await run(["swap", "--quote", file, mode, "--json"], { ...env, RPC_URL: closedUrl });
          expect(result.code, result.stderr).to.equal(7);
          expect(result.stderr).to.include(`cannot reach ${closedUrl}`).and.not.include("refusing");
          expect(json(result).error).to.include({ name: "ChainConnectionError", exit_code: 7 });
        }
      });

      it("7: API unavailable", async () => {
        const result = await run(["tokens", "--retries", "0", "--json"], { ...env, SWAP_API_URL: closedUrl });
        expect(result.code, result.stderr).to.equal(7);
        expect(json(result).error.code).to.equal("network_error");
      });
    });

    it("8: a saved quote whose tx.data pays someone else is refused before anything is signed or sent, in a dry run too", async () => {
      const { apiKey: fresh } = await devnet.onboardedClient();
      const trading = { ...env, SWAP_API_KEY: fresh, PRIVATE_KEY: DEV_KEYS[5] };
      const taker = privateKeyToAccount(DEV_KEYS[5]).address;
      const saved = await run(["quote", "USDC", "WETH", "5000000", "--json"], trading);
      expect(saved.code, saved.stderr).to.equal(0);
      const quote = quoteJsonSchema.parse(JSON.parse(saved.stdout));
      const attacker = "0x000000000000000000000000000000000000bEEF";
      // The recipient rewritten in the calldata and in the witness alike, as a proxy would.
      const tampered = withCall(quote, (call) => ({ ...call, order: { ...call.order, recipient: attacker } }));
      tampered.permit2!.message.witness.recipient = attacker;
      const file = join(devnet.directory, "tampered-quote.json");
      writeFileSync(file, JSON.stringify(tampered));
      const state = () =>
        Promise.all([
          devnet.publicClient.getTransactionCount({ address: taker, blockTag: "pending" }),
          devnet.publicClient.readContract({ address: devnet.token("USDC"), abi: erc20Abi, functionName: "balanceOf", args: [taker] }),
        ]);
      const before = await state();
      for (const mode of ["--dry-run", "--yes"]) {
        const result = await run(["swap", "x", "y", "0", "--quote", file, mode, "--json"], trading);
        expect(result.code, result.stderr).to.equal(8);
        expect(json(result).error).to.include({ name: "QuoteMismatchError", field: "tx.data.order.recipient", exit_code: 8 });
        expect(result.stderr).to.include("tx.data.order.recipient");
      }
      expect(await state()).to.deep.equal(before);
      // The same quote as served passes the dry run.
      writeFileSync(file, saved.stdout);
      const honest = await run(["swap", "x", "y", "0", "--quote", file, "--dry-run", "--json"], trading);
      expect(honest.code, honest.stderr).to.equal(0);
    });

    it("8: refused by the client's checks (a token outside the snapshot, without --genuine-demand)", async () => {
      const result = await run(["quote", "USDC", "0x1111111111111111111111111111111111111111", "1000000", "--json"], { ...env, SWAP_API_KEY: apiKey });
      expect(result.code, result.stderr).to.equal(8);
      expect(json(result).error.name).to.equal("TokenNotSupportedError");
    });
  });
});
