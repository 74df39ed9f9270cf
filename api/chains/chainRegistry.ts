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
