import type { Address, Hex } from "viem";

/**
 * An exact-output order as the routers take it (IExactOutputSettlement.ExactOutputParams): the
 * recipient gets at least `buyAmount`, the taker spends at most `maxSellAmount`, and the router takes
 * only the input the route needs at execution. Same ABI layout as SwapOrder.
 */
export type ExactOutputOrder = {
  sellToken: Address;
  maxSellAmount: bigint;
  buyToken: Address;
  buyAmount: bigint;
  recipient: Address;
  /** Unix seconds; also the Permit2 deadline. */
  deadline: bigint;
  /** The server's bytes32 quote id, recorded in the SwapSettled event. */
  quoteId: Hex;
  /** Packed route actions (encodeRouteActions); a SPLIT's shares divide the output. */
  actions: Hex;
};
