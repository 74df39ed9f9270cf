import type { RelayContext } from "../queue/relayContext";
import type { RelayRecord } from "../store/relayStore";
import { decideCause, shouldRetry, type Attribution } from "./decideCause";
import type { BlockPosition } from "./pairStates";
import { readAttributionFacts, readRetryFacts } from "./readAttributionFacts";

export type FailureAttribution = Attribution & { retry: boolean };

/**
 * Who caused `relay`'s order to fail at `position` (a mined revert, or a skip in its batch), and
 * whether it is worth one more send, from the chain's own state only (see decideCause.ts). `gas`: a
 * relay mined alone's receipt gas and transaction limit.
 */
export async function attributeFailure(context: Pick<RelayContext, "client" | "permit2" | "uniswapV4" | "logger">, relay: RelayRecord, position: BlockPosition, gas?: Readonly<{ used: bigint; limit: bigint }>): Promise<FailureAttribution> {
  const facts = await readAttributionFacts(context.client, context, relay, position, gas);
  const attribution = decideCause(facts);
  const retry = attribution.cause === "taker" ? false : shouldRetry(attribution, await readRetryFacts(context.client, relay, context.uniswapV4));
  context.logger.info(
    {
      relayId: relay.id,
      block: position.blockNumber,
      cause: attribution.cause,
      retry,
      facts: { ...facts, route: facts.route === undefined ? undefined : { minimum: facts.route.minimum.toString(), atParent: facts.route.atParent.toString(), met: facts.route.met.toString() } },
    },
    `failed order attributed to the ${attribution.cause}`,
  );
  return { ...attribution, retry };
}
