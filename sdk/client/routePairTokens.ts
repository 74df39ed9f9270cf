import { decodeFunctionResult, encodeFunctionData, zeroAddress, type Address, type Hex } from "viem";
import { propAmmAllowlistAbi } from "../abis/propAmmAllowlistAbi";
import { decodeRouteActions, isHopAction, type RouteAction } from "../calldata/routeActions";
import { readRouterAddressView } from "./routerViews";
import { rpcConnectionFailure } from "../chain/rpcConnectionFailure";
import { ChainConnectionError } from "../errors/client";
import { QuoteCalldataError } from "../errors/quoteCheck";
import { isNativeToken } from "../tokens/native";
import type { ChainReader } from "./tradingWallet";

/**
 * The propAMM allowlist `router` calls through and refuses pairs of as tokens (PropAmmHops'
 * `propAmmAllowlist()`), undefined for a router without one (it reverts, answers nothing or the zero
 * address: a version before propAMMs), at `blockNumber` (default the latest block). A node that does
 * not answer is a ChainConnectionError, and any other error of the node's (a rate limit, a block it
 * does not have yet) is thrown as it came: never "no allowlist".
 */
export function readRouterPropAmmAllowlist(reader: ChainReader, router: Address, blockNumber?: bigint): Promise<Address | undefined> {
  return readRouterAddressView(reader, router, "propAmmAllowlist", "propAMM allowlist", blockNumber);
}

/** The ERC20 tokens a route names: the order's ends and every hop's output, split legs included; lowercase, each once. */
export function routeTokens(order: Readonly<{ sellToken: Address; buyToken: Address; actions: Hex }>): Address[] {
  const tokens = new Set<Address>();
  const add = (token: Address) => {
    // address(0) is a V4 hop's native ETH: no token a pair could be.
    if (!isNativeToken(token) && token !== zeroAddress) tokens.add(token.toLowerCase() as Address);
  };
  add(order.sellToken);
  add(order.buyToken);
  const visit = (action: RouteAction) => {
    if (isHopAction(action)) add(action.tokenOut);
    if (action.type === "split") for (const leg of action.legs) leg.hops.forEach(visit);
  };
  decodeRouteActions(order.actions).forEach(visit);
  return [...tokens];
}

/**
 * Refuses (QuoteCalldataError) a quote whose route names a token that `router`'s propAMM allowlist
 * holds as a pair: the router reverts such a swap (`SwapTokenIsPropAmm`), so signing it could only
 * waste the taker's gas or a gasless nonce. Reads `propAmmAllowlist()` on the router (a router without
 * one, or answering the zero address, has no pairs) and `isPair` for each token at the latest block.
 * A node that does not answer is a ChainConnectionError, never a pass.
 */
export async function refuseAllowlistedPairTokens(reader: ChainReader, router: Address, quoteId: string, order: Readonly<{ sellToken: Address; buyToken: Address; actions: Hex }>): Promise<void> {
  const call = async (to: Address, data: Hex, what: string): Promise<Hex | undefined> => {
    try {
      return (await reader.call({ to, data })).data;
    } catch (error) {
      const unreachable = rpcConnectionFailure(error);
      if (unreachable !== undefined) throw new ChainConnectionError(unreachable.url, unreachable.reason, what, error);
      return undefined;
    }
  };
  const allowlist = await readRouterPropAmmAllowlist(reader, router);
  if (allowlist === undefined) return;
  const tokens = routeTokens(order);
  const listed = await Promise.all(
    tokens.map(async (token) => {
      const data = await call(allowlist, encodeFunctionData({ abi: propAmmAllowlistAbi, functionName: "isPair", args: [token] }), `reading the propAMM allowlist ${allowlist}`);
      if (data === undefined || data === "0x") throw new QuoteCalldataError(quoteId, "tx.data.order.actions", `the propAMM allowlist ${allowlist} of router ${router} did not answer isPair(${token}); the route cannot be checked`);
      return decodeFunctionResult({ abi: propAmmAllowlistAbi, functionName: "isPair", data });
    }),
  );
  const pair = tokens.find((_, index) => listed[index]);
  if (pair !== undefined) {
    throw new QuoteCalldataError(quoteId, "tx.data.order.actions", `the route names ${pair} as a token, which router ${router}'s propAMM allowlist holds as a pair: the router refuses it (SwapTokenIsPropAmm); do not sign this quote`);
  }
}
