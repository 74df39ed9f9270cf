import type { EncodedJson } from "../services/cachedJsonResponse";
import { gzipSync } from "node:zlib";
import { keccak256, stringToBytes, type Address } from "viem";
import type { SupportedTokenEntry } from "./chainSupportedTokens";

/** Where a listed token comes from: the deployment manifest (and the native asset), an operator's enable, or demand. */
export type TokenListSource = "manifest" | "operator" | "promoted";
export type TokenListType = "stable" | "standard";

export type TokenListItem = Readonly<{ address: Address; symbol: string; name: string; decimals: number; source: TokenListSource; type: TokenListType }>;

/** The body of GET /tokens. */
export type TokenListBody = Readonly<{ chain_id: number; count: number; tokens: readonly TokenListItem[] }>;

export type EncodedTokenList = EncodedJson;

/**
 * Dollar stablecoins by symbol. Only manifest tokens are typed by it: a promoted token's symbol is
 * whatever its contract says, and a look-alike `USDC` must not be presented as stable.
 */
const STABLE_SYMBOLS = new Set(["USDC", "USDT", "DAI", "USDC.E", "USDBC", "FRAX", "LUSD", "PYUSD", "USDE", "GHO", "CRVUSD", "TUSD", "BUSD"]);

function itemOf(entry: SupportedTokenEntry): TokenListItem {
  const source: TokenListSource = entry.origin === "enabled" ? "operator" : entry.origin === "promoted" ? "promoted" : "manifest";
  const stable = source === "manifest" && STABLE_SYMBOLS.has(entry.symbol.toUpperCase());
  return { address: entry.address, symbol: entry.symbol, name: entry.name, decimals: entry.decimals, source, type: stable ? "stable" : "standard" };
}

// Keyed by the set's entries array, which ChainSupportedTokens replaces exactly when the set changes:
// each version is built, serialised and gzipped once.
const encodings = new WeakMap<readonly SupportedTokenEntry[], EncodedTokenList>();

/** The chain's token list as served, with a weak ETag over its bytes (equal lists, equal tags, in any process). */
export function encodedTokenList(chainId: number, entries: readonly SupportedTokenEntry[]): EncodedTokenList {
  let encoded = encodings.get(entries);
  if (encoded === undefined) {
    const tokens = entries.map(itemOf);
    const body: TokenListBody = { chain_id: chainId, count: tokens.length, tokens };
    const text = JSON.stringify(body);
    const json = Buffer.from(text, "utf8");
    encoded = Object.freeze({ etag: `W/"${keccak256(stringToBytes(`token-list:v1:${text}`))}"`, json, gzip: gzipSync(json, { level: 9 }) });
    encodings.set(entries, encoded);
  }
  return encoded;
}
