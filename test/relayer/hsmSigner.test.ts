import * as pkcs11js from "pkcs11js";
import { expect } from "chai";
import hre from "hardhat";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { getAddress, keccak256, parseEther, recoverAddress, toHex, type Address, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { secp256k1 } from "@noble/curves/secp256k1";
import { encryptKeystore, writeKeystoreFile } from "../../sdk";
import { loadRelayerConfig } from "../../relayer/config";
import { pkcs11Backend } from "../../relayer/signing/pkcs11Backend";
import { parseSignerSpecs } from "../../relayer/signing/signerSpecs";
import { openKeyBackends } from "../../relayer/signing/openKeyBackends";
import { fundedTakers, gaslessSuite, RELAYER_TOKEN, startGaslessStack } from "../fixtures/gaslessStack";
import { createSoftHsmToken, SOFTHSM_MODULE, type SoftHsmToken } from "../fixtures/softHsmToken";
import { admin, relayOnce, sender } from "../fixtures/signerAdmin";
import { until } from "../fixtures/waitUntil";

const HALF_N = secp256k1.CURVE.n >> 1n;


async function fund(address: Address): Promise<void> {
  await hre.network.provider.request({ method: "hardhat_setBalance", params: [address, toHex(parseEther("100"))] });
}

describe("relayer signers: keys in a PKCS#11 token (SoftHSM2) and in an encrypted keystore", function () {
  this.timeout(120_000);
  let token: SoftHsmToken;
  before(() => {
    token = createSoftHsmToken();
    token.generateKey("signer-1", "01");
    token.generateKey("signer-2", "02");
  });
  after(() => token.remove());

  it("a secp256k1 key generated inside the token signs digests that recover to its address, always low-s, one at a time even when asked at once", async () => {
    const [spec] = parseSignerSpecs(token.signerEntry("signer-1"));
    const backend = pkcs11Backend(spec as Extract<typeof spec, { kind: "pkcs11" }>);
    try {
      expect(backend.kind).to.equal("pkcs11");
      const digests = Array.from({ length: 24 }, (_, index) => keccak256(toHex(`digest ${index}`)));
      const signatures = await Promise.all(digests.map((digest) => backend.signDigest(digest)));
      for (const [index, signature] of signatures.entries()) {
        expect(BigInt(signature.s) <= HALF_N, "low-s").to.equal(true);
        expect(await recoverAddress({ hash: digests[index]!, signature })).to.equal(backend.address);
      }
      // The module's raw signatures have high s about half the time: both recovery bits were needed.
      expect(new Set(signatures.map((signature) => signature.yParity)).size).to.equal(2);
    } finally {
      await backend.close();
    }
    expect(await backend.signDigest(keccak256("0x01")).then(() => "signed", (error: Error) => error.message)).to.match(/closed/);
  });

  it("a session the module lost (all the token's sessions closed, as an HSM restart does) is reopened and logged into again: the next signature succeeds", async () => {
    const [spec] = parseSignerSpecs(token.signerEntry("signer-1"));
    const backend = pkcs11Backend(spec as Extract<typeof spec, { kind: "pkcs11" }>);
    // A second handle on the same loaded library (one module state per process), as a fault injector.
    const injector = new pkcs11js.PKCS11();
    injector.load(SOFTHSM_MODULE);
    try {
      const before = await backend.signDigest(keccak256(toHex("before")));
      expect(await recoverAddress({ hash: keccak256(toHex("before")), signature: before })).to.equal(backend.address);
      const slot = injector.C_GetSlotList(true).find((candidate) => injector.C_GetTokenInfo(candidate).label.trim() === token.label)!;
      injector.C_CloseAllSessions(slot);
      const digest = keccak256(toHex("after the loss"));
      const after = await backend.signDigest(digest);
      expect(await recoverAddress({ hash: digest, signature: after })).to.equal(backend.address);
      // A second loss is survived as well: the reopen is per failure, not once per process.
      injector.C_CloseAllSessions(slot);
      expect(await recoverAddress({ hash: digest, signature: await backend.signDigest(digest) })).to.equal(backend.address);
    } finally {
      await backend.close();
      injector.close();
    }
  });

  it("two keys of one token open side by side (one login), each its own address; a wrong PIN, an unknown key or token are refused by what is wrong", async () => {
    const backends = await openKeyBackends(parseSignerSpecs(`${token.signerEntry("signer-1")} ${token.signerEntry("signer-2")}`), { production: true });
    try {
      expect(backends.map((backend) => backend.address)).to.have.length(2);
      expect(backends[0]!.address).to.not.equal(backends[1]!.address);
    } finally {
      await Promise.all(backends.map((backend) => backend.close()));
    }
    const wrongPin = join(token.directory, "wrong.pin");
    writeFileSync(wrongPin, "000000", { mode: 0o600 });
    const open = (entry: string) => openKeyBackends(parseSignerSpecs(entry), { production: true }).then(async (opened) => {
      await Promise.all(opened.map((backend) => backend.close()));
      return "opened";
    }, (error: Error) => error.message);
    expect(await open(token.signerEntry("signer-1").replace(token.pinFile, wrongPin))).to.match(/signer 1 \(pkcs11\): PKCS#11 login .* failed: CKR_PIN_INCORRECT/);
    expect(await open(token.signerEntry("nobody"))).to.match(/no private key nobody in the token/);
    expect(await open(token.signerEntry("signer-1").replace("token=relayer", "token=elsewhere"))).to.match(/no PKCS#11 token with label "elsewhere" .*tokens present: "relayer"/);
    const openPin = join(token.directory, "open.pin");
    writeFileSync(openPin, "246810", { mode: 0o644 });
    expect(await open(token.signerEntry("signer-1").replace(token.pinFile, openPin))).to.match(/readable by every user/);
  });

  it("RELAYER_SIGNERS parses pkcs11 URIs, keystores and unsafe keys, and refuses PINs in the URI, unknown backends and raw keys in production, naming the entry", () => {
    const specs = parseSignerSpecs(`  ${token.signerEntry("signer-1")}\n keystore:deployer?password-file=/run/pw&dir=/keys unsafe:0x${"11".repeat(32)} `);
    expect(specs.map((spec) => spec.kind)).to.deep.equal(["pkcs11", "keystore", "unsafe"]);
    expect(specs[0]).to.include({ modulePath: SOFTHSM_MODULE, token: "relayer", object: "signer-1", pinFile: token.pinFile });
    expect(specs[1]).to.deep.equal({ kind: "keystore", reference: "deployer", passwordFile: "/run/pw", dir: "/keys" });
    expect(parseSignerSpecs(`pkcs11:token=a;id=%01%ff?module-path=/m.so&pin-source=file:/p`)[0]).to.include({ id: "0x01ff" });
    const base = { RELAYER_INTERNAL_TOKEN: RELAYER_TOKEN };
    const refusal = (env: Record<string, string>) => {
      try {
        loadRelayerConfig({ ...base, ...env });
        return "accepted";
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(refusal({ RELAYER_SIGNERS: "pkcs11:token=a;object=b?module-path=/m.so&pin-value=1234" })).to.match(/RELAYER_SIGNERS: signer 1 \(pkcs11\): pin-value would put the PIN/);
    expect(refusal({ RELAYER_SIGNERS: "pkcs11:token=a;object=b?pin-source=file:/p" })).to.match(/module-path/);
    expect(refusal({ RELAYER_SIGNERS: `${token.signerEntry("signer-1")} vault:key` })).to.match(/signer 2: unknown backend "vault"/);
    expect(refusal({ RELAYER_SIGNERS: "keystore:deployer" })).to.match(/password-file/);
    const raw = `0x${"22".repeat(32)}`;
    const unsafe = refusal({ RELAYER_SIGNERS: `unsafe:${raw}`, NODE_ENV: "production" });
    expect(unsafe).to.match(/RELAYER_SIGNERS: raw keys are refused when NODE_ENV=production/);
    expect(unsafe).to.not.include(raw.slice(2));
    expect(refusal({ RELAYER_PRIVATE_KEYS: raw, NODE_ENV: "production" })).to.match(/RELAYER_PRIVATE_KEYS: raw keys are refused/);
    expect(refusal({ RELAYER_PRIVATE_KEYS: raw, RELAYER_SIGNERS: `unsafe:${raw}` })).to.match(/not both/);
    expect(refusal({})).to.match(/RELAYER_SIGNERS: give the relayer's signers/);
    expect(refusal({ RELAYER_SIGNERS: token.signerEntry("signer-1"), NODE_ENV: "production" })).to.equal("accepted");
    // A relayer's default name is stable and names no secret.
    expect(loadRelayerConfig({ ...base, RELAYER_SIGNERS: token.signerEntry("signer-1") }).relayerId).to.match(/^relayer-[0-9a-f]{16}$/);
  });

  describe("relaying", () => {
    const suite = gaslessSuite();

    async function relayOne(signersEntry: string): Promise<{ from: Address; signers: readonly Address[] }> {
      suite.stack = await startGaslessStack(suite.f, { relayerEnv: { RELAYER_SIGNERS: signersEntry, RELAYER_MIN_SIGNER_BALANCE_ETH: "0" } });
      const signers = suite.stack.relayer!.signers.map((signer) => signer.address);
      for (const signer of signers) await fund(signer);
      const [taker] = await fundedTakers(suite.f, 1);
      const quote = (await suite.stack.gaslessQuote(taker!.address)).body;
      const submitted = await suite.stack.submit({ quote_id: quote.quote_id, signature: await suite.stack.sign(quote, taker!) });
      expect(submitted.status, JSON.stringify(submitted.body)).to.equal(202);
      const relay = await suite.stack.waitFor(submitted.body.relay_id);
      expect(relay.status, JSON.stringify(relay)).to.equal("confirmed");
      const transaction = await suite.f.publicClient.getTransaction({ hash: relay.tx_hash as Hex });
      const receipt = await suite.f.publicClient.getTransactionReceipt({ hash: relay.tx_hash as Hex });
      expect(receipt.status).to.equal("success");
      expect(transaction.to?.toLowerCase()).to.equal(suite.f.contracts.gaslessSwapRouter.toLowerCase());
      return { from: getAddress(transaction.from), signers };
    }

    it("a relay signed by the HSM key is mined on Hardhat from the key's address", async () => {
      const { from, signers } = await relayOne(token.signerEntry("signer-2"));
      expect(signers).to.have.length(1);
      expect(from).to.equal(signers[0]);
    });

    it("a relayer whose only signer's PKCS#11 session cannot reopen (the PIN changed) takes no relays and /ready is 503 saying why; with the PIN back, a probe signs and the waiting relay is mined", async () => {
      token.generateKey("signer-3", "03");
      suite.stack = await startGaslessStack(suite.f, { relayerEnv: { RELAYER_SIGNERS: token.signerEntry("signer-3"), RELAYER_MIN_SIGNER_BALANCE_ETH: "0" } });
      const relayer = suite.stack.relayer!;
      const [signer] = relayer.context.pool.signers;
      await fund(signer!.address);
      const ready = async () => {
        const response = await fetch(`${relayer.url}/ready`, { headers: { authorization: `Bearer ${RELAYER_TOKEN}` } });
        return { status: response.status, body: (await response.json()) as { checks: { signers: string }; signers: { signing: string }[]; degraded?: { signers_without_work: string[] } } };
      };
      expect((await ready()).status).to.equal(200);
      expect((await ready()).body.signers[0]!.signing).to.equal("ok");

      // The HSM's PIN changes under the relayer, and its sessions end (an HSM restart): a reopen cannot log in.
      const injector = new pkcs11js.PKCS11();
      injector.load(SOFTHSM_MODULE);
      const pin = readFileSync(token.pinFile, "utf8").trim();
      const setPin = (from: string, to: string) => {
        const slot = injector.C_GetSlotList(true).find((candidate) => injector.C_GetTokenInfo(candidate).label.trim() === token.label)!;
        const session = injector.C_OpenSession(slot, pkcs11js.CKF_SERIAL_SESSION | pkcs11js.CKF_RW_SESSION);
        try {
          injector.C_Login(session, pkcs11js.CKU_USER, from);
        } catch (error) {
          if (!String(error).includes("CKR_USER_ALREADY_LOGGED_IN")) throw error;
        }
        injector.C_SetPIN(session, from, to);
        injector.C_CloseAllSessions(slot);
      };
      try {
        setPin(pin, "999999");
        const [taker] = await fundedTakers(suite.f, 1);
        const quote = (await suite.stack.gaslessQuote(taker!.address)).body;
        const submitted = await suite.stack.submit({ quote_id: quote.quote_id, signature: await suite.stack.sign(quote, taker!) });
        expect(submitted.status, JSON.stringify(submitted.body)).to.equal(202);
        await until(async () => (await ready()).status === 503, "/ready turning 503");
        const down = (await ready()).body;
        expect(down.checks.signers).to.match(/no signer can sign/).and.include(signer!.address).and.match(/PIN file/);
        expect(down.signers[0]!.signing).to.match(/^fails since .*PIN_INCORRECT/);
        expect(down.degraded?.signers_without_work).to.deep.equal([signer!.address]);
        expect(relayer.context.pool.tryLease()).to.equal(undefined);
        // The upkeep's check (its probe fails too) sets the metric and logs once.
        const failingMetric = `relayer_signer_signing_failing{signer="${signer!.address}"} 1`;
        await until(async () => (await (await fetch(`${relayer.metricsUrl}/metrics`)).text()).includes(failingMetric), "the signing metric");

        setPin("999999", pin);
        await until(async () => (await ready()).status === 200, "/ready back to 200 after the upkeep's probe");
        expect((await ready()).body.signers[0]!.signing).to.equal("ok");
        const relay = await suite.stack.waitFor(submitted.body.relay_id);
        expect(relay.status, JSON.stringify(relay)).to.equal("confirmed");
        expect(getAddress((await suite.f.publicClient.getTransaction({ hash: relay.tx_hash as Hex })).from)).to.equal(signer!.address);
      } finally {
        injector.close();
      }
    });

    it("a PKCS#11 key added to a running relayer (relayer-admin signers add) is opened from the token and signs its relays; retired, it is let go", async () => {
      token.generateKey("signer-4", "04");
      suite.stack = await startGaslessStack(suite.f, { signers: 1, relayerEnv: { RELAYER_SIGNER_STATE_POLL_MS: "50" } });
      const stack = suite.stack;
      const [original] = stack.relayer!.context.pool.signers;
      const added = await admin(stack, "signers", "add", token.signerEntry("signer-4"));
      expect(added.code, added.output).to.equal(0);
      expect(added.output).to.match(/ added \(pkcs11 token relayer key signer-4 /);
      const address = getAddress(/^(0x[0-9a-fA-F]{40}) added/.exec(added.output)![1]!);
      await fund(address);
      await until(() => stack.relayer!.context.pool.bySigner(address) !== undefined, "the relayer opening the token's key");
      expect(stack.relayer!.context.pool.bySigner(address)!.backend).to.equal("pkcs11");
      expect((await admin(stack, "signers", "drain", original!.address)).code).to.equal(0);
      await until(() => original!.drained, "the drain");
      expect(await sender(stack, suite, (await relayOnce(stack, suite)).relayId)).to.equal(address);

      expect((await admin(stack, "signers", "resume", original!.address)).code).to.equal(0);
      expect((await admin(stack, "signers", "retire", address)).code).to.equal(0);
      await until(() => stack.relayer!.context.pool.bySigner(address) === undefined, "the retired token key let go");
      expect(await sender(stack, suite, (await relayOnce(stack, suite)).relayId)).to.equal(original!.address);
    });

    it("a relay signed by a key decrypted from a Web3 Secret Storage keystore (password from a file) is mined from its address", async () => {
      const key = generatePrivateKey();
      const directory = join(token.directory, "keystores");
      writeKeystoreFile(directory, "relayer-1", await encryptKeystore(key, "keystore password", { scrypt: { n: 1024, r: 8, p: 1 } }));
      const passwordFile = join(token.directory, "keystore.password");
      writeFileSync(passwordFile, "keystore password\n", { mode: 0o600 });
      const { from } = await relayOne(`keystore:relayer-1?password-file=${passwordFile}&dir=${directory}`);
      expect(from).to.equal(privateKeyToAccount(key).address);
    });
  });
});

