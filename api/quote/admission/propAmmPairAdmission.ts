import type { Address, PublicClient } from "viem";
import type { BlockHead } from "../../../sdk/chain/chainHead";
import { ApiError } from "../../../sdk/server/apiError";
import type { SupportedToken } from "../../tokens/supportedTokens";
import type { MarketTracker } from "../market/marketTracker";

/**
 * Refuses (400 `token_is_propamm_pair`, naming the parameter) a sell or buy token that the propAMM
 * allowlist holds as a pair at `head`. The routers refuse any route naming an allowlisted pair as a
 * token (`SwapTokenIsPropAmm`: a pair's balance is its pricing state, and a route that moved it as a
 * token could drain or skew it), so such a quote could only revert. The pairs come from the market's
 * once-per-block allowlist read, so this costs no read of its own.
 */
export async function admitNonPairTokens(market: Pick<MarketTracker, "propAmmPairsAt">, client: PublicClient, head: BlockHead, sellToken: SupportedToken, buyToken: SupportedToken): Promise<void> {
  const pairs = await market.propAmmPairsAt(client, head);
  if (pairs.size === 0) return;
  for (const [parameter, token] of [["sell_token", sellToken], ["buy_token", buyToken]] as const) {
    if (pairs.has(token.address.toLowerCase() as Address)) {
      throw new ApiError(
        "token_is_propamm_pair",
        `${parameter} ${token.symbol} (${token.address}) is allowlisted as a propAMM pair (at block ${head.number}): the routers never move a pair as a token, so no route can sell or buy it`,
        { body: { parameter, token: token.address } },
      );
    }
  }
}
