import { expect } from "chai";
import { recoverAddress, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { NonceTracker } from "../../relayer/broadcast/nonceTracker";
import { SignerPool } from "../../relayer/broadcast/signerPool";
import type { KeyBackend } from "../../relayer/signing/keyBackend";
import { localKeyBackend } from "../../relayer/signing/localKeyBackend";
import { SignerSpend } from "../../relayer/signing/signerSpend";
import { SIGNING_PROBE_DIGEST, SigningHealth } from "../../relayer/signing/signingHealth";

/** A real key backend that can be switched off, as an HSM that went away (its errors are the module's words). */
function switchableBackend(): { backend: KeyBackend; down: (reason?: string) => void; up: () => void; digests: Hex[] } {
  const inner = localKeyBackend(generatePrivateKey(), "unsafe", "test key");
  let failure: string | undefined;
  const digests: Hex[] = [];
  return {
    backend: {
      ...inner,
      async signDigest(digest) {
        digests.push(digest);
        if (failure !== undefined) throw new Error(failure);
        return inner.signDigest(digest);
      },
    },
    down: (reason = "CKR_PIN_INCORRECT") => void (failure = reason),
    up: () => void (failure = undefined),
    digests,
  };
}

describe("signing health: a signer whose key backend fails to sign gets no work until a probe signs", () => {
  it("records a failure with its first line and since when, keeps the first 'since' while it fails, and clears on a signature", async () => {
    const key = switchableBackend();
    const health = new SigningHealth((digest) => key.backend.signDigest(digest));
    expect(health.failing).to.equal(false);
    key.down("CKR_DEVICE_REMOVED\nmore detail");
    expect(await health.probe()).to.equal(false);
    const first = health.failure!;
    expect(first.error).to.equal("CKR_DEVICE_REMOVED");
    expect(health.record({ ok: false, error: new Error("CKR_PIN_INCORRECT") }, new Date(first.since.getTime() + 60_000))).to.equal(false);
    expect(health.failure).to.deep.equal({ error: "CKR_PIN_INCORRECT", since: first.since });
    key.up();
    expect(await health.probe()).to.equal(true);
    expect(health.failing).to.equal(false);
    expect(health.failure).to.equal(undefined);
  });

  it("the probe signs only the fixed probe digest, and that signature recovers to the key (the backend works, and nothing else was signed)", async () => {
    const key = switchableBackend();
    const signatures: Hex[] = [];
    const health = new SigningHealth(async (digest) => {
      const signature = await key.backend.signDigest(digest);
      signatures.push(digest);
      expect(await recoverAddress({ hash: digest, signature })).to.equal(key.backend.address);
      return signature;
    });
    await health.probe();
    await health.probe();
    expect(key.digests).to.deep.equal([SIGNING_PROBE_DIGEST, SIGNING_PROBE_DIGEST]);
    expect(signatures).to.have.length(2);
  });

  it("the pool gives no work to a failing signer while another signs, none when all fail, and the failing one again once it signs", async () => {
    const keys = [switchableBackend(), switchableBackend()];
    const pool = new SignerPool(
      keys.map(({ backend }) => ({
        account: privateKeyToAccount(generatePrivateKey()),
        nonces: new NonceTracker(0, undefined),
        spend: new SignerSpend(undefined),
        signing: new SigningHealth((digest) => backend.signDigest(digest)),
      })),
      4,
    );
    const [first, second] = pool.signers;
    keys[0]!.down();
    await first!.signing.probe();
    for (let index = 0; index < 3; index++) expect(pool.tryLease()).to.equal(second);
    keys[1]!.down();
    await second!.signing.probe();
    expect(pool.tryLease()).to.equal(undefined);
    keys[0]!.up();
    expect(await first!.signing.probe()).to.equal(true);
    expect(pool.tryLease()).to.equal(first);
  });
});
