import type { HardhatRuntimeEnvironment } from "hardhat/types";
import { getAddress, type Address } from "viem";
import { propAmmPriceFromDecimal } from "../../sdk/amm/propAmmPrice";
import type { DeploymentManifest, ManifestPropAmm } from "../../sdk/chain/manifest";
import { propAmmAllowlistAbi } from "../../sdk/abis/propAmmAllowlistAbi";
import { fundAccount } from "./deployTestToken";
import type { DevWalletClient, HardhatClients } from "./hardhatClients";
import { writeAndWait } from "./writeAndWait";

/**
 * A reference propAMM of the devnet: its name (the source name of its legs), its configured token
 * order, its first price (whole token1 per whole token0) and spread, and its inventory in whole tokens.
 */
export type DevPropAmmSpec = Readonly<{
  name: string;
  token0: string;
  token1: string;
  price: string;
  spreadBps: number;
  inventory0: string;
  inventory1: string;
}>;

/**
 * The devnet's propAMM: WETH/USDC, priced a little off the V2 pool's 3,000 and with a tight spread,
 * holding less than the V2 pool, so that venue choice and splits across venues matter.
 */
export const DEVNET_PROPAMMS: readonly DevPropAmmSpec[] = [
  { name: "dev-propamm", token0: "WETH", token1: "USDC", price: "3001.5", spreadBps: 5, inventory0: "150", inventory1: "450000" },
];

type Market = Pick<DeploymentManifest, "contracts" | "tokens">;

/** Deploys the propAMM allowlist, managed by `registry`'s administrator. */
export async function deployPropAmmAllowlist(hre: HardhatRuntimeEnvironment, clients: HardhatClients, deployer: DevWalletClient, registry: Address): Promise<Address> {
  const allowlist = await hre.viem.deployContract("PropAmmAllowlist", [registry], { client: { public: clients.publicClient, wallet: deployer } });
  return getAddress(allowlist.address);
}

/**
 * Deploys a DevPropAmm operated by `deployer` at `spec`'s price, funds its inventory (DevTokens
 * minted, WETH wrapped) and allowlists it with its configured tokens. `deployer` must be the
 * registry's administrator (the devnet's deployer is).
 */
export async function deployDevPropAmm(
  hre: HardhatRuntimeEnvironment,
  clients: HardhatClients,
  deployer: DevWalletClient,
  market: Market,
  allowlist: Address,
  spec: DevPropAmmSpec,
): Promise<ManifestPropAmm> {
  const tokenOf = (symbol: string) => {
    const token = market.tokens.find((candidate) => candidate.symbol === symbol);
    if (token === undefined) throw new Error(`propAMM ${spec.name} names unknown token ${symbol}`);
    return token;
  };
  const [token0, token1] = [tokenOf(spec.token0), tokenOf(spec.token1)];
  const price = propAmmPriceFromDecimal(spec.price, token0.decimals, token1.decimals);
  const propAmm = await hre.viem.deployContract("DevPropAmm", [token0.address, token1.address, deployer.account.address, price, spec.spreadBps], {
    client: { public: clients.publicClient, wallet: deployer },
  });
  const address = getAddress(propAmm.address);
  await fundAccount(hre, clients, deployer, market, { account: address, token: token0.symbol, amount: spec.inventory0 });
  await fundAccount(hre, clients, deployer, market, { account: address, token: token1.symbol, amount: spec.inventory1 });
  await writeAndWait(clients, deployer, { address: allowlist, abi: propAmmAllowlistAbi, functionName: "add", args: [address, token0.address, token1.address] });
  return { name: spec.name, address, token0: token0.address, token1: token1.address };
}

/** Every propAMM of `specs` (default DEVNET_PROPAMMS), funded and put on `allowlist`. */
export async function deployPropAmms(
  hre: HardhatRuntimeEnvironment,
  clients: HardhatClients,
  deployer: DevWalletClient,
  market: Market,
  allowlist: Address,
  specs: readonly DevPropAmmSpec[] = DEVNET_PROPAMMS,
): Promise<ManifestPropAmm[]> {
  const propAmms: ManifestPropAmm[] = [];
  for (const spec of specs) propAmms.push(await deployDevPropAmm(hre, clients, deployer, market, allowlist, spec));
  return propAmms;
}
