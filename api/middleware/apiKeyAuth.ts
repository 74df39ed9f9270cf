import type { RequestHandler, Response } from "express";
import type { Address } from "viem";
import type { ApiDependencies } from "../apiDependencies";
import { ApiError } from "../../sdk/server/apiError";
import type { ApiKeyScope } from "../apiKeyScopes";
import { apiKeyPrefixOf, hashApiKey, secretHashesEqual } from "../services/apiKeySecret";

/** Who is calling, as established by `apiKeyAuth`; trading handlers read it with `principalOf(res)`. */
export type ApiKeyPrincipal = Readonly<{
  keyId: number;
  integratorId: number;
  integratorSlug: string;
  scopes: readonly ApiKeyScope[];
  quoteRateLimitPerMinute: number;
  swapRateLimitPerMinute: number;
  integratorFeeRecipient: Address;
  integratorMaxFeeBps: number;
}>;

const PRINCIPAL = "apiKeyPrincipal";

/**
 * Authenticates `Authorization: Bearer <key>`: 401 when the key is missing, unknown or revoked, 403
 * when its profile is not active. Every request sees the key's current state (the SQLite store
 * remembers a key only while its database is unchanged), so a revocation holds from the next request.
 */
export function apiKeyAuth(deps: Pick<ApiDependencies, "store">): RequestHandler {
  return async (req, res, next) => {
    const header = req.get("authorization");
    if (header === undefined || header.trim() === "") {
      throw new ApiError("api_key_missing", "Authorization header is missing; send Authorization: Bearer <api_key>");
    }
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    const presented = match?.[1];
    const prefix = presented === undefined ? undefined : apiKeyPrefixOf(presented);
    if (presented === undefined || prefix === undefined) {
      throw new ApiError("api_key_invalid", "Authorization must be Bearer <api_key> with a key issued by POST /integrators/api-keys");
    }
    const presentedHash = hashApiKey(presented);
    const candidates = await deps.store.findCredentialsByPrefix(prefix);
    const credential = candidates.find((candidate) => secretHashesEqual(candidate.secretHash, presentedHash));
    if (credential === undefined) {
      throw new ApiError("api_key_invalid", "API key is not valid");
    }
    if (credential.key.revokedAt !== undefined) {
      throw new ApiError("api_key_revoked", "API key was revoked");
    }
    if (credential.integrator.status !== "active") {
      throw new ApiError("integrator_not_active", `integrator ${credential.integrator.slug} is ${credential.integrator.status}`);
    }
    const principal: ApiKeyPrincipal = {
      keyId: credential.key.id,
      integratorId: credential.integrator.id,
      integratorSlug: credential.integrator.slug,
      scopes: credential.key.scopes,
      quoteRateLimitPerMinute: credential.key.quoteRateLimitPerMinute,
      swapRateLimitPerMinute: credential.key.swapRateLimitPerMinute,
      integratorFeeRecipient: credential.integrator.feeRecipient,
      // A key's own cap (set by the operator) can only lower its profile's.
      integratorMaxFeeBps: Math.min(credential.integrator.maxFeeBps, credential.key.maxFeeBps ?? credential.integrator.maxFeeBps),
    };
    res.locals[PRINCIPAL] = principal;
    next();
  };
}

/** The principal `apiKeyAuth` attached; a route that forgot the middleware fails loudly (500), never open. */
export function principalOf(res: Response): ApiKeyPrincipal {
  const principal = res.locals[PRINCIPAL] as ApiKeyPrincipal | undefined;
  if (principal === undefined) throw new Error("principalOf: apiKeyAuth did not run before this handler");
  return principal;
}

/** 403 unless the authenticated key holds `scope`; mount after `apiKeyAuth`. */
export function requireScope(scope: ApiKeyScope): RequestHandler {
  return (_req, res, next) => {
    if (!principalOf(res).scopes.includes(scope)) {
      throw new ApiError("missing_scope", `API key lacks scope ${scope}`);
    }
    next();
  };
}
