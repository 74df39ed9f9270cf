import { existsSync, readFileSync, writeFileSync, mkdirSync, renameSync } from "node:fs";
import { dirname, join } from "node:path";
import { z } from "zod";
import { getAddress, isAddress, type Address, type Hex } from "viem";

const address = z
  .string()
  .refine((value) => isAddress(value, { strict: false }), "expected a 20-byte hex address")
  .transform((value) => getAddress(value));
const hash = z.string().regex(/^0x[0-9a-fA-F]{64}$/, "expected a 32-byte hex hash");

const feeBps = z.number().int().min(0).max(9999);
/** A pool fee in hundredths of a bip (3000 = 0.3 %), as Uniswap V3 counts it; below 100 %. */
const feePips = z.number().int().min(0).max(999_999);
const tickSpacing = z.number().int().min(1).max(16_384);
const venueName = z.string().regex(/^[a-z0-9][a-z0-9-]{0,47}$/, "expected a venue name of lowercase letters, digits and dashes");

const v2PoolSchema = z.object({ address, token0: address, token1: address, type: z.literal("uniswap-v2"), source: z.literal("uniswap-v2"), feeBps });
const v3PoolSchema = z.object({ address, token0: address, token1: address, type: z.literal("uniswap-v3"), source: venueName, fee: feePips, tickSpacing });
/** Manifests written before venues had types list V2 pools only, without a `type`. */
const poolSchema = z.preprocess(
  (pool) => (typeof pool === "object" && pool !== null && !("type" in pool) ? { ...pool, type: "uniswap-v2" } : pool),
  z.discriminatedUnion("type", [v2PoolSchema, v3PoolSchema]),
);

const venueSchema = z.discriminatedUnion("type", [
  z.object({
    name: venueName,
    type: z.literal("uniswap-v2"),
    factory: address,
    poolInitCodeHash: hash,
    feeTiers: z.array(z.object({ fee: feePips })).min(1),
    startBlock: z.number().int().nonnegative(),
  }),
  z.object({
    name: venueName,
    type: z.literal("uniswap-v3"),
    factory: address,
    poolInitCodeHash: hash,
    feeTiers: z.array(z.object({ fee: feePips, tickSpacing })).min(1),
    quoter: address,
    positionManager: address,
    startBlock: z.number().int().nonnegative(),
  }),
]);

/** A V4 LP fee: hundredths of a bip up to 100 %, or the dynamic-fee flag 0x800000 (the hook sets it). */
const v4Fee = z.union([z.number().int().min(0).max(1_000_000), z.literal(0x800000)]);
const v4PoolSchema = z.object({
  id: hash,
  currency0: address,
  currency1: address,
  fee: v4Fee,
  tickSpacing: z.number().int().min(1).max(32_767),
  hooks: address,
  source: venueName,
});
const uniswapV4Schema = z.object({
  name: venueName,
  poolManager: address,
  v4Quoter: address,
  stateView: address,
  startBlock: z.number().int().nonnegative(),
  pools: z.array(v4PoolSchema),
  hooks: z.array(z.object({ name: z.string().min(1), address })).optional(),
});

/** Schema of `deployments/<chainId>.json`, the record of what the deploy flow put on a chain. */
export const deploymentManifestSchema = z
  .object({
    chainId: z.number().int().positive(),
    deployBlock: z.number().int().nonnegative(),
    deployBlockHash: hash,
    contracts: z.object({
      routerRegistry: address,
      permit2: address,
      weth: address,
      uniswapV2Factory: address,
      allowanceHolder: address,
      takerSwapRouter: address,
      gaslessSwapRouter: address,
      propAmmAllowlist: address.optional(),
    }),
    /** Absent from manifests written before venues were listed: then the one venue is the V2 factory. */
    venues: z.array(venueSchema).optional(),
    tokens: z.array(
      z.object({ symbol: z.string().min(1), name: z.string(), address, decimals: z.number().int().min(0).max(255) }),
    ),
    pools: z.array(poolSchema),
    devnet: z.object({ smartWallet: address, smartWalletOwner: address, plainToken: address }).optional(),
    propAmms: z.array(z.object({ name: z.string().min(1), address, token0: address, token1: address })).optional(),
    uniswapV4: uniswapV4Schema.optional(),
  })
  .transform((manifest) => ({ ...manifest, venues: manifest.venues ?? [uniswapV2Venue(manifest.contracts.uniswapV2Factory, manifest.deployBlock)] }))
  .superRefine((manifest, context) => {
    const names = new Set<string>();
    manifest.venues.forEach((venue, index) => {
      if (names.has(venue.name)) context.addIssue({ code: "custom", path: ["venues", index, "name"], message: `venue ${venue.name} is listed twice` });
      names.add(venue.name);
    });
    manifest.pools.forEach((pool, index) => {
      const venue = manifest.venues.find((candidate) => candidate.name === pool.source);
      if (venue === undefined || venue.type !== pool.type) {
        context.addIssue({ code: "custom", path: ["pools", index, "source"], message: `no ${pool.type} venue named ${pool.source} in venues` });
      } else if (pool.type === "uniswap-v3" && !venue.feeTiers.some((tier) => tier.fee === pool.fee && "tickSpacing" in tier && tier.tickSpacing === pool.tickSpacing)) {
        context.addIssue({ code: "custom", path: ["pools", index, "fee"], message: `venue ${venue.name} has no fee tier ${pool.fee} with tick spacing ${pool.tickSpacing}` });
      }
    });
  });

export type ManifestToken = { symbol: string; name: string; address: Address; decimals: number };
/** A propAMM the deploy flow put on the allowlist; token0/token1 are its configured order (IPropAmm). */
export type ManifestPropAmm = { name: string; address: Address; token0: Address; token1: Address };

/**
 * A Uniswap V4 pool in the singleton PoolManager: its id (keccak256 of its key) and its key.
 * `currency0` address(0) is native ETH; `fee` 0x800000 marks a dynamic fee; `hooks`' low 14 bits are
 * its permissions (sdk/amm/v4/hookPermissions.ts).
 */
export type ManifestV4Pool = { id: Hex; currency0: Address; currency1: Address; fee: number; tickSpacing: number; hooks: Address; source: string };
/** Uniswap V4 on the chain: the PoolManager, its lenses, its pools, and the devnet's named hooks. */
export type ManifestUniswapV4 = {
  name: string;
  poolManager: Address;
  v4Quoter: Address;
  stateView: Address;
  /** The first block to read the PoolManager's events from (no pool existed before). */
  startBlock: number;
  pools: ManifestV4Pool[];
  hooks?: { name: string; address: Address }[] | undefined;
};

/** What kind of market a venue is: how its pools are priced and swapped. */
export type VenueType = "uniswap-v2" | "uniswap-v3";

/** A Uniswap V2 pool (the only V2 venue is "uniswap-v2", the manifest's `uniswapV2Factory`). */
export type ManifestPool = { address: Address; token0: Address; token1: Address; type: "uniswap-v2"; source: "uniswap-v2"; feeBps: number };
/** A concentrated-liquidity pool of the V3 venue `source`; `fee` in hundredths of a bip (500 = 0.05 %). */
export type ManifestV3Pool = { address: Address; token0: Address; token1: Address; type: "uniswap-v3"; source: string; fee: number; tickSpacing: number };
/** A pool of any venue; `source` names its venue and `type` says which fields it has. */
export type ManifestVenuePool = ManifestPool | ManifestV3Pool;

/** Uniswap V2 or a fork: a factory whose pairs share one fee (3000 = 0.3 %). */
export type ManifestV2Venue = {
  name: string;
  type: "uniswap-v2";
  factory: Address;
  poolInitCodeHash: Hex;
  feeTiers: { fee: number }[];
  /** The first block to read the venue's events from (no pool of it existed before). */
  startBlock: number;
};
/** Uniswap V3 or a fork of it: a factory, its pools' init-code hash, its fee tiers, and a QuoterV2 over it. */
export type ManifestV3Venue = {
  name: string;
  type: "uniswap-v3";
  factory: Address;
  poolInitCodeHash: Hex;
  feeTiers: { fee: number; tickSpacing: number }[];
  quoter: Address;
  positionManager: Address;
  startBlock: number;
};
/** A source of liquidity; pools name theirs by `name`. */
export type ManifestVenue = ManifestV2Venue | ManifestV3Venue;

/** keccak256 of the UniswapV2Pair creation code of Uniswap's npm build (the canonical one). */
export const UNISWAP_V2_PAIR_INIT_CODE_HASH: Hex = "0x96e8ac4277198ff8b6f785478aa9a39f403cb768dd02cbee326c3e7da348845f";
/** Uniswap V2's one fee, in hundredths of a bip. */
export const UNISWAP_V2_FEE_PIPS = 3000;

/** The Uniswap V2 venue ("uniswap-v2") of a V2 factory deployed from Uniswap's npm build. */
export function uniswapV2Venue(factory: Address, startBlock: number): ManifestV2Venue {
  return { name: "uniswap-v2", type: "uniswap-v2", factory, poolInitCodeHash: UNISWAP_V2_PAIR_INIT_CODE_HASH, feeTiers: [{ fee: UNISWAP_V2_FEE_PIPS }], startBlock };
}

/** Whether `pool` is a Uniswap V2 pool: the only pools the V2 code paths may read. */
export function isManifestV2Pool(pool: ManifestVenuePool): pool is ManifestPool {
  return pool.type === "uniswap-v2";
}

/** The manifest's V2 pools. */
export function v2PoolsOf(manifest: Pick<DeploymentManifest, "pools">): ManifestPool[] {
  return manifest.pools.filter(isManifestV2Pool);
}

/**
 * What the deploy flow put on a chain. `takerSwapRouter` and `gaslessSwapRouter` are the routers
 * deployed with it; after a migration the registry, not the manifest, names the active ones.
 * `venues` are the sources of liquidity and `pools` their pools, each naming its venue (`source`).
 */
export type DeploymentManifest = {
  chainId: number;
  deployBlock: number;
  deployBlockHash: Hex;
  contracts: {
    routerRegistry: Address;
    permit2: Address;
    weth: Address;
    uniswapV2Factory: Address;
    allowanceHolder: Address;
    takerSwapRouter: Address;
    gaslessSwapRouter: Address;
    /** The propAMMs routers may call (PropAmmAllowlist); absent on chains deployed before propAMMs. */
    propAmmAllowlist?: Address | undefined;
  };
  venues: ManifestVenue[];
  tokens: ManifestToken[];
  pools: ManifestVenuePool[];
  /** Devnet only: an ERC-1271 smart wallet (owned by dev account #12) and a token without EIP-2612 (docs/integrators/gasless.md). */
  devnet?: { smartWallet: Address; smartWalletOwner: Address; plainToken: Address } | undefined;
  /** The propAMMs deployed with the chain (the allowlist, not the manifest, says which routers may call). */
  propAmms?: ManifestPropAmm[] | undefined;
  /** Uniswap V4, where deployed (not yet routed: the routers have no V4 action). */
  uniswapV4?: ManifestUniswapV4 | undefined;
};

/** Where the manifest of `chainId` lives inside `directory`. */
export function manifestPath(directory: string, chainId: number): string {
  return join(directory, `${chainId}.json`);
}

/**
 * What to do when a chain has no deployment manifest. Only the devnet deploys itself for now (a
 * command that deploys to other chains is planned); any other chain's manifest is pointed at.
 */
export function missingManifestAdvice(setting = "DEPLOYMENTS_DIR"): string {
  return `start the devnet with \`npm start\` (it deploys the contracts and writes the manifest), or point ${setting} at the folder holding the manifest of contracts deployed on this chain`;
}

/** Reads and validates a manifest; throws with the offending field when the file is malformed, and with what to do when it is missing. */
export function readManifest(path: string): DeploymentManifest {
  if (!existsSync(path)) throw new Error(`no deployment manifest at ${path}: ${missingManifestAdvice()}`);
  const parsed = deploymentManifestSchema.safeParse(JSON.parse(readFileSync(path, "utf8")));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`deployment manifest ${path} is invalid at ${issue?.path.join(".") ?? "?"}: ${issue?.message ?? ""}`);
  }
  return parsed.data as DeploymentManifest;
}

/** Writes a manifest atomically (temp file + rename), so a reader never sees half a file. */
export function writeManifest(path: string, manifest: DeploymentManifest): void {
  mkdirSync(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(manifest, null, 2)}\n`);
  renameSync(temp, path);
}
