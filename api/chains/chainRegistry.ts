import { ApiError } from "../../sdk/server/apiError";
import type { ChainContext, ChainRegistry } from "./chainContext";

/** A registry over these chains; `defaultChainId` answers requests that omit chain_id. */
export function createChainRegistry(defaultChainId: number, contexts: readonly ChainContext[]): ChainRegistry {
  const byId = new Map<number, ChainContext>();
  for (const context of contexts) {
    if (byId.has(context.chainId)) throw new Error(`chain ${context.chainId} is registered twice`);
    byId.set(context.chainId, context);
  }
  const all = Object.freeze([...byId.values()]);
  return Object.freeze({ defaultChainId, get: (chainId: number) => byId.get(chainId), all: () => all });
}

/** No chain at all: for an app (or a test) that serves onboarding only; trading routes answer 400 unsupported_chain. */
export function emptyChainRegistry(defaultChainId: number): ChainRegistry {
  return createChainRegistry(defaultChainId, []);
}

/** The chain a request names (or the default one), or a 400 `unsupported_chain` listing those served. */
export function requestedChain(registry: ChainRegistry, chainId: number | undefined): ChainContext {
  const id = chainId ?? registry.defaultChainId;
  const chain = registry.get(id);
  if (chain === undefined) {
    const served = registry.all().map((context) => context.chainId);
    throw new ApiError("unsupported_chain", `chain_id ${id} is not served here; served chains: ${served.length > 0 ? served.join(", ") : "none"}`);
  }
  return chain;
}
