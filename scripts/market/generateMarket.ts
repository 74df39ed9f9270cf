/**
 * A seeded market generator for benchmarks: many DevTokens and real Uniswap V2 pairs (made by the
 * deployment's factory, funded, then `mint`ed, exactly as the devnet's own pools) around the
 * devnet's hubs, WETH and the stablecoins. Depths and prices are drawn log-uniformly. Pools are added
 * until the market holds a target count, so one chain grows through several sizes.
 *
 * Speed: every transaction is sent with automine off and an explicit gas limit, and large blocks
 * (200 pools each) are mined; addresses are computed ahead (CREATE for tokens, CREATE2 for pairs),
 * so no transaction waits for another's receipt. Nothing is faked with setCode or setStorageAt.
 */
import type { HardhatRuntimeEnvironment } from "hardhat/types";
import { encodeDeployData, encodeFunctionData, encodePacked, getContractAddress, getCreate2Address, keccak256, parseUnits, toHex, type Abi, type Address, type Hex } from "viem";
import { v2PoolsOf, type DeploymentManifest, type ManifestPool } from "../../sdk";
import { uniswapArtifacts, UNISWAP_V2_PAIR_INIT_CODE_HASH } from "../deploy/uniswapArtifacts";
import { WETH_USD_PRICE } from "../deploy/devnetMarket";

type MarketToken = { symbol: string; name: string; address: Address; decimals: number; usdPrice: number };

/** Reference prices of the devnet's own tokens (the hubs and the rest). */
const KNOWN_PRICES: Readonly<Record<string, number>> = { WETH: WETH_USD_PRICE, USDC: 1, USDT: 1, DAI: 1, WBTC: 60_000, LINK: 15 };
const STABLES = ["USDC", "USDT", "DAI"] as const;

/** mulberry32: a small seeded generator, so a seed gives the same market every run. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const logUniform = (random: () => number, low: number, high: number) => Math.exp(Math.log(low) + random() * (Math.log(high) - Math.log(low)));

export type MarketGenerator = Readonly<{
  /** Adds pools (and the tokens they need) until the market holds `count` pools. */
  growTo(count: number): Promise<void>;
  /** The manifest of the market's first `count` pools and the tokens they use. */
  manifest(count: number): DeploymentManifest;
  readonly poolCount: number;
}>;

/** Sends a transaction from `from` without waiting for it to be mined. */
async function send(hre: HardhatRuntimeEnvironment, from: Address, to: Address | undefined, data: Hex, gas: bigint): Promise<Hex> {
  return (await hre.network.provider.request({ method: "eth_sendTransaction", params: [{ from, ...(to ? { to } : {}), data, gas: toHex(gas) }] })) as Hex;
}

/** Mines until `last` has a receipt; throws if it failed (every earlier one of the sender came before it). */
async function mineUntil(hre: HardhatRuntimeEnvironment, last: Hex): Promise<void> {
  for (;;) {
    await hre.network.provider.request({ method: "evm_mine" });
    const receipt = (await hre.network.provider.request({ method: "eth_getTransactionReceipt", params: [last] })) as { status: Hex } | null;
    if (receipt !== null) {
      if (receipt.status !== "0x1") {
        const sent = (await hre.network.provider.request({ method: "eth_getTransactionByHash", params: [last] })) as { to: Address | null; input: Hex; gas: Hex };
        throw new Error(`market generation: transaction ${last} to ${sent.to} (selector ${sent.input.slice(0, 10)}, gas ${BigInt(sent.gas)}) reverted`);
      }
      return;
    }
  }
}

/**
 * A generator over the deployed devnet (`base`: its manifest, deployed by `deployer`, who owns the
 * devnet's DevTokens). `devTokenArtifact` is the project's DevToken build.
 */
export async function marketGenerator(
  hre: HardhatRuntimeEnvironment,
  base: DeploymentManifest,
  deployer: Address,
  devTokenArtifact: { abi: Abi; bytecode: Hex },
  seed: number,
): Promise<MarketGenerator> {
  const random = seededRandom(seed);
  const tokens: MarketToken[] = base.tokens.map((token) => ({ ...token, usdPrice: KNOWN_PRICES[token.symbol] ?? 1 }));
  const bySymbol = (symbol: string) => tokens.find((token) => token.symbol === symbol)!;
  // A V2 market: the base manifest's V2 pools, then generated pairs.
  const pools: ManifestPool[] = v2PoolsOf(base);
  const pairKeys = new Set(pools.map((pool) => `${pool.token0.toLowerCase()}|${pool.token1.toLowerCase()}`));
  const factory = base.contracts.uniswapV2Factory;
  const weth = base.contracts.weth;
  const pairAbi = uniswapArtifacts.pair().abi;
  const wethAbi = uniswapArtifacts.weth9().abi;
  const factoryAbi = uniswapArtifacts.factory().abi;
  await hre.network.provider.request({ method: "hardhat_setBalance", params: [deployer, toHex(10n ** 30n)] });
  const pendingNonce = async () => BigInt((await hre.network.provider.request({ method: "eth_getTransactionCount", params: [deployer, "pending"] })) as Hex);
  let nonce = 0n;
  let last: Hex | undefined;
  const tx = async (to: Address | undefined, data: Hex, gas: bigint) => {
    last = await send(hre, deployer, to, data, gas);
    nonce++;
  };

  const newToken = async (): Promise<MarketToken> => {
    const index = tokens.length;
    const decimals = [6, 8, 18][Math.floor(random() * 3)]!;
    const symbol = `MKT${index}`;
    const address = getContractAddress({ from: deployer, nonce });
    await tx(undefined, encodeDeployData({ ...devTokenArtifact, args: [`Market token ${index}`, symbol, decimals, deployer] }), 3_000_000n);
    const token = { symbol, name: `Market token ${index}`, address, decimals, usdPrice: logUniform(random, 0.01, 1_000) };
    tokens.push(token);
    return token;
  };

  /** `usd` worth of a DevToken minted into the pair. */
  const fund = async (token: MarketToken, pair: Address, usd: number) => {
    const amount = parseUnits((usd / token.usdPrice).toFixed(Math.min(token.decimals, 8)), token.decimals);
    await tx(token.address, encodeFunctionData({ abi: devTokenArtifact.abi, functionName: "mint", args: [pair, amount] }), 120_000n);
  };

  const addPool = async (a: MarketToken, b: MarketToken) => {
    const [token0, token1] = a.address.toLowerCase() < b.address.toLowerCase() ? [a, b] : [b, a];
    const key = `${token0.address.toLowerCase()}|${token1.address.toLowerCase()}`;
    if (pairKeys.has(key)) return;
    pairKeys.add(key);
    const pair = getCreate2Address({ from: factory, salt: keccak256(encodePacked(["address", "address"], [token0.address, token1.address])), bytecodeHash: UNISWAP_V2_PAIR_INIT_CODE_HASH });
    await tx(factory, encodeFunctionData({ abi: factoryAbi, functionName: "createPair", args: [a.address, b.address] }), 3_500_000n);
    const usd = logUniform(random, 10_000, 1_000_000);
    for (const side of [token0, token1]) {
      if (side.address.toLowerCase() === weth.toLowerCase()) {
        const amount = parseUnits((usd / side.usdPrice).toFixed(8), 18);
        await tx(weth, encodeFunctionData({ abi: wethAbi, functionName: "transfer", args: [pair, amount] }), 100_000n);
      } else {
        await fund(side, pair, usd);
      }
    }
    await tx(pair, encodeFunctionData({ abi: pairAbi, functionName: "mint", args: [deployer] }), 400_000n);
    pools.push({ address: pair, token0: token0.address, token1: token1.address, type: "uniswap-v2", source: "uniswap-v2", feeBps: 30 });
  };

  // The deployer's WETH for every WETH side to come, wrapped once (a WETH side is at most $1M).
  const wrapped = { remaining: 0n };
  const ensureWeth = async (needed: bigint) => {
    if (wrapped.remaining >= needed) return;
    const value = 10n ** 26n;
    last = (await hre.network.provider.request({
      method: "eth_sendTransaction",
      params: [{ from: deployer, to: weth, data: encodeFunctionData({ abi: wethAbi, functionName: "deposit" }), value: toHex(value), gas: toHex(100_000n) }],
    })) as Hex;
    nonce++;
    wrapped.remaining += value;
  };

  await hre.network.provider.request({ method: "evm_setBlockGasLimit", params: [toHex(1n << 40n)] });
  return {
    get poolCount() {
      return pools.length;
    },
    async growTo(count: number) {
      if (pools.length >= count) return;
      // Others may have sent from the deployer since (the bench moves pools): CREATE addresses follow the nonce.
      nonce = await pendingNonce();
      await hre.network.provider.request({ method: "evm_setAutomine", params: [false] });
      try {
        let mined = pools.length;
        while (pools.length < count) {
          // Blocks stay under the node's size limit (8 MiB of RLP on Hardhat): a block every 200 pools.
          if (pools.length - mined >= 200 && last !== undefined) {
            await mineUntil(hre, last);
            mined = pools.length;
          }
          const leaf = await newToken();
          await ensureWeth(parseUnits("1000", 18));
          wrapped.remaining -= parseUnits("1000", 18);
          await addPool(leaf, bySymbol("WETH"));
          if (pools.length < count && random() < 0.6) await addPool(leaf, bySymbol(STABLES[Math.floor(random() * STABLES.length)]!));
          const leaves = tokens.filter((token) => token.symbol.startsWith("MKT") && token !== leaf);
          if (pools.length < count && leaves.length > 0 && random() < 0.15) await addPool(leaf, leaves[Math.floor(random() * leaves.length)]!);
        }
        if (last !== undefined) await mineUntil(hre, last);
      } finally {
        await hre.network.provider.request({ method: "evm_setAutomine", params: [true] });
      }
    },
    manifest(count: number): DeploymentManifest {
      const chosen = pools.slice(0, count);
      const used = new Set(chosen.flatMap((pool) => [pool.token0.toLowerCase(), pool.token1.toLowerCase()]));
      const listed = tokens
        .filter((token) => base.tokens.some((known) => known.address === token.address) || used.has(token.address.toLowerCase()))
        .map(({ symbol, name, address, decimals }) => ({ symbol, name, address, decimals }));
      return { ...base, tokens: listed, pools: chosen };
    },
  };
}
