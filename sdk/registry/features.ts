/** Feature ids of the router registry, as the spec names them. */
export const Feature = {
  /** The taker's wallet sends the quote's transaction itself. */
  TakerSubmittedSwap: 2n,
  /** A relayer submits the swap with the taker's signature. */
  GaslessSwap: 3n,
} as const;

export type FeatureId = (typeof Feature)[keyof typeof Feature];

/** What each feature is, for people (errors, CLI help). */
export const FEATURE_NAMES: ReadonlyMap<bigint, string> = new Map<bigint, string>([
  [Feature.TakerSubmittedSwap, "taker-submitted swaps"],
  [Feature.GaslessSwap, "gasless swaps"],
]);

/** Every feature with its id, for help texts: "2 taker-submitted swaps, 3 gasless swaps". */
export function describeFeatures(): string {
  return [...FEATURE_NAMES].map(([id, name]) => `${id} ${name}`).join(", ");
}

/** Registry read selectors, fixed by the spec; clients may call them with raw `eth_call`. */
export const RegistrySelector = {
  ownerOf: "0x6352211e",
  prev: "0xe2603dc2",
  next: "0x74bcde51",
  getFeature: "0x46df01a4",
} as const;

export type RegistryRead = keyof typeof RegistrySelector;
