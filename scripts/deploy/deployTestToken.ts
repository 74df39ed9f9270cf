import type { HardhatRuntimeEnvironment } from "hardhat/types";
import { getAddress, parseUnits, type Address } from "viem";
import type { DeploymentManifest } from "../../sdk/chain/manifest";
import type { DevWalletClient, HardhatClients } from "./hardhatClients";
import { uniswapArtifacts } from "./uniswapArtifacts";
import { writeAndWait } from "./writeAndWait";

export type TestTokenOptions = Readonly<{
  symbol: string;
  decimals?: number;
  /** A pair with this manifest token (WETH or a stablecoin…), holding `amount` of it; none when absent. */
  pairWith?: Readonly<{ symbol: string; amount: string }>;
  /** Whole new tokens on the other side of the pair; default 1,000. */
  tokenAmount?: string;
}>;

export type TestToken = { address: Address; symbol: string; decimals: number; pair: Address | undefined };

/**
 * A token the manifest does not know, to try enabling and promotion: a fresh DevToken owned by
 * `deployer` and, when asked, a Uniswap V2 pair with a manifest token made through the manifest's
 * factory and seeded as the deploy flow seeds its pools (both tokens sent to the pair, then `mint`).
 * The deployer must own the manifest's DevTokens (it deployed them) to mint the base side.
 */
export async function deployTestToken(
  hre: HardhatRuntimeEnvironment,
  clients: HardhatClients,
  deployer: DevWalletClient,
  market: Pick<DeploymentManifest, "contracts" | "tokens">,
  options: TestTokenOptions,
): Promise<TestToken> {
  const decimals = options.decimals ?? 18;
  const client = { public: clients.publicClient, wallet: deployer };
  const token = await hre.viem.deployContract("DevToken", [`${options.symbol} (test)`, options.symbol, decimals, deployer.account.address], { client });
  const address = getAddress(token.address);
  const { pairWith } = options;
  if (pairWith === undefined) return { address, symbol: options.symbol, decimals, pair: undefined };

  const base = market.tokens.find((candidate) => candidate.symbol.toUpperCase() === pairWith.symbol.toUpperCase());
  if (base === undefined) throw new Error(`no manifest token ${pairWith.symbol} to pair with (known: ${market.tokens.map((candidate) => candidate.symbol).join(", ")})`);
  const factory = uniswapArtifacts.factory();
  const { contracts } = market;
  await writeAndWait(clients, deployer, { address: contracts.uniswapV2Factory, abi: factory.abi, functionName: "createPair", args: [address, base.address] });
  const pair = (await clients.publicClient.readContract({
    address: contracts.uniswapV2Factory,
    abi: factory.abi,
    functionName: "getPair",
    args: [address, base.address],
  })) as Address;
  await fundAccount(hre, clients, deployer, market, { account: pair, token: base.symbol, amount: pairWith.amount });
  await clients.publicClient.waitForTransactionReceipt({ hash: await token.write.mint([pair, parseUnits(options.tokenAmount ?? "1000", decimals)]) });
  await writeAndWait(clients, deployer, { address: pair, abi: uniswapArtifacts.pair().abi, functionName: "mint", args: [deployer.account.address] });
  return { address, symbol: options.symbol, decimals, pair: getAddress(pair) };
}

/**
 * Gives `account` `amount` whole units of a manifest token (by symbol or address) or of ETH: ETH is
 * sent from `deployer`, WETH deposited and transferred, DevTokens minted (the deployer owns them).
 */
export async function fundAccount(
  hre: HardhatRuntimeEnvironment,
  clients: HardhatClients,
  deployer: DevWalletClient,
  market: Pick<DeploymentManifest, "contracts" | "tokens">,
  request: Readonly<{ account: Address; token: string; amount: string }>,
): Promise<{ symbol: string; units: bigint }> {
  const wanted = request.token.toLowerCase();
  if (wanted === "eth") {
    const units = parseUnits(request.amount, 18);
    await clients.publicClient.waitForTransactionReceipt({ hash: await deployer.sendTransaction({ to: request.account, value: units }) });
    return { symbol: "ETH", units };
  }
  const token = market.tokens.find((candidate) => candidate.symbol.toLowerCase() === wanted || candidate.address.toLowerCase() === wanted);
  if (token === undefined) throw new Error(`no manifest token ${request.token} (known: ETH, ${market.tokens.map((candidate) => candidate.symbol).join(", ")})`);
  const units = parseUnits(request.amount, token.decimals);
  if (getAddress(token.address) === getAddress(market.contracts.weth)) {
    const weth = uniswapArtifacts.weth9();
    await writeAndWait(clients, deployer, { address: token.address, abi: weth.abi, functionName: "deposit", value: units });
    await writeAndWait(clients, deployer, { address: token.address, abi: weth.abi, functionName: "transfer", args: [request.account, units] });
  } else {
    const devToken = await hre.viem.getContractAt("DevToken", token.address, { client: { public: clients.publicClient, wallet: deployer } });
    await clients.publicClient.waitForTransactionReceipt({ hash: await devToken.write.mint([request.account, units]) });
  }
  return { symbol: token.symbol, units };
}
