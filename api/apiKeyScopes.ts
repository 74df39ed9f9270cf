/** Scopes an API key can carry (spec, "Authentication"). */
export const ApiKeyScope = {
  QuoteRead: "quote:read",
  SwapCreate: "swap:create",
  SwapIntegrator: "swap:integrator",
} as const;

export type ApiKeyScope = (typeof ApiKeyScope)[keyof typeof ApiKeyScope];

export const apiKeyScopes = [ApiKeyScope.QuoteRead, ApiKeyScope.SwapCreate, ApiKeyScope.SwapIntegrator] as const satisfies readonly ApiKeyScope[];

/** Every key gets all scopes the spec shows; per-key scopes are a later decision. */
export const defaultApiKeyScopes: readonly ApiKeyScope[] = apiKeyScopes;
