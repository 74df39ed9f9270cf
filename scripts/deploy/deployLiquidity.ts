import type { HardhatRuntimeEnvironment } from "hardhat/types";
import { getAddress, parseUnits, type Address } from "viem";
import { DEV_ACCOUNT_GRANTS, DEV_POOLS, DEV_TOKENS, GRANTED_ACCOUNTS, WETH_USD_PRICE, type TokenSpec } from "./devnetMarket";
import type { ManifestPool } from "../../sdk/chain/manifest";
import type { DevWalletClient, HardhatClients } from "./hardhatClients";
import { uniswapArtifacts } from "./uniswapArtifacts";
import { deployBytecode, writeAndWait } from "./writeAndWait";

export type DeployedToken = { symbol: string; name: string; address: Address; decimals: number };
/** A V2 pool as the manifest lists it. */
export type DeployedPool = ManifestPool;

export type Liquidity = {
  weth: Address;
  uniswapV2Factory: Address;
  tokens: DeployedToken[];
  pools: DeployedPool[];
};

/** Uniswap V2's fixed pool fee (0.3 %). */
export const UNISWAP_V2_FEE_BPS = 30;

function amountFor(usd: number, usdPrice: number, decimals: number): bigint {
  return parseUnits((usd / usdPrice).toFixed(Math.min(decimals, 12)), decimals);
}

/**
 * Deploys WETH9 and the Uniswap V2 factory from their npm builds, the test tokens, and seeds every
 * pool of the devnet market at its reference prices. Development accounts receive token grants.
 */
export async function deployLiquidity(
  hre: HardhatRuntimeEnvironment,
  clients: HardhatClients,
  deployer: DevWalletClient,
): Promise<Liquidity> {
  const wethArtifact = uniswapArtifacts.weth9();
  const factoryArtifact = uniswapArtifacts.factory();
  const pairArtifact = uniswapArtifacts.pair();
  const weth = await deployBytecode(clients, deployer, wethArtifact);
  const factory = await deployBytecode(clients, deployer, factoryArtifact, [deployer.account.address]);

  const tokens: DeployedToken[] = [{ symbol: "WETH", name: "Wrapped Ether", address: getAddress(weth), decimals: 18 }];
  const specs = new Map<string, TokenSpec>([["WETH", { symbol: "WETH", name: "Wrapped Ether", decimals: 18, usdPrice: WETH_USD_PRICE }]]);
  for (const spec of DEV_TOKENS) {
    const token = await hre.viem.deployContract("DevToken", [spec.name, spec.symbol, spec.decimals, deployer.account.address], {
      client: { public: clients.publicClient, wallet: deployer },
    });
    tokens.push({ symbol: spec.symbol, name: spec.name, address: getAddress(token.address), decimals: spec.decimals });
    specs.set(spec.symbol, spec);
  }
  const addressOf = (symbol: string) => {
    const token = tokens.find((candidate) => candidate.symbol === symbol);
    if (!token) throw new Error(`devnet market names unknown token ${symbol}`);
    return token.address;
  };
  const devTokenAbi = (await hre.artifacts.readArtifact("DevToken")).abi;

  const wethNeeded = DEV_POOLS.filter((pool) => pool.a === "WETH" || pool.b === "WETH").reduce(
    (sum, pool) => sum + amountFor(pool.usdPerSide, WETH_USD_PRICE, 18),
    0n,
  );
  await writeAndWait(clients, deployer, { address: weth, abi: wethArtifact.abi, functionName: "deposit", value: wethNeeded });

  const pools: DeployedPool[] = [];
  for (const pool of DEV_POOLS) {
    const a = addressOf(pool.a);
    const b = addressOf(pool.b);
    await writeAndWait(clients, deployer, { address: factory, abi: factoryArtifact.abi, functionName: "createPair", args: [a, b] });
    const pair = (await clients.publicClient.readContract({
      address: factory,
      abi: factoryArtifact.abi,
      functionName: "getPair",
      args: [a, b],
    })) as Address;
    for (const symbol of [pool.a, pool.b]) {
      const spec = specs.get(symbol)!;
      const amount = amountFor(pool.usdPerSide, spec.usdPrice, spec.decimals);
      if (symbol === "WETH") {
        await writeAndWait(clients, deployer, { address: weth, abi: wethArtifact.abi, functionName: "transfer", args: [pair, amount] });
      } else {
        await writeAndWait(clients, deployer, { address: addressOf(symbol), abi: devTokenAbi, functionName: "mint", args: [pair, amount] });
      }
    }
    await writeAndWait(clients, deployer, { address: pair, abi: pairArtifact.abi, functionName: "mint", args: [deployer.account.address] });
    const [token0, token1] = a.toLowerCase() < b.toLowerCase() ? [a, b] : [b, a];
    pools.push({ address: getAddress(pair), token0, token1, type: "uniswap-v2", source: "uniswap-v2", feeBps: UNISWAP_V2_FEE_BPS });
  }

  for (const wallet of clients.walletClients.slice(0, GRANTED_ACCOUNTS)) {
    for (const [symbol, whole] of Object.entries(DEV_ACCOUNT_GRANTS)) {
      const spec = specs.get(symbol)!;
      await writeAndWait(clients, deployer, {
        address: addressOf(symbol),
        abi: devTokenAbi,
        functionName: "mint",
        args: [wallet.account.address, parseUnits(String(whole), spec.decimals)],
      });
    }
  }
  return { weth: getAddress(weth), uniswapV2Factory: getAddress(factory), tokens, pools };
}
