import { isAddress, type Address } from "viem";
import { NATIVE_TOKEN_LOWERCASE, isManifestV2Pool, type DeploymentManifest, type ManifestPool, type ManifestVenuePool } from "../../sdk";
import type { TokenOverride } from "../store/store";
import { isHexAddress } from "../services/checksummedAddress";
import type { SupportedToken, SupportedTokens, TokenSnapshotBody } from "./supportedTokens";
import { buildTokenSnapshot } from "./tokenSnapshot";
import type { TransferTax } from "./transferTax";

/** The native-asset placeholder as the snapshot lists it (lowercase). */
export const NATIVE_PLACEHOLDER = NATIVE_TOKEN_LOWERCASE;

const NATIVE: SupportedToken = Object.freeze({ address: NATIVE_PLACEHOLDER, symbol: "ETH", decimals: 18 });
const NATIVE_NAME = "Ether";

/** Why a token is in the set. */
export type SupportedTokenOrigin = "native" | "manifest" | "promoted" | "enabled";

/**
 * `name`: the manifest's; an added token's symbol (its name is not recorded). `tax`: the transfer
 * taxes stored with a promoted or enabled token's decision (manifest tokens' are measured by TokenTaxes).
 */
export type SupportedTokenEntry = SupportedToken & Readonly<{ origin: SupportedTokenOrigin; name: string; tax?: TransferTax }>;

type TokenSetState = Readonly<{
  /** What the state was built from; an equal key means nothing to rebuild. */
  key: string;
  entries: readonly SupportedTokenEntry[];
  byAddress: ReadonlyMap<string, SupportedTokenEntry>;
  bySymbol: ReadonlyMap<string, SupportedTokenEntry>;
  pools: readonly ManifestPool[];
  venuePools: readonly ManifestVenuePool[];
  disabled: readonly Address[];
  snapshot: TokenSnapshotBody;
}>;

/**
 * One chain's supported set, held in memory and swapped atomically: the native placeholder ("ETH"),
 * the manifest's tokens, and tokens promoted by demand or enabled by the operator, minus those the
 * operator disabled.
 *
 * Rules where the spec is silent:
 * - the native placeholder and WETH cannot be disabled (a stored decision to do so is ignored);
 * - a manifest token can be disabled by the operator (an explicit, logged decision); promoting or
 *   enabling a manifest token changes nothing, and its manifest symbol and decimals stay;
 * - symbols resolve case-insensitively; "ETH" is the native placeholder and WETH its own token;
 *   manifest symbols win over promoted ones, and a symbol two added tokens share resolves to neither
 *   (their addresses still do), so a look-alike token cannot capture a name;
 * - `pools()` (the V2 pools) and `venuePools()` (every venue's) list only pools whose two tokens are
 *   both in the set, so a disabled token is not used as an intermediate hop either;
 * - only decisions made on this chain run (the manifest's deploy block hash) apply.
 */
export class ChainSupportedTokens implements SupportedTokens {
  #state: TokenSetState;

  constructor(
    readonly chainId: number,
    readonly manifest: DeploymentManifest,
    overrides: readonly TokenOverride[] = [],
  ) {
    this.#state = buildState(chainId, manifest, overrides, undefined);
  }

  resolve(value: string): SupportedToken | undefined {
    const state = this.#state;
    const entry = isHexAddress(value) ? state.byAddress.get(value.toLowerCase()) : state.bySymbol.get(value.toUpperCase());
    return entry && { address: entry.address, symbol: entry.symbol, decimals: entry.decimals };
  }

  snapshot(): TokenSnapshotBody {
    return this.#state.snapshot;
  }

  pools(): readonly ManifestPool[] {
    return this.#state.pools;
  }

  /** The pools of every venue (V2 ones first, as in the manifest, then added tokens' V2 pools). */
  venuePools(): readonly ManifestVenuePool[] {
    return this.#state.venuePools;
  }

  /** Symbols of manifest tokens the operator disabled; logged so a shrunken manifest set is never silent. */
  disabledManifestSymbols(): string[] {
    return this.manifest.tokens.filter((token) => !this.#state.byAddress.has(token.address.toLowerCase())).map((token) => token.symbol);
  }

  /** Lowercase addresses this run's decisions disabled (manifest tokens among them); the native placeholder and WETH never. */
  disabledAddresses(): readonly Address[] {
    return this.#state.disabled;
  }

  /** Every supported token with why it is there, sorted by address. */
  entries(): readonly SupportedTokenEntry[] {
    return this.#state.entries;
  }

  /** The supported token at `address` (any case) with why it is there, if any. */
  entry(address: string): SupportedTokenEntry | undefined {
    return this.#state.byAddress.get(address.toLowerCase());
  }

  /**
   * Rebuilds the set from the stored decisions (those of other chains and chain runs are ignored). Returns whether
   * the set or its pools changed. The snapshot object, and with it the ETag and the cached encodings,
   * is replaced only when the address list changed.
   */
  applyOverrides(overrides: readonly TokenOverride[]): boolean {
    const next = buildState(this.chainId, this.manifest, overrides, this.#state);
    if (next === this.#state) return false;
    this.#state = next;
    return true;
  }
}

function buildState(chainId: number, manifest: DeploymentManifest, overrides: readonly TokenOverride[], previous: TokenSetState | undefined): TokenSetState {
  // Decisions of another run of this chain id (a restarted devnet) name tokens and pools that may not exist here.
  const run = manifest.deployBlockHash.toLowerCase();
  const relevant = overrides
    .filter((override) => override.chainId === chainId && override.chainRun?.toLowerCase() === run)
    .map((override) => ({ ...override, token: override.token.toLowerCase() as Address }))
    .sort((a, b) => (a.token < b.token ? -1 : a.token > b.token ? 1 : 0));
  const key = JSON.stringify(
    relevant.map((override) => [
      override.token,
      override.status,
      override.symbol,
      override.decimals,
      override.pool?.address,
      override.pool?.feeBps,
      override.tax?.buyTaxBps,
      override.tax?.sellTaxBps,
      override.tax?.transferTaxBps,
    ]),
  );
  if (previous !== undefined && previous.key === key) return previous;

  const byAddress = new Map<string, SupportedTokenEntry>([[NATIVE_PLACEHOLDER, { ...NATIVE, origin: "native", name: NATIVE_NAME }]]);
  for (const token of manifest.tokens) {
    const address = token.address.toLowerCase() as Address;
    byAddress.set(address, { address, symbol: token.symbol, name: token.name, decimals: token.decimals, origin: "manifest" });
  }
  // A native route wraps or unwraps through WETH unless a native V4 pool pays more, so like the placeholder it cannot be disabled.
  const undisablable = new Set<string>([NATIVE_PLACEHOLDER, manifest.contracts.weth.toLowerCase()]);
  const extraPools: ManifestPool[] = [];
  const disabled: Address[] = [];
  for (const override of relevant) {
    if (override.status === "disabled") {
      if (!undisablable.has(override.token)) {
        byAddress.delete(override.token);
        disabled.push(override.token);
      }
      continue;
    }
    const known = byAddress.get(override.token);
    if (known?.origin === "manifest" || known?.origin === "native") continue;
    if (override.symbol === undefined || override.decimals === undefined || override.pool === undefined) continue;
    const entry: SupportedTokenEntry = { address: override.token, symbol: override.symbol, name: override.symbol, decimals: override.decimals, origin: override.status };
    byAddress.set(override.token, override.tax === undefined ? entry : { ...entry, tax: override.tax });
    extraPools.push(override.pool);
  }

  const entries = [...byAddress.values()].sort((a, b) => (a.address < b.address ? -1 : 1));
  const bySymbol = symbolIndex(entries);
  const venuePools = dedupePools([...manifest.pools, ...extraPools]).filter(
    (pool) => byAddress.has(pool.token0.toLowerCase()) && byAddress.has(pool.token1.toLowerCase()),
  );
  const pools = venuePools.filter(isManifestV2Pool);
  const addresses = entries.map((entry) => entry.address);
  const snapshot =
    previous !== undefined && sameList(previous.snapshot.addresses, addresses) ? previous.snapshot : buildTokenSnapshot(chainId, addresses);
  return Object.freeze({ key, entries: Object.freeze(entries), byAddress, bySymbol, pools: Object.freeze(pools), venuePools: Object.freeze(venuePools), disabled: Object.freeze(disabled), snapshot });
}

/** Native and manifest symbols first; an added token's symbol only when it is free and unshared. */
function symbolIndex(entries: readonly SupportedTokenEntry[]): Map<string, SupportedTokenEntry> {
  const index = new Map<string, SupportedTokenEntry>();
  for (const entry of entries) {
    if (entry.origin === "native" || entry.origin === "manifest") index.set(entry.symbol.toUpperCase(), entry);
  }
  const added = new Map<string, SupportedTokenEntry[]>();
  for (const entry of entries) {
    if (entry.origin !== "promoted" && entry.origin !== "enabled") continue;
    const symbol = entry.symbol.toUpperCase();
    if (index.has(symbol) || isAddress(entry.symbol, { strict: false })) continue;
    added.set(symbol, [...(added.get(symbol) ?? []), entry]);
  }
  for (const [symbol, claimants] of added) {
    if (claimants.length === 1) index.set(symbol, claimants[0]!);
  }
  return index;
}

function dedupePools(pools: readonly ManifestVenuePool[]): ManifestVenuePool[] {
  const seen = new Map<string, ManifestVenuePool>();
  for (const pool of pools) {
    const key = pool.address.toLowerCase();
    if (!seen.has(key)) seen.set(key, pool);
  }
  return [...seen.values()];
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((value, index) => value === b[index]);
}
