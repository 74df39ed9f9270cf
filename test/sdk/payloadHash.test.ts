import { expect } from "chai";
import fc from "fast-check";
import { getAddress, type Address } from "viem";
import {
  apiKeyPayloadHash,
  applicationPayloadHash,
  createOnboardingMessage,
  encodeApiKeyPayload,
  encodeApplicationPayload,
  encodeRevokeApiKeyPayload,
  isValidSlug,
  OnboardingMessageError,
  parseOnboardingMessage,
  PayloadFieldError,
  revokeApiKeyPayloadHash,
  type ApplicationPayload,
} from "../../sdk";

const WALLET = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

/** Reads an encoding back field by field using only the length prefixes: possible only if it is self-delimiting. */
function decodeFields(encoded: string): [string, string][] {
  const bytes = Buffer.from(encoded, "utf8");
  const fields: [string, string][] = [];
  let at = 0;
  while (at < bytes.length) {
    const equals = bytes.indexOf("=", at);
    const colon = bytes.indexOf(":", equals);
    const name = bytes.subarray(at, equals).toString("utf8");
    const length = Number(bytes.subarray(equals + 1, colon).toString("utf8"));
    const value = bytes.subarray(colon + 1, colon + 1 + length).toString("utf8");
    expect(bytes[colon + 1 + length], "each field ends with a newline").to.equal(0x0a);
    fields.push([name, value]);
    at = colon + 2 + length;
  }
  return fields;
}

// Any Unicode text, and text dense in the encoding's own delimiters and keywords.
const text = fc.oneof(fc.string({ unit: "grapheme", maxLength: 40 }), fc.stringMatching(/^(none|some:|[=:\n0-9a-z])*$/));
const optionalText = fc.option(text, { nil: undefined });
const wallet = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((bytes) => getAddress(`0x${Buffer.from(bytes).toString("hex")}`));
const integer = fc.oneof(fc.nat(), fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }));

const applications = fc.record({
  chain_id: fc.option(integer, { nil: undefined }),
  owner_wallet: wallet,
  display_name: text,
  slug: text,
  contact_email: optionalText,
  telegram_handle: optionalText,
  app_url: optionalText,
  fee_recipient: wallet,
  requested_max_fee_bps: integer,
}) satisfies fc.Arbitrary<ApplicationPayload>;

const optional = (value: string | undefined) => (value === undefined ? "none" : `some:${value}`);
const lower = (address: Address) => address.toLowerCase();

/** The (name, value text) pairs the spec says an application hashes, built without the encoder. */
function applicationFieldList(payload: ApplicationPayload): [string, string][] {
  return [
    ["chain_id", optional(payload.chain_id?.toString())],
    ["owner_wallet", lower(payload.owner_wallet)],
    ["display_name", payload.display_name],
    ["slug", payload.slug],
    ["contact_email", optional(payload.contact_email ?? undefined)],
    ["telegram_handle", optional(payload.telegram_handle ?? undefined)],
    ["app_url", optional(payload.app_url ?? undefined)],
    ["fee_recipient", lower(payload.fee_recipient)],
    ["requested_max_fee_bps", payload.requested_max_fee_bps.toString()],
  ];
}

describe("sdk onboarding payload hash", () => {
  it("matches the create-API-key vector, text and hash", () => {
    const payload = { chain_id: 4663, owner_wallet: WALLET, integrator_id: 1, label: "prod key" } as const;
    expect(encodeApiKeyPayload(payload)).to.equal(
      "action=25:create_integrator_api_key\nchain_id=9:some:4663\nowner_wallet=42:0x70997970c51812dc3a010c7d01b50e0d17dc79c8\nintegrator_id=1:1\nlabel=8:prod key\n",
    );
    expect(apiKeyPayloadHash(payload)).to.equal("0x86ad45be792af711953c02c1487b4d0b48d2eae019f52dd2155983e3b97030fb");
  });

  it("matches the application vector, with a 14-byte display name", () => {
    const payload: ApplicationPayload = {
      chain_id: 4663,
      owner_wallet: WALLET,
      display_name: "Ünïcode Swap",
      slug: "unicode-swap",
      telegram_handle: "@uniswap_fan",
      fee_recipient: WALLET,
      requested_max_fee_bps: 25,
    };
    expect(encodeApplicationPayload(payload)).to.include("display_name=14:Ünïcode Swap\n").and.include("contact_email=4:none\n");
    expect(applicationPayloadHash(payload)).to.equal("0xe4b0a1fdabded1daa07387872dbe032eca9a5191860f1f960c6965c915dfc469");
  });

  it("encodes every application as its fields in order, each readable back from its length prefix", () => {
    fc.assert(
      fc.property(applications, (payload) => {
        expect(decodeFields(encodeApplicationPayload(payload))).to.deep.equal(applicationFieldList(payload));
      }),
    );
  });

  it("gives different applications different encodings (injective), and equal ones equal hashes", () => {
    fc.assert(
      fc.property(applications, applications, (a, b) => {
        const sameFields = JSON.stringify(applicationFieldList(a)) === JSON.stringify(applicationFieldList(b));
        expect(encodeApplicationPayload(a) === encodeApplicationPayload(b)).to.equal(sameFields);
      }),
    );
    // Adversarial neighbours that a naive concatenation would confuse.
    const base: ApplicationPayload = { owner_wallet: WALLET, display_name: "a", slug: "b", fee_recipient: WALLET, requested_max_fee_bps: 1 };
    const hashes = [
      base,
      { ...base, display_name: "a\nslug=1:b", slug: "" },
      { ...base, contact_email: "none" },
      { ...base, contact_email: "" },
      { ...base, display_name: "ab", slug: "" },
    ].map(applicationPayloadHash);
    expect(new Set(hashes).size).to.equal(hashes.length);
  });

  it("encodes key and revoke payloads field by field, and ignores the letter case of addresses", () => {
    fc.assert(
      fc.property(fc.option(integer, { nil: undefined }), wallet, integer, text, integer, (chainId, owner, integratorId, label, keyId) => {
        expect(decodeFields(encodeApiKeyPayload({ chain_id: chainId, owner_wallet: owner, integrator_id: integratorId, label }))).to.deep.equal([
          ["action", "create_integrator_api_key"],
          ["chain_id", optional(chainId?.toString())],
          ["owner_wallet", lower(owner)],
          ["integrator_id", integratorId.toString()],
          ["label", label],
        ]);
        expect(decodeFields(encodeRevokeApiKeyPayload({ owner_wallet: owner, integrator_id: integratorId, key_id: keyId }))).to.deep.equal([
          ["owner_wallet", lower(owner)],
          ["integrator_id", integratorId.toString()],
          ["key_id", keyId.toString()],
        ]);
        const lowered = lower(owner) as Address;
        expect(revokeApiKeyPayloadHash({ owner_wallet: lowered, integrator_id: integratorId, key_id: keyId })).to.equal(
          revokeApiKeyPayloadHash({ owner_wallet: owner, integrator_id: integratorId, key_id: keyId }),
        );
      }),
    );
  });

  it("treats null like an absent optional field, so a JSON body hashes as it is", () => {
    const base = { owner_wallet: WALLET, display_name: "a", slug: "abc", fee_recipient: WALLET, requested_max_fee_bps: 1 } as const;
    expect(applicationPayloadHash({ ...base, contact_email: null, chain_id: null })).to.equal(applicationPayloadHash(base));
  });

  it("refuses values the encoding cannot carry faithfully with a PayloadFieldError naming the field", () => {
    const base = { owner_wallet: WALLET, integrator_id: 1, label: "x" } as const;
    expect(() => apiKeyPayloadHash({ ...base, integrator_id: 1.5 })).to.throw(PayloadFieldError, /integrator_id must be an integer/);
    expect(() => apiKeyPayloadHash({ ...base, integrator_id: Number.MAX_SAFE_INTEGER + 1 })).to.throw(PayloadFieldError);
    expect(() => apiKeyPayloadHash({ ...base, owner_wallet: "0x1234" })).to.throw(PayloadFieldError, /owner_wallet must be a 20-byte hex wallet address/);
    expect(() => apiKeyPayloadHash({ ...base, label: "\ud800" })).to.throw(PayloadFieldError, /label must be well-formed Unicode/);
  });
});

describe("sdk onboarding slugs", () => {
  it("accepts exactly 3-64 characters of lowercase letters, digits and hyphens", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (candidate) => {
        const allowed = [...candidate].every((char) => /[a-z0-9-]/.test(char));
        expect(isValidSlug(candidate)).to.equal(allowed && candidate.length >= 3 && candidate.length <= 64);
      }),
    );
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z0-9-]{3,64}$/), (slug) => {
        expect(isValidSlug(slug)).to.equal(true);
      }),
    );
  });
});

describe("sdk onboarding messages", () => {
  const parameters = {
    domain: "localhost:8080",
    uri: "http://localhost:8080",
    wallet: WALLET,
    chainId: 4663,
    action: "revoke_integrator_api_key",
    payloadHash: `0x${"12".repeat(32)}`,
    nonce: "a1b2c3d4e5f6a7b8",
    issuedAt: new Date("2026-01-01T00:00:00.000Z"),
    expirationTime: new Date("2026-01-01T00:10:00.000Z"),
  } as const;

  it("reads back the action, payload hash and times it was built with", () => {
    expect(parseOnboardingMessage(createOnboardingMessage(parameters))).to.deep.equal(parameters);
    const view = { ...parameters, action: "view_integrator_profile", payloadHash: undefined } as const;
    expect(parseOnboardingMessage(createOnboardingMessage(view))).to.deep.equal(view);
  });

  it("refuses a message whose statement and resources disagree", () => {
    const message = createOnboardingMessage(parameters).replace("authorize revoke_integrator_api_key", "authorize view_integrator_profile");
    expect(() => parseOnboardingMessage(message)).to.throw(OnboardingMessageError, /statement does not match/);
    expect(() => parseOnboardingMessage("hello")).to.throw(OnboardingMessageError);
  });
});
