import { erc20Abi, getAddress, hexToString, isAddressEqual, zeroAddress, type Address, type PublicClient } from "viem";
import { isNativeToken, propAmmAllowlistAbi, uniswapV2FactoryAbi, uniswapV2PairAbi, v2PoolsOf, type DeploymentManifest, type ManifestPool } from "../../sdk";
import { measureTransferTax, type TransferTax } from "./transferTax";

/** Uniswap V2's fixed fee, as the manifest records it. */
const UNISWAP_V2_FEE_BPS = 30;


/** Some early tokens (MKR-style) return their symbol as bytes32. */
const bytes32SymbolAbi = [{ type: "function", name: "symbol", stateMutability: "view", inputs: [], outputs: [{ name: "", type: "bytes32" }] }] as const;

export type TokenCheckParameters = Readonly<{
  client: PublicClient;
  manifest: DeploymentManifest;
  /** The candidate token. */
  token: Address;
  /** Tokens of the current set a pool may pair it with (ERC20s; WETH stands for the native asset). */
  bases: readonly Address[];
  /** Least value of the pool's known side, in WETH base units (wei). */
  minLiquidityWei: bigint;
}>;

export type TokenCheckResult =
  | Readonly<{ ok: true; symbol: string; decimals: number; pool: ManifestPool; liquidityWei: bigint; tax: TransferTax }>
  /** `unreadable`: the chain did not answer, which says nothing about the token (a recheck does not demote for it). */
  | Readonly<{ ok: false; reason: string; unreadable: boolean }>;

/**
 * Whether `token` can be routed: it is a contract, answers ERC20 `decimals()` and `symbol()`, and has
 * a Uniswap V2 pair (from the manifest's factory) with one of `bases` whose known side is worth at
 * least `minLiquidityWei` of WETH. The known side is valued at the spot price of the base's own
 * manifest pool against WETH (WETH itself at par); a base without such a pool cannot qualify.
 * Of several qualifying pairs the deepest is recorded, and the token's transfer taxes are measured
 * through it (`measureTransferTax`): a taxed token passes with its taxes, one whose transfers cannot
 * be simulated fails. Reads run concurrently, so a batching transport sends each stage as one
 * JSON-RPC batch.
 */
export async function checkTokenOnChain(parameters: TokenCheckParameters): Promise<TokenCheckResult> {
  const { client, manifest, token, bases, minLiquidityWei } = parameters;
  if (isNativeToken(token) || isAddressEqual(token, zeroAddress)) return fail("is the native placeholder or the zero address, not a token contract");

  let code: string | undefined;
  let decimals: number | undefined;
  let symbol: string | undefined;
  let isPropAmmPair: boolean;
  const allowlist = manifest.contracts.propAmmAllowlist;
  try {
    [code, decimals, symbol, isPropAmmPair] = await Promise.all([
      client.getCode({ address: token }),
      client.readContract({ address: token, abi: erc20Abi, functionName: "decimals" }).catch(() => undefined),
      readSymbol(client, token),
      allowlist === undefined ? false : client.readContract({ address: allowlist, abi: propAmmAllowlistAbi, functionName: "isPair", args: [token] }),
    ]);
  } catch (error) {
    return unreadable(`could not be read from the chain (${shortMessage(error)})`);
  }
  // The routers refuse an allowlisted pair as a token (SwapTokenIsPropAmm): it could never be routed.
  if (isPropAmmPair) return fail(`is allowlisted as a propAMM pair on ${allowlist}: the routers never move a pair as a token`);
  if (code === undefined || code === "0x") return fail("has no contract code");
  if (decimals === undefined) return fail("does not answer ERC20 decimals()");
  if (symbol === undefined) return fail("does not answer ERC20 symbol() with a usable text");

  const weth = manifest.contracts.weth;
  const candidates = bases.filter((base) => !isAddressEqual(base, token) && !isNativeToken(base));
  let pairs: Address[];
  try {
    pairs = await Promise.all(
      candidates.map((base) =>
        client.readContract({ address: manifest.contracts.uniswapV2Factory, abi: uniswapV2FactoryAbi, functionName: "getPair", args: [token, base] }),
      ),
    );
  } catch (error) {
    return unreadable(`pairs could not be read from the factory (${shortMessage(error)})`);
  }

  let best: { pool: ManifestPool; liquidityWei: bigint } | undefined;
  try {
    const valued = await Promise.all(
      candidates.map(async (base, index) => {
        const pair = pairs[index]!;
        if (isAddressEqual(pair, zeroAddress)) return undefined;
        const baseReserve = reserveOf(await pairReserves(client, pair), base);
        const liquidityWei = isAddressEqual(base, weth) ? baseReserve : await valueInWeth(client, manifest, base, baseReserve);
        if (liquidityWei === undefined) return undefined;
        const [token0, token1] = token.toLowerCase() < base.toLowerCase() ? [token, base] : [base, token];
        const pool: ManifestPool = { address: getAddress(pair), token0: getAddress(token0), token1: getAddress(token1), type: "uniswap-v2", source: "uniswap-v2", feeBps: UNISWAP_V2_FEE_BPS };
        return { pool, liquidityWei };
      }),
    );
    for (const candidate of valued) {
      if (candidate !== undefined && (best === undefined || candidate.liquidityWei > best.liquidityWei)) best = candidate;
    }
  } catch (error) {
    return unreadable(`pool reserves could not be read (${shortMessage(error)})`);
  }
  if (best === undefined) return fail("has no Uniswap V2 pool with a supported token that is priced against WETH");
  if (best.liquidityWei < minLiquidityWei) {
    return fail(`its deepest pool ${best.pool.address} holds ${best.liquidityWei} wei of WETH value on the known side, below the minimum ${minLiquidityWei}`);
  }
  const measured = await measureTransferTax(client, token, best.pool.address);
  if (!measured.ok) {
    const reason = `has a transfer tax that could not be measured: ${measured.reason}`;
    return measured.unreadable ? unreadable(reason) : fail(reason);
  }
  return { ok: true, symbol, decimals, pool: best.pool, liquidityWei: best.liquidityWei, tax: measured.tax };
}

async function readSymbol(client: PublicClient, token: Address): Promise<string | undefined> {
  const text = await client
    .readContract({ address: token, abi: erc20Abi, functionName: "symbol" })
    .catch(() =>
      client
        .readContract({ address: token, abi: bytes32SymbolAbi, functionName: "symbol" })
        .then((word) => hexToString(word, { size: 32 }).replace(/\0+$/, ""))
        .catch(() => undefined),
    );
  const symbol = text?.trim();
  // Shown to operators and matched as a quote alias: no control characters, no essays.
  return symbol !== undefined && symbol.length > 0 && symbol.length <= 64 && !/\p{Cc}/u.test(symbol) ? symbol : undefined;
}

type PairReserves = Readonly<{ token0: Address; reserve0: bigint; reserve1: bigint }>;

async function pairReserves(client: PublicClient, pair: Address): Promise<PairReserves> {
  const [[reserve0, reserve1], token0] = await Promise.all([
    client.readContract({ address: pair, abi: uniswapV2PairAbi, functionName: "getReserves" }),
    client.readContract({ address: pair, abi: uniswapV2PairAbi, functionName: "token0" }),
  ]);
  return { token0, reserve0, reserve1 };
}

/** The reserve of `token`, one of the pair's two tokens. */
function reserveOf(reserves: PairReserves, token: Address): bigint {
  return isAddressEqual(reserves.token0, token) ? reserves.reserve0 : reserves.reserve1;
}

/** `amount` of `base` in WETH wei at the spot price of the base's manifest pool with WETH; undefined without one. */
async function valueInWeth(client: PublicClient, manifest: DeploymentManifest, base: Address, amount: bigint): Promise<bigint | undefined> {
  const weth = manifest.contracts.weth;
  const reference = v2PoolsOf(manifest).find(
    (pool) => (isAddressEqual(pool.token0, base) && isAddressEqual(pool.token1, weth)) || (isAddressEqual(pool.token0, weth) && isAddressEqual(pool.token1, base)),
  );
  if (reference === undefined) return undefined;
  const reserves = await pairReserves(client, reference.address);
  const baseReserve = reserveOf(reserves, base);
  if (baseReserve === 0n) return undefined;
  return (amount * reserveOf(reserves, weth)) / baseReserve;
}

function fail(reason: string): TokenCheckResult {
  return { ok: false, reason, unreadable: false };
}

function unreadable(reason: string): TokenCheckResult {
  return { ok: false, reason, unreadable: true };
}

function shortMessage(error: unknown): string {
  if (error instanceof Error) return ("shortMessage" in error && typeof error.shortMessage === "string" ? error.shortMessage : error.message).split("\n")[0]!;
  return String(error);
}
