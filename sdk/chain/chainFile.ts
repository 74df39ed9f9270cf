import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { getAddress, isAddress, type Address, type Hex } from "viem";
import { z } from "zod";
import { l1FeeModels } from "./networkFeeModel";

const address = z
  .string()
  .refine((value) => isAddress(value, { strict: false }), "expected a 20-byte hex address")
  .transform((value) => getAddress(value));
const hash = z
  .string()
  .regex(/^0x[0-9a-fA-F]{64}$/, "expected a 32-byte hex hash")
  .transform((value) => value as Hex);

/**
 * An address the chain file takes from outside (a public deployment list, or the script that built a
 * local chain), with where it comes from. `null` says honestly that the value is not known yet: the
 * deploy refuses a chain file with an unknown address it needs, naming the field.
 */
const sourcedAddress = z.object({ address: address.nullable(), source: z.string().min(1, "name the source of the address") });

const feePips = z.number().int().min(0).max(999_999);
const tickSpacing = z.number().int().min(1).max(16_384);
const venueName = z.string().regex(/^[a-z0-9][a-z0-9-]{0,47}$/, "expected a venue name of lowercase letters, digits and dashes");

const v2VenueSchema = z.object({
  name: venueName,
  type: z.literal("uniswap-v2"),
  factory: sourcedAddress,
  poolInitCodeHash: hash,
  feeTiers: z.array(z.object({ fee: feePips })).length(1, "a Uniswap V2 venue has one fee"),
  /** No pool of the venue exists before this block: event following starts here. */
  startBlock: z.number().int().nonnegative(),
});

const v3VenueSchema = z.object({
  name: venueName,
  type: z.literal("uniswap-v3"),
  factory: sourcedAddress,
  poolInitCodeHash: hash,
  feeTiers: z.array(z.object({ fee: feePips, tickSpacing })).min(1),
  quoter: sourcedAddress,
  positionManager: sourcedAddress,
  startBlock: z.number().int().nonnegative(),
});

/** The routers take one V2 venue and at most this many V3 venues (SWAP_V3's venue byte indexes them). */
export const MAX_ROUTER_V3_VENUES = 4;

/** Schema of `chains/<name>.json`: what the toolkit needs to know about a chain it deploys to or follows. */
export const chainFileSchema = z
  .object({
    /** The file's name without `.json`: a chain is named by its file (the devnet and 4663 share an id). */
    name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,47}$/, "expected lowercase letters, digits and dashes"),
    chainId: z.number().int().positive(),
    displayName: z.string().min(1),
    nativeCurrency: z.object({ name: z.string().min(1), symbol: z.string().min(1), decimals: z.number().int().min(0).max(36) }),
    /** Seconds between blocks, for timeouts and polling; the chain decides, this is a hint. */
    blockTimeSeconds: z.number().positive(),
    /** The fee model's inputs: which L1 data cost the chain adds (NetworkFeeModel). */
    feeModel: z.object({ l1: z.enum(l1FeeModels) }),
    /** The CREATE2 factory our contracts are deployed through (the same addresses on every chain). */
    deterministicDeployer: sourcedAddress,
    permit2: sourcedAddress,
    wrappedNative: sourcedAddress.extend({ symbol: z.string().min(1) }),
    venues: z.array(z.discriminatedUnion("type", [v2VenueSchema, v3VenueSchema])).min(1),
    /** Optional: Uniswap V4's PoolManager, the routers' SWAP_V4 venue (absent: routers without V4). */
    uniswapV4PoolManager: sourcedAddress.optional(),
    /**
     * Optional, for forks (`FORK_URL`): an account holding each token whose balances the fork cannot
     * write in the token's storage (no balances mapping found by probing: rebasing, share-based or
     * proxied storage). The fork impersonates the holder and transfers from it instead.
     */
    tokenHolders: z.array(z.object({ token: address, holder: address, source: z.string().min(1, "name where the holder was found") })).optional(),
  })
  .superRefine((file, context) => {
    const names = new Set<string>();
    file.venues.forEach((venue, index) => {
      if (names.has(venue.name)) context.addIssue({ code: "custom", path: ["venues", index, "name"], message: `venue ${venue.name} is listed twice` });
      names.add(venue.name);
    });
    const v2 = file.venues.filter((venue) => venue.type === "uniswap-v2").length;
    if (v2 !== 1) context.addIssue({ code: "custom", path: ["venues"], message: `the routers take exactly one uniswap-v2 venue; the file lists ${v2}` });
    const v3 = file.venues.filter((venue) => venue.type === "uniswap-v3").length;
    if (v3 > MAX_ROUTER_V3_VENUES) context.addIssue({ code: "custom", path: ["venues"], message: `the routers take at most ${MAX_ROUTER_V3_VENUES} uniswap-v3 venues; the file lists ${v3}` });
    const holderTokens = new Set<string>();
    file.tokenHolders?.forEach((entry, index) => {
      if (holderTokens.has(entry.token)) context.addIssue({ code: "custom", path: ["tokenHolders", index, "token"], message: `token ${entry.token} has two holders: name one` });
      holderTokens.add(entry.token);
    });
  });

export type ChainFile = z.output<typeof chainFileSchema>;
export type ChainFileVenue = ChainFile["venues"][number];
export type ChainFileV2Venue = Extract<ChainFileVenue, { type: "uniswap-v2" }>;
export type ChainFileV3Venue = Extract<ChainFileVenue, { type: "uniswap-v3" }>;
export type SourcedAddress = z.output<typeof sourcedAddress>;
export type ChainFileTokenHolder = NonNullable<ChainFile["tokenHolders"]>[number];

/** A chain file that is missing or does not parse; the message names the file and the field. */
export class ChainFileError extends Error {
  override readonly name = "ChainFileError";
}

/** Where the chain file `name` lives inside `directory`. */
export function chainFilePath(directory: string, name: string): string {
  return join(directory, `${name}.json`);
}

/** Reads and validates one chain file; its `name` must be its file name. */
export function readChainFile(file: string): ChainFile {
  if (!existsSync(file)) throw new ChainFileError(`no chain file at ${file}: name a file of the chains folder (--chain <name>), or write one (docs: README "deploy to a testnet")`);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new ChainFileError(`chain file ${file} is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  const parsed = chainFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ChainFileError(`chain file ${file} is invalid at ${issue?.path.join(".") || "(top)"}: ${issue?.message ?? ""}`);
  }
  const expected = file.replace(/^.*[\\/]/, "").replace(/\.json$/, "");
  if (parsed.data.name !== expected) throw new ChainFileError(`chain file ${file} says name "${parsed.data.name}": a chain file's name is its file name ("${expected}")`);
  return parsed.data;
}

/** Every chain file in `directory`, by name. */
export function listChainFiles(directory: string): ChainFile[] {
  if (!existsSync(directory)) return [];
  return readdirSync(directory)
    .filter((entry) => entry.endsWith(".json"))
    .sort()
    .map((entry) => readChainFile(join(directory, entry)));
}

/** A chain file's external addresses, each with the path of its field ("wrappedNative.address"). */
export function externalAddressesOf(file: ChainFile): { field: string; address: Address | null }[] {
  return [
    { field: "deterministicDeployer.address", address: file.deterministicDeployer.address },
    { field: "permit2.address", address: file.permit2.address },
    { field: "wrappedNative.address", address: file.wrappedNative.address },
    ...file.venues.flatMap((venue, index) => [
      { field: `venues.${index}.factory.address`, address: venue.factory.address },
      ...(venue.type === "uniswap-v3"
        ? [
            { field: `venues.${index}.quoter.address`, address: venue.quoter.address },
            { field: `venues.${index}.positionManager.address`, address: venue.positionManager.address },
          ]
        : []),
    ]),
    ...(file.uniswapV4PoolManager === undefined ? [] : [{ field: "uniswapV4PoolManager.address", address: file.uniswapV4PoolManager.address }]),
  ];
}
