import { z } from "zod";

/** The liquidity sources of a chain (GET /sources): 0x's `sources` names, and each venue's details. */
export const sourcesJsonSchema = z.object({
  chain_id: z.number().int(),
  sources: z.array(z.string()).describe("The venue names, as 0x's GET /sources lists them; the names `excluded_sources` takes"),
  venues: z.array(
    z.object({
      name: z.string().describe("The venue's name: the first part of its route legs' names (`<name>:chain-<id>:<pool>:<fee>`)"),
      type: z
        .enum(["uniswap-v2", "uniswap-v3", "propamm", "uniswap-v4"])
        .describe("How the venue's pools price and swap: constant product, concentrated liquidity, a proprietary AMM, or Uniswap V4's singleton (concentrated liquidity, pools keyed by id, hooks)"),
      pools: z.number().int().min(0).describe("Its pools that routing uses now (both tokens supported)"),
      fee_tiers: z
        .array(
          z.object({
            fee: z.number().int().min(0).describe("The pool fee in hundredths of a bip (3000 = 0.3 %)"),
            tick_spacing: z.number().int().min(1).optional().describe("Concentrated-liquidity venues: the tier's tick spacing"),
          }),
        )
        .describe("The fees its pools may charge; empty for a propAMM (its price includes its spread)"),
    }),
  ),
});

export type SourcesJson = z.output<typeof sourcesJsonSchema>;
