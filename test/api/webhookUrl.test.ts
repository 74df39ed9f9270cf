import { expect } from "chai";
import fc from "fast-check";
import { ApiError } from "../../sdk/server/apiError";
import { checkWebhookUrl } from "../../api/services/webhookUrl";

function refusal(url: string, allowLoopback: boolean): string | undefined {
  try {
    checkWebhookUrl(url, allowLoopback);
    return undefined;
  } catch (error) {
    if (error instanceof ApiError) return error.code;
    throw error;
  }
}

describe("webhook URL registration (the address policy of finding 5)", () => {
  // The third audit's list: each reached an internal address and was accepted in production mode.
  const audited = [
    "https://localhost./hooks",
    "https://LOCALHOST../hooks",
    "https://api.localhost./hooks",
    "https://[fe90::1]/hooks",
    "https://[febf:ffff::1]/hooks",
    "https://[64:ff9b::a9fe:a9fe]/hooks",
    "https://[::a9fe:a9fe]/hooks",
    "https://[::127.0.0.1]/hooks",
    "https://[::ffff:169.254.169.254]/hooks",
    "https://198.18.0.1/hooks",
    "https://198.19.255.254/hooks",
    "https://224.0.0.251/hooks",
    "https://[ff02::1]/hooks",
    "https://255.255.255.255/hooks",
    "https://0.0.0.0/hooks",
    "https://[::]/hooks",
    "https://169.254.169.254/latest",
    "https://10.1.2.3/hooks",
    "https://[fd00::1]/hooks",
    "https://100.64.0.1/hooks",
    "https://127.0.0.1/hooks",
    "https://[::1]/hooks",
  ];

  it("refuses every address the audit listed in production mode, with webhook_url_internal", () => {
    for (const url of audited) expect(refusal(url, false), url).to.equal("webhook_url_internal");
  });

  it("accepts a public name (resolved and checked again at each delivery) and a global unicast address, including NAT64 of a public IPv4 address", () => {
    for (const url of ["https://hooks.example.com/a", "https://hooks.example.com./a", "https://8.8.8.8/a", "https://[2606:4700::1111]/a", "https://[64:ff9b::808:808]/a"]) {
      expect(refusal(url, false), url).to.equal(undefined);
    }
  });

  it("keeps the development allowance for loopback receivers, plain http included, and nothing else internal", () => {
    for (const url of ["http://127.0.0.1:9000/h", "http://localhost:9000/h", "http://localhost.:9000/h", "http://[::1]:9000/h"]) expect(refusal(url, true), url).to.equal(undefined);
    expect(refusal("http://localhost:9000/h", false)).to.equal("webhook_url_not_https");
    expect(refusal("https://10.0.0.1/h", true)).to.equal("webhook_url_internal");
    expect(refusal("http://10.0.0.1/h", true)).to.equal("webhook_url_not_https");
  });

  it("refuses any IPv4 address outside global unicast, whether written as IPv4, IPv4-mapped, IPv4-compatible or NAT64", () => {
    const internalIPv4 = fc.oneof(
      fc.tuple(fc.constant(10), fc.nat(255), fc.nat(255), fc.nat(255)),
      fc.tuple(fc.constant(127), fc.nat(255), fc.nat(255), fc.nat(255)),
      fc.tuple(fc.constant(169), fc.constant(254), fc.nat(255), fc.nat(255)),
      fc.tuple(fc.constant(192), fc.constant(168), fc.nat(255), fc.nat(255)),
      fc.tuple(fc.constant(198), fc.integer({ min: 18, max: 19 }), fc.nat(255), fc.nat(255)),
      fc.tuple(fc.integer({ min: 224, max: 255 }), fc.nat(255), fc.nat(255), fc.nat(255)),
    );
    const hex = (a: number, b: number) => ((a << 8) | b).toString(16);
    fc.assert(
      fc.property(internalIPv4, fc.integer({ min: 0, max: 3 }), ([a, b, c, d], form) => {
        const host = [`${a}.${b}.${c}.${d}`, `[::ffff:${a}.${b}.${c}.${d}]`, `[::${hex(a, b)}:${hex(c, d)}]`, `[64:ff9b::${hex(a, b)}:${hex(c, d)}]`][form]!;
        expect(refusal(`https://${host}/h`, false), host).to.equal("webhook_url_internal");
      }),
    );
  });
});
