import { expect } from "chai";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import hre from "hardhat";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getAddress, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { routerRegistryAbi } from "../../sdk";
import { manifestPath } from "../../sdk/chain/manifest";
import { decryptKeystore } from "../../sdk/keys/decryptKeystore";
import { startChainServer, type ChainServer } from "../../scripts/devnet/chainServer";
import { settlementFixture, type SettlementFixture } from "../fixtures/settlementFixture";
import { fixtureManifest } from "../fixtures/tradingApi";
import { runScript, type ScriptResult } from "../fixtures/runScript";
import { startRpcProxy } from "../fixtures/rpcProxy";
import { scaledTimeout } from "../fixtures/testTimeouts";

/** Development account #0's well-known key: the fixture's deployer, the registry's administrator. */
const ADMIN_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80" as Hex;
const ADMIN = privateKeyToAccount(ADMIN_KEY).address;
/** Cheap scrypt: these tests are about the CLI, not the KDF's cost. */
const LIGHT = ["--scrypt-n", "1024"];

/** Neither the key (with or without 0x, any case) nor the password appears in anything the process wrote. */
function expectNoSecret(result: { stdout: string; stderr: string } | string, ...secrets: string[]) {
  const text = (typeof result === "string" ? result : result.stdout + result.stderr).toLowerCase();
  for (const secret of secrets) expect(text, "a secret leaked into the output").to.not.contain(secret.replace(/^0x/, "").toLowerCase());
}

/**
 * Runs a script in a real pseudo-terminal (util-linux `script`), typing each answer only once its
 * prompt has appeared, as a person would. Returns everything the terminal showed.
 */
function runInTerminal(script: string, args: readonly string[], answers: readonly [RegExp, string][], env: NodeJS.ProcessEnv = {}): Promise<{ status: number | null; output: string }> {
  const command = [process.execPath, require.resolve("ts-node/dist/bin.js"), "--transpile-only", script, ...args].map((part) => `'${part}'`).join(" ");
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("HARDHAT_")));
  const child = spawn("script", ["-qec", command, "/dev/null"], { cwd: hre.config.paths.root, env: { ...inherited, ...env }, stdio: ["pipe", "pipe", "pipe"] });
  let output = "";
  let next = 0;
  let seen = 0;
  const onOutput = (chunk: Buffer) => {
    output += chunk.toString("utf8");
    while (next < answers.length) {
      const [prompt, answer] = answers[next]!;
      const match = prompt.exec(output.slice(seen));
      if (match === null) break;
      seen += match.index + match[0].length;
      next += 1;
      child.stdin.write(`${answer}\r`);
    }
  };
  child.stdout.on("data", onOutput);
  child.stderr.on("data", onOutput);
  return new Promise((resolve) => child.on("close", (status) => resolve({ status, output })));
}

describe("npm run keystore, and the signing CLIs' --keystore (child processes)", function () {
  this.timeout(scaledTimeout(180_000));
  let directory: string;
  let keys: string;
  const keystore = (...args: string[]) => runScript("scripts/keystore.ts", args, { KEYSTORE_DIR: keys });

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), "keystore-cli-"));
    keys = join(directory, "keys");
    writeFileSync(join(directory, "password"), "operator password\n");
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it("new at the hidden prompt: the password is asked twice and never echoed; the address is printed, the key never; the file decrypts with the typed password", async () => {
    const { status, output } = await runInTerminal("scripts/keystore.ts", ["new", "typed", "--dir", keys, ...LIGHT], [
      [/new keystore password: /, "hunter2 typed"],
      [/repeat the password: /, "hunter2 typed"],
    ]);
    expect(status, output).to.equal(0);
    const address = /address\s+(0x[0-9a-fA-F]{40})/.exec(output)?.[1];
    expect(address, output).to.be.a("string");
    expectNoSecret(output, "hunter2");
    const decrypted = await decryptKeystore(readFileSync(join(keys, "typed"), "utf8"), "hunter2 typed");
    expect(decrypted.address).to.equal(address);
    expectNoSecret(output, decrypted.privateKey);

    const mismatch = await runInTerminal("scripts/keystore.ts", ["new", "other", "--dir", keys, ...LIGHT], [
      [/new keystore password: /, "one"],
      [/repeat the password: /, "two"],
    ]);
    expect(mismatch.status).to.equal(1);
    expect(mismatch.output).to.contain("the passwords differ: nothing was written");
    expect(readdirSync(keys)).to.deep.equal(["typed"]);
  });

  it("import: the key typed at a hidden prompt or read from --private-key-file; stdout and stderr show the address, never the key; an existing name is refused", async () => {
    const typedKey = generatePrivateKey();
    const typed = await runInTerminal("scripts/keystore.ts", ["import", "typed", "--dir", keys, "--password-file", join(directory, "password"), ...LIGHT], [[/private key \(hidden\): /, typedKey]]);
    expect(typed.status, typed.output).to.equal(0);
    expect(typed.output).to.contain(privateKeyToAccount(typedKey).address);
    expectNoSecret(typed.output, typedKey, "operator password");

    writeFileSync(join(directory, "admin.key"), `${ADMIN_KEY.slice(2)}\n`);
    const imported = await keystore("import", "admin", "--private-key-file", join(directory, "admin.key"), "--password-file", join(directory, "password"), "--json", ...LIGHT);
    expect(imported.status, imported.stderr).to.equal(0);
    expect(JSON.parse(imported.stdout)).to.deep.equal({ name: "admin", file: join(keys, "admin"), address: ADMIN });
    expectNoSecret(imported, ADMIN_KEY, "operator password");

    const again = await keystore("import", "admin", "--private-key-file", join(directory, "admin.key"), "--password-file", join(directory, "password"), ...LIGHT);
    expect(again.status).to.equal(1);
    expect(again.stderr).to.contain("a keystore named admin already exists");
    expectNoSecret(again, ADMIN_KEY);

    writeFileSync(join(directory, "bad.key"), "0x1234\n");
    const bad = await keystore("import", "bad", "--private-key-file", join(directory, "bad.key"), "--password-file", join(directory, "password"), ...LIGHT);
    expect(bad.status).to.equal(1);
    expect(bad.stderr).to.contain("must be 64 hex digits").and.not.contain("1234");

    const list = await keystore("list");
    expect(list.status).to.equal(0);
    expect(list.stdout).to.match(new RegExp(`admin\\s+${ADMIN}\\s+scrypt`)).and.match(new RegExp(`typed\\s+${privateKeyToAccount(typedKey).address}\\s+scrypt`));
    const listed = JSON.parse((await keystore("list", "--json")).stdout) as { keystores: { name: string }[] };
    expect(listed.keystores.map((entry) => entry.name)).to.deep.equal(["admin", "typed"]);
  });

  it("refusals: no terminal and no password file, an empty password, unknown commands and flags", async () => {
    const noTerminal = await keystore("new", "x", ...LIGHT);
    expect(noTerminal.status).to.equal(1);
    expect(noTerminal.stderr).to.contain("without a terminal: pass --password-file");
    writeFileSync(join(directory, "empty"), "\n");
    const empty = await keystore("new", "x", "--password-file", join(directory, "empty"), ...LIGHT);
    expect(empty.status).to.equal(1);
    expect(empty.stderr).to.contain("refusing an empty password");
    for (const args of [["frobnicate"], ["list", "--bogus"], ["new", "a", "b"], ["new", "--private-key-file", "k"], ["new", "--scrypt-n", "lots"]]) {
      expect((await keystore(...args)).status, args.join(" ")).to.equal(2);
    }
    expect(readdirSync(directory)).to.not.include("keys");
  });

  describe("registry signs from a keystore (a served Hardhat chain with the settlement fixture)", () => {
    let f: SettlementFixture;
    let server: ChainServer;
    let env: NodeJS.ProcessEnv;
    const registry = (extra: NodeJS.ProcessEnv, ...args: string[]): Promise<ScriptResult> => runScript("scripts/registry.ts", args, { ...env, ...extra });

    beforeEach(async () => {
      f = await loadFixture(settlementFixture);
      server = await startChainServer(hre, "127.0.0.1", 0);
      writeFileSync(manifestPath(directory, 4663), JSON.stringify(await fixtureManifest(f), null, 2));
      env = { RPC_URL: server.url, DEPLOYMENTS_DIR: directory, KEYSTORE_DIR: keys, OPERATOR_PRIVATE_KEY: "" };
      writeFileSync(join(directory, "admin.key"), ADMIN_KEY);
      expect((await keystore("import", "admin", "--private-key-file", join(directory, "admin.key"), "--password-file", join(directory, "password"), ...LIGHT)).status).to.equal(0);
    });
    afterEach(async () => {
      await server.close();
    });

    it("--keystore signs as the keystore's account (a stranger's keystore is refused by the registry naming that account); the raw key needs --unsafe-private-key and is refused in production; no output holds a key", async () => {
      expect(getAddress(f.deployer.account.address)).to.equal(ADMIN);
      const passwordFile = join(directory, "password");
      const signed = await registry({}, "set-dwell", "90", "--keystore", "admin", "--password-file", passwordFile);
      expect(signed.status, signed.stdout + signed.stderr).to.equal(0);
      expect(signed.stdout).to.match(new RegExp(`setDwell sent by ${ADMIN}: tx 0x[0-9a-f]{64}`)).and.match(/dwell\s+90 s/);
      expectNoSecret(signed, ADMIN_KEY, "operator password");

      const strangerKey = generatePrivateKey();
      writeFileSync(join(directory, "stranger.key"), strangerKey);
      expect((await keystore("import", "stranger", "--private-key-file", join(directory, "stranger.key"), "--password-file", passwordFile, ...LIGHT)).status).to.equal(0);
      const stranger = privateKeyToAccount(strangerKey).address;
      const refused = await registry({}, "set-dwell", "60", "--keystore", join(keys, "stranger"), "--password-file", passwordFile);
      expect(refused.status).to.equal(1);
      expect(refused.stdout).to.contain(`refused: setDwell reverts with RouterRegistryUnauthorized(${stranger})`);
      expectNoSecret(refused, strangerKey);

      writeFileSync(join(directory, "wrong"), "not the password");
      const wrongPassword = await registry({}, "set-dwell", "60", "--keystore", "admin", "--password-file", join(directory, "wrong"));
      expect(wrongPassword.status).to.equal(1);
      expect(wrongPassword.stderr).to.contain("wrong password for");

      const withoutFlag = await registry({ OPERATOR_PRIVATE_KEY: ADMIN_KEY }, "set-dwell", "60");
      expect(withoutFlag.status).to.equal(1);
      expect(withoutFlag.stderr).to.contain("signs only with --unsafe-private-key");
      const unsafe = await registry({ OPERATOR_PRIVATE_KEY: ADMIN_KEY }, "set-dwell", "60", "--unsafe-private-key");
      expect(unsafe.status, unsafe.stderr).to.equal(0);
      expect(unsafe.stderr).to.contain(`signing as ${ADMIN} with the raw key in OPERATOR_PRIVATE_KEY (unsafe`);
      const production = await registry({ OPERATOR_PRIVATE_KEY: ADMIN_KEY, NODE_ENV: "production" }, "set-dwell", "60", "--unsafe-private-key");
      expect(production.status).to.equal(1);
      expect(production.stderr).to.contain("refused when NODE_ENV=production");
      for (const result of [withoutFlag, unsafe, production, wrongPassword]) expectNoSecret(result, ADMIN_KEY, "operator password");
    });

    it("on a node that is not a development node, registry and migrate-router never sign with its unlocked accounts by default: --from must name one; nothing is sent otherwise", async () => {
      // A real proxy in front of the chain that introduces the node as geth, whose unlocked accounts are live keys.
      const proxy = await startRpcProxy(server.url);
      try {
        proxy.answer("web3_clientVersion", "Geth/v1.14.11-stable/linux-amd64/go1.23.2");
        const before = await f.publicClient.getBlockNumber();
        const viaGeth = { RPC_URL: proxy.url };
        for (const result of [await registry(viaGeth, "set-dwell", "60"), await runScript("scripts/migrateRouter.ts", ["2"], { ...env, ...viaGeth })]) {
          expect(result.status, result.stdout + result.stderr).to.equal(1);
          expect(result.stderr).to.contain("is not a development node").and.contain("--from <address>");
        }
        expect(await f.publicClient.getBlockNumber(), "nothing was sent").to.equal(before);
        const named = await registry(viaGeth, "set-dwell", "60", "--from", ADMIN);
        expect(named.status, named.stdout + named.stderr).to.equal(0);
        expect(named.stdout).to.contain(`setDwell sent by ${ADMIN}`);
      } finally {
        await proxy.close();
      }
    });

    it("migrate-router signs from a keystore: handed the administrator role, a keystore account (no node account) migrates feature 2; a wrong password stops it before any transaction", async () => {
      const passwordFile = join(directory, "password");
      const operatorKey = generatePrivateKey();
      const operator = privateKeyToAccount(operatorKey).address;
      writeFileSync(join(directory, "operator.key"), operatorKey);
      expect((await keystore("import", "operator", "--private-key-file", join(directory, "operator.key"), "--password-file", passwordFile, ...LIGHT)).status).to.equal(0);
      await f.publicClient.request({ method: "hardhat_setBalance" as never, params: [operator, "0x56BC75E2D63100000"] as never });
      expect((await registry({}, "propose-admin", operator, "--keystore", "admin", "--password-file", passwordFile)).status).to.equal(0);
      expect((await registry({}, "accept-admin", "--keystore", "operator", "--password-file", passwordFile)).status).to.equal(0);

      const before = await f.publicClient.getBlockNumber();
      writeFileSync(join(directory, "wrong"), "not the password");
      const wrong = await runScript("scripts/migrateRouter.ts", ["2", "--keystore", "operator", "--password-file", join(directory, "wrong")], env);
      expect(wrong.status).to.equal(1);
      expect(wrong.stderr).to.contain("wrong password for");
      expect(await f.publicClient.getBlockNumber(), "nothing was sent").to.equal(before);

      const migrated = await runScript("scripts/migrateRouter.ts", ["2", "--keystore", "operator", "--password-file", passwordFile], env);
      expect(migrated.status, migrated.stdout + migrated.stderr).to.equal(0);
      const router = /Feature 2 migrated to (0x[0-9a-fA-F]{40}) \(signed by (0x[0-9a-fA-F]{40})\)/.exec(migrated.stdout);
      expect(router?.[2], migrated.stdout).to.equal(operator);
      const [, current] = await f.publicClient.readContract({ address: f.contracts.routerRegistry, abi: routerRegistryAbi, functionName: "getFeature", args: [2n] });
      expect(getAddress(current)).to.equal(getAddress(router![1]!));
      expectNoSecret(migrated, operatorKey, "operator password");
      expect((await runScript("scripts/migrateRouter.ts", ["2", "--bogus"], env)).status).to.equal(2);
    });
  });
});
