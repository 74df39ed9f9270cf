import { decodeFunctionData, type Address, type Hex } from "viem";
import { gaslessSwapRouterAbi } from "../sdk";

/**
 * The token a relay's fee is paid in: the sell token of the order in its `swapGasless` calldata (the
 * router pays the fee out of the taker's permit, in that token). Undefined when the calldata is not a
 * `swapGasless` call; lowercase otherwise.
 */
export function relayFeeToken(data: Hex): Address | undefined {
  try {
    const call = decodeFunctionData({ abi: gaslessSwapRouterAbi, data });
    if (call.functionName !== "swapGasless") return undefined;
    return call.args[0].sellToken.toLowerCase() as Address;
  } catch {
    return undefined;
  }
}
