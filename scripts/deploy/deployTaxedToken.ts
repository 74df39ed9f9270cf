import type { HardhatRuntimeEnvironment } from "hardhat/types";
import { getAddress, parseUnits, type Address } from "viem";
import { TAXED_DEV_TOKEN, WETH_USD_PRICE } from "./devnetMarket";
import type { DeployedPool, DeployedToken } from "./deployLiquidity";
import { UNISWAP_V2_FEE_BPS } from "./deployLiquidity";
import type { DevWalletClient, HardhatClients } from "./hardhatClients";
import { uniswapArtifacts } from "./uniswapArtifacts";
import { writeAndWait } from "./writeAndWait";

export type TaxedTokenSpec = { -readonly [K in keyof typeof TAXED_DEV_TOKEN]: (typeof TAXED_DEV_TOKEN)[K] extends string ? string : number };

/**
 * The devnet's taxed token (TAXED_DEV_TOKEN) and its Uniswap V2 pool with WETH, seeded at its
 * reference price like the other pools (both sides sent to the pair, then `mint`; a mint is not
 * taxed). The token learns its pool, so transfers from it are buys and transfers to it sells.
 */
export async function deployTaxedToken(
  hre: HardhatRuntimeEnvironment,
  clients: HardhatClients,
  deployer: DevWalletClient,
  market: Readonly<{ weth: Address; uniswapV2Factory: Address }>,
  /** Another symbol or other taxes, for tests that need a second taxed token. */
  spec: TaxedTokenSpec = TAXED_DEV_TOKEN,
): Promise<{ token: DeployedToken; pool: DeployedPool }> {
  const client = { public: clients.publicClient, wallet: deployer };
  const token = await hre.viem.deployContract(
    "TaxedDevToken",
    [spec.name, spec.symbol, spec.decimals, deployer.account.address, BigInt(spec.buyTaxBps), BigInt(spec.sellTaxBps), BigInt(spec.transferTaxBps)],
    { client },
  );
  const address = getAddress(token.address);
  const factory = uniswapArtifacts.factory();
  const weth = uniswapArtifacts.weth9();
  await writeAndWait(clients, deployer, { address: market.uniswapV2Factory, abi: factory.abi, functionName: "createPair", args: [address, market.weth] });
  const pair = getAddress(
    (await clients.publicClient.readContract({ address: market.uniswapV2Factory, abi: factory.abi, functionName: "getPair", args: [address, market.weth] })) as Address,
  );
  await clients.publicClient.waitForTransactionReceipt({ hash: await token.write.setPool([pair]) });
  const wethAmount = parseUnits((spec.usdPerSide / WETH_USD_PRICE).toFixed(12), 18);
  await writeAndWait(clients, deployer, { address: market.weth, abi: weth.abi, functionName: "deposit", value: wethAmount });
  await writeAndWait(clients, deployer, { address: market.weth, abi: weth.abi, functionName: "transfer", args: [pair, wethAmount] });
  await clients.publicClient.waitForTransactionReceipt({ hash: await token.write.mint([pair, parseUnits(String(spec.usdPerSide / spec.usdPrice), spec.decimals)]) });
  await writeAndWait(clients, deployer, { address: pair, abi: uniswapArtifacts.pair().abi, functionName: "mint", args: [deployer.account.address] });
  const [token0, token1] = address.toLowerCase() < market.weth.toLowerCase() ? [address, getAddress(market.weth)] : [getAddress(market.weth), address];
  return {
    token: { symbol: spec.symbol, name: spec.name, address, decimals: spec.decimals },
    pool: { address: pair, token0, token1, type: "uniswap-v2", source: "uniswap-v2", feeBps: UNISWAP_V2_FEE_BPS },
  };
}
