import { getAddress, isAddressEqual, type Address } from "viem";
import { ChainConnectionError, UntrustedRouterError } from "../errors/client";
import { isRevertError } from "../chain/revertError";
import { rpcConnectionFailure } from "../chain/rpcConnectionFailure";
import { readActiveRouter, readPreviousRouter, type RegistryReader } from "../registry/readRegistry";

export type RouterCheckParameters = {
  registry: Address;
  featureId: bigint;
  /** What the address is, for the error: "tx.to", "permit2.message.spender", … */
  role: string;
  address: Address;
};

/**
 * A registry read that failed: a revert is the registry's answer "no router" (paused, unset, dwell
 * window closed); a node that did not answer is a ChainConnectionError, never "no router"; anything
 * else (a wrong registry address answering garbage) is rethrown as it is.
 */
function noRouter(error: unknown): undefined {
  const unreachable = rpcConnectionFailure(error);
  if (unreachable !== undefined) throw new ChainConnectionError(unreachable.url, unreachable.reason, "reading the router registry", error);
  if (isRevertError(error)) return undefined;
  throw error;
}

/**
 * The routers the registry accepts for a feature right now: `ownerOf(feature)`, plus `prev(feature)`
 * while its dwell window is open. Both are read by their raw selectors; a revert means "none".
 */
export async function acceptedRouters(client: RegistryReader, registry: Address, featureId: bigint): Promise<Address[]> {
  const [current, previous] = await Promise.all([
    readActiveRouter(client, { registry, featureId }).catch(noRouter),
    readPreviousRouter(client, { registry, featureId }).catch(noRouter),
  ]);
  return [current, previous].filter((router): router is Address => router !== undefined).map((router) => getAddress(router));
}

/**
 * Refuses an address the registry does not vouch for, so a tampered quote (a `tx.to` or Permit2
 * spender swapped for an attacker's contract) is never signed or sent.
 */
export async function assertRegisteredRouter(client: RegistryReader, { registry, featureId, role, address }: RouterCheckParameters): Promise<void> {
  const accepted = await acceptedRouters(client, registry, featureId);
  if (!accepted.some((router) => isAddressEqual(router, address))) throw new UntrustedRouterError(role, getAddress(address), featureId, accepted);
}
