import { z } from "zod";

/** Response bodies of the onboarding endpoints, as the wire carries them. */
const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/);
const timestamp = z.string().describe("ISO 8601 time");

export const nonceJsonSchema = z.object({
  message: z.string().describe("EIP-4361 message to sign exactly as returned"),
  nonce: z.string(),
  issued_at: timestamp,
  expiration_time: timestamp,
});

export const applicationJsonSchema = z.object({
  integrator_id: z.number().int(),
  slug: z.string(),
  status: z.enum(["pending", "active"]),
  message: z.string(),
});

const gasBudgetJsonSchema = z
  .object({
    window_hours: z.number().int().describe("the rolling window the budgets cover, in hours (24)"),
    taker_budget_gas: z.number().int().describe("every taker's own budget, in gas per window"),
    integrator: z.object({
      integrator_id: z.number().int(),
      budget_gas: z.number().int().describe("gas per window the operator may pay with no fee because of this integrator and its takers"),
      charged_gas: z.number().int().describe("gas charged in the window: reverted or skipped swaps its takers caused, and its cancels of broadcast swaps"),
      remaining_gas: z.number().int(),
      spent: z.boolean().describe("true: gasless quotes, submissions and cancels of broadcast swaps are refused (403 gasless_integrator_gas_budget_spent) until frees_at"),
      frees_at: timestamp.nullable().describe("when enough charges leave the window for the budget to serve again; null when not spent"),
    }),
  })
  .nullable()
  .describe("The unpaid-gas ledger's budgets (SECURITY.md); null when gasless trading is not configured or the relayer cannot be reached");

export const createdApiKeyJsonSchema = z.object({
  key_id: z.number().int(),
  api_key: z.string().describe("the secret, shown once"),
  masked_key: z.string(),
  prefix: z.string(),
  scopes: z.array(z.string()),
  quote_rate_limit_per_minute: z.number().int(),
  swap_rate_limit_per_minute: z.number().int(),
  status_rate_limit_per_minute: z.number().int().describe("GET /gasless/status reads allowed per minute for this key"),
  price_rate_limit_per_minute: z.number().int().describe("GET /price requests allowed per minute for this key (PRICE_RATE_LIMIT_MULTIPLIER × its quote limit)"),
  integrator_id: z.string().describe("the profile slug (in this response only)"),
  integrator_fee_recipient: address,
  integrator_max_fee_bps: z.number().int(),
  gas_budget: gasBudgetJsonSchema,
  shown_once: z.boolean(),
});

const maskedKeyJsonSchema = z.object({
  key_id: z.number().int(),
  label: z.string(),
  prefix: z.string(),
  masked_key: z.string(),
  scopes: z.array(z.string()),
  quote_rate_limit_per_minute: z.number().int(),
  swap_rate_limit_per_minute: z.number().int(),
  status_rate_limit_per_minute: z.number().int().describe("GET /gasless/status reads allowed per minute for this key"),
  price_rate_limit_per_minute: z.number().int().describe("GET /price requests allowed per minute for this key (PRICE_RATE_LIMIT_MULTIPLIER × its quote limit)"),
  created_at: timestamp,
  revoked_at: timestamp.nullable(),
});

export const integratorProfilesJsonSchema = z.object({
  owner_wallet: address,
  integrators: z.array(
    z.object({
      integrator_id: z.number().int(),
      slug: z.string(),
      status: z.enum(["pending", "active"]),
      display_name: z.string(),
      contact_email: z.string().nullable(),
      telegram_handle: z.string().nullable(),
      app_url: z.string().nullable(),
      fee_recipient: address,
      max_fee_bps: z.number().int(),
      created_at: timestamp,
      approved_at: timestamp.nullable(),
      api_keys: z.array(maskedKeyJsonSchema),
      gas_budget: gasBudgetJsonSchema,
    }),
  ),
});

export const revokedApiKeyJsonSchema = z.object({
  key_id: z.number().int(),
  integrator_id: z.number().int(),
  revoked: z.literal(true),
  revoked_at: timestamp,
});

export const healthJsonSchema = z.object({ status: z.literal("ok") });
