import type { Address, Hex } from "viem";

/** A swap order as the routers take it (ISwapSettlement.SwapParams). */
export type SwapOrder = {
  sellToken: Address;
  sellAmount: bigint;
  buyToken: Address;
  minBuyAmount: bigint;
  recipient: Address;
  /** Unix seconds; also the Permit2 deadline. */
  deadline: bigint;
  /** The server's bytes32 quote id, recorded in the SwapSettled event. */
  quoteId: Hex;
  /** Packed route actions (encodeRouteActions). */
  actions: Hex;
};
