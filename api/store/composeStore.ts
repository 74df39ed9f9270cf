import type { ChallengeStore, IntegratorStore, QuoteStore, Store, TokenDemandStore } from "./store";

/** One engine's concerns joined into the `Store` the handlers use; `engine` pings and closes its connection(s). */
export function composeStore(
  parts: { challenges: ChallengeStore; integrators: IntegratorStore; tokens: TokenDemandStore; quotes: QuoteStore },
  engine: { ping(): Promise<void>; close(): Promise<void> },
): Store {
  const { challenges, integrators, tokens, quotes } = parts;
  return {
    saveChallenge: (challenge) => challenges.saveChallenge(challenge),
    findChallenge: (nonce) => challenges.findChallenge(nonce),
    consumeChallenge: (use) => challenges.consumeChallenge(use),
    beginVerification: (use, limit) => challenges.beginVerification(use, limit),
    settleVerification: (use, outcome, limit) => challenges.settleVerification(use, outcome, limit),
    createIntegrator: (integrator, use) => integrators.createIntegrator(integrator, use),
    findIntegrator: (id) => integrators.findIntegrator(id),
    listIntegrators: (filter) => integrators.listIntegrators(filter),
    approveIntegrator: (slug, approvedAt) => integrators.approveIntegrator(slug, approvedAt),
    createApiKey: (key, use, maxActiveKeys) => integrators.createApiKey(key, use, maxActiveKeys),
    findApiKey: (id) => integrators.findApiKey(id),
    listApiKeys: (integratorIds) => integrators.listApiKeys(integratorIds),
    revokeApiKey: (keyId, revokedAt, use) => integrators.revokeApiKey(keyId, revokedAt, use),
    findCredentialsByPrefix: (prefix) => integrators.findCredentialsByPrefix(prefix),
    recordTokenDemand: (observations) => tokens.recordTokenDemand(observations),
    pruneTokenDemand: (before) => tokens.pruneTokenDemand(before),
    listTokenDemand: (query) => tokens.listTokenDemand(query),
    listTokenOverrides: (chainId) => tokens.listTokenOverrides(chainId),
    saveTokenOverride: (override, mode) => tokens.saveTokenOverride(override, mode),
    removeTokenOverride: (chainId, token) => tokens.removeTokenOverride(chainId, token),
    demoteToken: (demotion) => tokens.demoteToken(demotion),
    saveQuote: (quote) => quotes.saveQuote(quote),
    findQuoteByOnchainId: (chainId, onchainId) => quotes.findQuoteByOnchainId(chainId, onchainId),
    findQuote: (quoteId) => quotes.findQuote(quoteId),
    ping: () => engine.ping(),
    close: () => engine.close(),
  };
}
