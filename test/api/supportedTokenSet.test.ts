import { expect } from "chai";
import fc from "fast-check";
import { getAddress, type Address } from "viem";
import { uniswapV2Venue, type DeploymentManifest, type ManifestPool } from "../../sdk";
import type { TokenOverride } from "../../api/store/store";
import { ChainSupportedTokens, NATIVE_PLACEHOLDER } from "../../api/tokens/chainSupportedTokens";
import { buildTokenSnapshot } from "../../api/tokens/tokenSnapshot";
import { ifNoneMatchMatches } from "../../api/services/entityTagMatch";

const address = (n: number) => getAddress(`0x${n.toString(16).padStart(40, "0")}`);
const lower = (n: number) => address(n).toLowerCase() as Address;
const pool = (n: number, a: number, b: number): ManifestPool => {
  const [token0, token1] = lower(a) < lower(b) ? [address(a), address(b)] : [address(b), address(a)];
  return { address: address(n), token0, token1, type: "uniswap-v2", source: "uniswap-v2", feeBps: 30 };
};

// WETH = 1, USDC = 2, LINK = 3; pools WETH/USDC and LINK/WETH.
const manifest: DeploymentManifest = {
  chainId: 4663,
  deployBlock: 0,
  deployBlockHash: `0x${"00".repeat(32)}`,
  contracts: {
    routerRegistry: address(900),
    permit2: address(901),
    weth: address(1),
    uniswapV2Factory: address(902),
    allowanceHolder: address(903),
    takerSwapRouter: address(904),
    gaslessSwapRouter: address(905),
  },
  venues: [uniswapV2Venue(address(902), 0)],
  tokens: [
    { symbol: "WETH", name: "Wrapped Ether", address: address(1), decimals: 18 },
    { symbol: "USDC", name: "USD Coin", address: address(2), decimals: 6 },
    { symbol: "LINK", name: "Chainlink", address: address(3), decimals: 18 },
  ],
  pools: [pool(501, 1, 2), pool(502, 3, 1)],
};

/** The manifest's chain run: decisions carry it to apply. */
const RUN = manifest.deployBlockHash;

function override(n: number, status: TokenOverride["status"], symbol = `T${n}`): TokenOverride {
  const at = new Date(0);
  return status === "disabled"
    ? { chainId: 4663, token: lower(n), status, source: "operator", symbol: undefined, decimals: undefined, pool: undefined, reason: undefined, chainRun: RUN, createdAt: at, updatedAt: at }
    : { chainId: 4663, token: lower(n), status, source: status === "promoted" ? "demand" : "operator", symbol, decimals: 8, pool: pool(600 + n, n, 1), reason: undefined, chainRun: RUN, createdAt: at, updatedAt: at };
}

describe("supported-token set of a chain", () => {
  it("ignores decisions made on another run of the chain (a restarted devnet): their tokens and pools do not apply", () => {
    const stale = [{ ...override(7, "promoted"), chainRun: `0x${"01".repeat(32)}` as const }, { ...override(2, "disabled"), chainRun: undefined }];
    const tokens = new ChainSupportedTokens(4663, manifest, stale);
    expect(tokens.resolve(lower(7))).to.equal(undefined);
    expect(tokens.resolve("USDC")?.address).to.equal(lower(2));
    expect(tokens.pools()).to.deep.equal(manifest.pools);
    expect(tokens.applyOverrides([override(7, "promoted")]), "the same decision on this run applies").to.equal(true);
    expect(tokens.resolve(lower(7))?.symbol).to.equal("T7");
  });

  it("holds the native placeholder and the manifest tokens; symbols resolve in any case, ETH to the placeholder and WETH to its own token", () => {
    const tokens = new ChainSupportedTokens(4663, manifest);
    expect(tokens.snapshot().addresses).to.deep.equal([lower(1), lower(2), lower(3), NATIVE_PLACEHOLDER]);
    expect(NATIVE_PLACEHOLDER).to.equal(`0x${"e".repeat(40)}`);
    expect(tokens.resolve("eth")).to.deep.equal({ address: NATIVE_PLACEHOLDER, symbol: "ETH", decimals: 18 });
    expect(tokens.resolve("0xEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEE")?.symbol).to.equal("ETH");
    expect(tokens.resolve("WETH")?.address).to.equal(lower(1));
    expect(tokens.resolve("uSdC")).to.deep.equal({ address: lower(2), symbol: "USDC", decimals: 6 });
    expect(tokens.resolve(address(3))?.symbol).to.equal("LINK");
    expect(tokens.resolve(lower(77))).to.equal(undefined);
    expect(tokens.resolve("DAI")).to.equal(undefined);
    expect(tokens.pools()).to.deep.equal(manifest.pools);
  });

  it("adds promoted and enabled tokens with their pools, and removes disabled ones with every pool that touches them", () => {
    const tokens = new ChainSupportedTokens(4663, manifest, [override(10, "promoted"), override(11, "enabled"), override(3, "disabled")]);
    expect(tokens.snapshot().addresses).to.deep.equal([lower(1), lower(2), lower(10), lower(11), NATIVE_PLACEHOLDER]);
    expect(tokens.resolve("t10")?.address).to.equal(lower(10));
    expect(tokens.resolve("LINK")).to.equal(undefined);
    expect(tokens.pools().map((candidate) => candidate.address)).to.deep.equal([address(501), address(610), address(611)]);
  });

  it("never disables the native placeholder, ignores other chains' decisions, and keeps manifest symbols and decimals", () => {
    const native = { ...override(0, "disabled"), token: NATIVE_PLACEHOLDER };
    const elsewhere = { ...override(2, "disabled"), chainId: 1 };
    const promotedManifest = { ...override(2, "promoted", "FAKE") };
    const tokens = new ChainSupportedTokens(4663, manifest, [native, elsewhere, promotedManifest]);
    expect(tokens.snapshot().snapshot_id).to.equal(new ChainSupportedTokens(4663, manifest).snapshot().snapshot_id);
    expect(tokens.resolve("USDC")).to.deep.equal({ address: lower(2), symbol: "USDC", decimals: 6 });
    expect(tokens.resolve("FAKE")).to.equal(undefined);
  });

  it("lets no added token capture a manifest symbol or a shared one; such tokens resolve by address only", () => {
    const tokens = new ChainSupportedTokens(4663, manifest, [
      override(10, "promoted", "usdc"),
      override(11, "promoted", "DUP"),
      override(12, "enabled", "dup"),
      override(13, "promoted", lower(2)),
    ]);
    expect(tokens.resolve("USDC")?.address).to.equal(lower(2));
    expect(tokens.resolve("DUP")).to.equal(undefined);
    expect(tokens.resolve(lower(11))?.symbol).to.equal("DUP");
    expect(tokens.resolve(lower(2))?.symbol).to.equal("USDC");
    expect(tokens.snapshot().count).to.equal(8);
  });

  it("keeps count = addresses.length, and replaces the snapshot (its id and ETag) exactly when the address list changes (property)", () => {
    const decision = fc.record({ token: fc.integer({ min: 1, max: 8 }), status: fc.constantFrom("promoted", "enabled", "disabled") as fc.Arbitrary<TokenOverride["status"]> });
    fc.assert(
      fc.property(fc.array(fc.array(decision, { maxLength: 6 }), { minLength: 1, maxLength: 8 }), (rounds) => {
        const tokens = new ChainSupportedTokens(4663, manifest);
        for (const round of rounds) {
          const unique = [...new Map(round.map((item) => [item.token, item])).values()];
          const before = tokens.snapshot();
          tokens.applyOverrides(unique.map((item) => override(item.token, item.status)));
          const after = tokens.snapshot();
          expect(after.count).to.equal(after.addresses.length);
          expect(after.addresses).to.include(NATIVE_PLACEHOLDER);
          const listChanged = before.addresses.join() !== after.addresses.join();
          expect(after !== before).to.equal(listChanged);
          expect(after.snapshot_id !== before.snapshot_id).to.equal(listChanged);
        }
      }),
    );
  });
});

describe("snapshot id", () => {
  it("is equal for two lists exactly when they hold the same addresses, whatever their order, case or repeats (property)", () => {
    const addresses = fc.array(fc.integer({ min: 0, max: 12 }), { maxLength: 10 });
    fc.assert(
      fc.property(addresses, addresses, fc.boolean(), (a, b, shout) => {
        const first = buildTokenSnapshot(4663, a.map((n) => (shout ? address(n) : lower(n))));
        const second = buildTokenSnapshot(4663, [...b].reverse().map(lower));
        const sameSet = new Set(a).size === new Set(b).size && a.every((n) => b.includes(n));
        expect(first.snapshot_id === second.snapshot_id).to.equal(sameSet);
        expect(first.count).to.equal(new Set(a).size);
      }),
    );
  });

  it("differs between chains for the same list", () => {
    expect(buildTokenSnapshot(1, [lower(1)]).snapshot_id).to.not.equal(buildTokenSnapshot(4663, [lower(1)]).snapshot_id);
  });
});

describe("If-None-Match", () => {
  const current = `W/"0x${"ab".repeat(32)}"`;
  const other = fc.stringMatching(/^0x[0-9a-f]{1,64}$/).filter((tag) => tag !== `0x${"ab".repeat(32)}`);
  const listed = (tag: string, weak: boolean, space: string) => `${space}${weak ? "W/" : ""}"${tag}"${space}`;

  it("matches a list exactly when one of its tags equals the current one by weak comparison (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(other, fc.boolean(), fc.constantFrom("", " ", "  ")), { maxLength: 5 }),
        fc.option(fc.tuple(fc.nat({ max: 5 }), fc.boolean())),
        (others, inserted) => {
          const parts = others.map(([tag, weak, space]) => listed(tag, weak, space));
          if (inserted !== null) parts.splice(Math.min(inserted[0], parts.length), 0, listed(`0x${"ab".repeat(32)}`, inserted[1], " "));
          expect(ifNoneMatchMatches(parts.join(","), current)).to.equal(inserted !== null);
        },
      ),
    );
  });

  it("matches * and nothing malformed", () => {
    expect(ifNoneMatchMatches("*", current)).to.equal(true);
    expect(ifNoneMatchMatches(" * ", current)).to.equal(true);
    expect(ifNoneMatchMatches(undefined, current)).to.equal(false);
    expect(ifNoneMatchMatches("", current)).to.equal(false);
    expect(ifNoneMatchMatches(`0x${"ab".repeat(32)}`, current), "unquoted").to.equal(false);
    expect(ifNoneMatchMatches(`W/"0x${"ab".repeat(31)}"`, current)).to.equal(false);
  });
});
