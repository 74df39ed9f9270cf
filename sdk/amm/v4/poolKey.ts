import { encodeAbiParameters, getAddress, keccak256, zeroAddress, type Address, type Hex } from "viem";
import type { RouteHopAction } from "../../calldata/routeActions";
import { NATIVE_TOKEN } from "../../tokens/native";

/** A Uniswap V4 pool's key: its identity (the PoolManager holds every pool; `v4PoolId` names it). */
export type V4PoolKey = Readonly<{
  /** The lower currency; address(0) is native ETH, which always sorts first. */
  currency0: Address;
  currency1: Address;
  /** The LP fee in hundredths of a bip, or DYNAMIC_FEE_FLAG when the hook sets it. */
  fee: number;
  tickSpacing: number;
  /** The hook contract (address(0): none); its low 14 bits are its permissions (hookPermissions.ts). */
  hooks: Address;
}>;

/** Native ETH as a V4 currency. */
export const NATIVE_CURRENCY: Address = zeroAddress;

/** The fee of a pool whose hook sets its LP fee (LPFeeLibrary.DYNAMIC_FEE_FLAG). */
export const DYNAMIC_FEE_FLAG = 0x800000;

const POOL_KEY_COMPONENTS = [
  {
    type: "tuple",
    components: [
      { name: "currency0", type: "address" },
      { name: "currency1", type: "address" },
      { name: "fee", type: "uint24" },
      { name: "tickSpacing", type: "int24" },
      { name: "hooks", type: "address" },
    ],
  },
] as const;

/** The pool's id, as PoolIdLibrary.toId: keccak256 of the ABI-encoded key (five words). */
export function v4PoolId(key: V4PoolKey): Hex {
  return keccak256(encodeAbiParameters(POOL_KEY_COMPONENTS, [key]));
}

/**
 * The SWAP_V4 hop through the pool of `key` to `tokenOut` (NATIVE_TOKEN or address(0) for native ETH,
 * written as V4's currency zero). The router rebuilds the key from the running token, `tokenOut` and
 * the pool's fee, tick spacing and hooks, so only those travel.
 */
export function swapV4Hop(key: Pick<V4PoolKey, "fee" | "tickSpacing" | "hooks">, tokenOut: Address): Extract<RouteHopAction, { type: "swapV4" }> {
  const out = getAddress(tokenOut) === NATIVE_TOKEN ? NATIVE_CURRENCY : getAddress(tokenOut);
  return { type: "swapV4", tokenOut: out, fee: key.fee, tickSpacing: key.tickSpacing, hooks: key.hooks };
}

/** Whether the pool's LP fee is set by its hook rather than fixed in its key. */
export function isDynamicFee(fee: number): boolean {
  return fee === DYNAMIC_FEE_FLAG;
}

/** Two currencies in pool order (numerically, so native ETH first); the key's other fields are the caller's. */
export function sortCurrencies(a: Address, b: Address): readonly [currency0: Address, currency1: Address] {
  return BigInt(a) < BigInt(b) ? [a, b] : [b, a];
}

/**
 * The key of the pool a SWAP_V4 hop from `tokenIn` swaps in, as the routers build it: the running
 * token and the hop's output sorted (address(0) is native ETH), with the hop's fee, tick spacing and hooks.
 */
export function v4HopPoolKey(tokenIn: Address, hop: Readonly<{ tokenOut: Address; fee: number; tickSpacing: number; hooks: Address }>): V4PoolKey {
  const [currency0, currency1] = sortCurrencies(tokenIn, hop.tokenOut);
  return { currency0, currency1, fee: hop.fee, tickSpacing: hop.tickSpacing, hooks: hop.hooks };
}
