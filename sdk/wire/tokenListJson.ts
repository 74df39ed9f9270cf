import { z } from "zod";

/** The token list body (GET /tokens): every supported token with its details. */
export const tokenListJsonSchema = z.object({
  chain_id: z.number().int(),
  count: z.number().int().min(0),
  tokens: z.array(
    z.object({
      address: z.string().regex(/^0x[0-9a-f]{40}$/).describe("Lowercase; 0xeeee…eeee is the native asset"),
      symbol: z.string(),
      name: z.string().describe("The manifest's name; a promoted or operator-enabled token's symbol"),
      decimals: z.number().int().min(0),
      source: z.enum(["manifest", "operator", "promoted"]).describe("manifest: the deployment (and the native asset); operator: enabled by an operator; promoted: by demand"),
      type: z.enum(["stable", "standard"]).describe("stable: a manifest dollar stablecoin"),
    }),
  ),
});

export type TokenListJson = z.output<typeof tokenListJsonSchema>;
