import type { Address } from "viem";
import type { DevWalletClient, HardhatClients } from "./hardhatClients";
import { deployUniswapV3, type V3Deployment, type V3FeeTier } from "./uniswapV3";

/**
 * The devnet's concentrated-liquidity venues: Uniswap V3 itself, and a fork of it (same bytecode, so
 * the same pool init-code hash, but its own factory and fee tiers), so that routes choose between two
 * V3 venues as they do on chain 4663. A venue is configuration: a name, a factory, its pool init-code
 * hash and fee tiers.
 */
export type V3VenueSpec = Readonly<{ name: string; extraFeeTiers: readonly V3FeeTier[] }>;

export const DEVNET_V3_VENUES: readonly V3VenueSpec[] = [
  { name: "uniswap-v3", extraFeeTiers: [] },
  { name: "forkswap-v3", extraFeeTiers: [{ fee: 2500, tickSpacing: 50 }, { fee: 100, tickSpacing: 1 }] },
];

export type DevnetV3Venue = V3Deployment & Readonly<{ name: string }>;

/** Deploys each of the devnet's V3 venues (factory, position manager, QuoterV2), in DEVNET_V3_VENUES order. */
export async function deployDevnetV3Venues(clients: HardhatClients, deployer: DevWalletClient, weth: Address): Promise<DevnetV3Venue[]> {
  const venues: DevnetV3Venue[] = [];
  for (const spec of DEVNET_V3_VENUES) venues.push({ name: spec.name, ...(await deployUniswapV3(clients, deployer, weth, spec.extraFeeTiers)) });
  return venues;
}
