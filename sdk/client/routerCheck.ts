import { getAddress, isAddressEqual, type Address } from "viem";
import { ChainConnectionError, UntrustedRouterError } from "../errors/client";
import { RegistryResponseError } from "../errors/registry";
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
 * A registry read that failed: a node that did not answer is a ChainConnectionError, never "no
 * router"; a registry that answered garbage (RegistryResponseError: not a registry at that address) is
 * rethrown; any other failure is the registry's answer "no router" (a revert: paused, unset, dwell
 * window closed). Not `isRevertError`: the caller's viem may be another copy, whose errors are not
 * instances of this package's classes.
 */
function noRouter(error: unknown): undefined {
  const unreachable = rpcConnectionFailure(error);
  if (unreachable !== undefined) throw new ChainConnectionError(unreachable.url, unreachable.reason, "reading the router registry", error);
  if (error instanceof RegistryResponseError) throw error;
  return undefined;
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
