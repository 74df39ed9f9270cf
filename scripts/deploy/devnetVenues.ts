import type { Address } from "viem";
import { uniswapV2Venue, type ManifestVenue } from "../../sdk/chain/manifest";
import type { DevnetV3Venue } from "./devnetV3Venues";

/** The devnet's venues as the manifest lists them: Uniswap V2, then the V3 venues in DEVNET_V3_VENUES order. */
export function devnetVenues(uniswapV2Factory: Address, v3Venues: readonly DevnetV3Venue[], startBlock: number): ManifestVenue[] {
  return [
    uniswapV2Venue(uniswapV2Factory, startBlock),
    ...v3Venues.map((venue): ManifestVenue => ({
      name: venue.name,
      type: "uniswap-v3",
      factory: venue.factory,
      poolInitCodeHash: venue.poolInitCodeHash,
      feeTiers: venue.feeTiers.map((tier) => ({ fee: tier.fee, tickSpacing: tier.tickSpacing })),
      quoter: venue.quoterV2,
      positionManager: venue.positionManager,
      startBlock,
    })),
  ];
}
