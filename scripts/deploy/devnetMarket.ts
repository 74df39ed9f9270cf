/**
 * The devnet's market: test tokens with realistic decimals, reference prices, and the pools seeded at
 * those prices. LINK trades only against WETH, so LINK↔stablecoin routes must be multi-hop.
 */
export type TokenSpec = { symbol: string; name: string; decimals: number; usdPrice: number };

export const DEV_TOKENS: readonly TokenSpec[] = [
  { symbol: "USDC", name: "USD Coin (devnet)", decimals: 6, usdPrice: 1 },
  { symbol: "USDT", name: "Tether USD (devnet)", decimals: 6, usdPrice: 1 },
  { symbol: "DAI", name: "Dai Stablecoin (devnet)", decimals: 18, usdPrice: 1 },
  { symbol: "WBTC", name: "Wrapped BTC (devnet)", decimals: 8, usdPrice: 60_000 },
  { symbol: "LINK", name: "Chainlink Token (devnet)", decimals: 18, usdPrice: 15 },
];

/** WETH's reference price; WETH itself is Uniswap's WETH9. */
export const WETH_USD_PRICE = 3_000;

/** Each pool is seeded with `usdPerSide` worth of both tokens. */
export type PoolSpec = { a: string; b: string; usdPerSide: number };

export const DEV_POOLS: readonly PoolSpec[] = [
  { a: "WETH", b: "USDC", usdPerSide: 3_000_000 },
  { a: "WETH", b: "USDT", usdPerSide: 1_500_000 },
  { a: "WETH", b: "DAI", usdPerSide: 1_500_000 },
  { a: "WBTC", b: "WETH", usdPerSide: 3_000_000 },
  { a: "WBTC", b: "USDC", usdPerSide: 1_200_000 },
  { a: "USDC", b: "USDT", usdPerSide: 1_000_000 },
  { a: "USDC", b: "DAI", usdPerSide: 1_000_000 },
  { a: "LINK", b: "WETH", usdPerSide: 600_000 },
];

/** What each funded development account receives of each token, in whole tokens. */
export const DEV_ACCOUNT_GRANTS: Readonly<Record<string, number>> = {
  USDC: 1_000_000,
  USDT: 1_000_000,
  DAI: 1_000_000,
  WBTC: 20,
  LINK: 50_000,
};

/** How many of the funded accounts receive token grants. */
export const GRANTED_ACCOUNTS = 10;

/**
 * The devnet's one token that taxes its transfers (a TaxedDevToken): a share of every buy, sell and
 * other transfer is burned, as fee-on-transfer tokens do. It trades only against WETH, and is deployed
 * after everything else, so the other contracts keep their addresses (see deployTaxedToken).
 */
export const TAXED_DEV_TOKEN = {
  symbol: "TAXD",
  name: "Taxed Token (devnet)",
  decimals: 18,
  usdPrice: 1,
  buyTaxBps: 300,
  sellTaxBps: 500,
  transferTaxBps: 100,
  /** Its WETH pool holds this much USD on each side. */
  usdPerSide: 300_000,
} as const;
