import { z } from "zod";
import type { Address, Hex } from "viem";

/**
 * The GET /quote response body as the wire carries it (amounts as decimal strings). The client parses
 * responses with it and the API's OpenAPI document describes the response from it: one definition.
 */
const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/).transform((value) => value as Address);
const hex = z.string().regex(/^0x[0-9a-fA-F]*$/).transform((value) => value as Hex);
const amount = z.string().regex(/^[0-9]+$/).describe("an integer amount in base units, as a decimal string");
const typedDataField = z.object({ name: z.string(), type: z.string() });

export const permit2TypedDataJsonSchema = z
  .object({
    nonce: amount.optional().describe("message.nonce repeated at the top, as the live service's clients read it; not part of the signed data"),
    deadline: amount.optional().describe("message.deadline repeated at the top; not part of the signed data"),
    domain: z.object({ name: z.string(), chainId: z.number().int(), verifyingContract: address }),
    types: z.record(z.string(), z.array(typedDataField)),
    primaryType: z.string(),
    message: z.object({
      permitted: z.object({ token: address, amount }),
      spender: address,
      nonce: amount,
      deadline: amount,
      witness: z.record(z.string(), z.string()),
    }),
    signature_kind: z
      .enum(["eoa", "eip1271"])
      .optional()
      .describe("gasless quotes: `eoa`, the taker's key signs 65 bytes; `eip1271`, the taker is a contract (a smart wallet) whose isValidSignature Permit2 asks, and the signature may be up to 2048 bytes"),
  })
  .describe("EIP-712 typed data the taker signs (Permit2 PermitWitnessTransferFrom); `types` includes EIP712Domain");

const bps = z.number().int().min(0).max(10_000);
const transferTaxJsonSchema = z
  .object({
    buy_tax_bps: bps.describe("taken from a transfer out of the token's pool (a buy)"),
    sell_tax_bps: bps.describe("taken from a transfer into the token's pool (a sell)"),
    transfer_tax_bps: bps.describe("taken from any other transfer"),
  })
  .describe("the token's transfer taxes in bps of the amount sent, measured on chain when the token was admitted; 0 for untaxed tokens and native ETH");
export const tokenPermitApprovalJsonSchema = z.object({
  type: z.literal("permit"),
  eip712: z
    .object({
      domain: z.object({ name: z.string(), version: z.string(), chainId: z.number().int(), verifyingContract: address }),
      types: z.record(z.string(), z.array(typedDataField)),
      primaryType: z.literal("Permit"),
      message: z.object({ owner: address, spender: address, value: amount, nonce: amount, deadline: amount }),
    })
    .describe("EIP-712 typed data of the sell token's EIP-2612 permit(owner = taker, spender = Permit2, value = sell amount + relayer fee, deadline = the quote's); `types` includes EIP712Domain"),
});

const hopJsonSchema = z.object({
  pool: z
    .string()
    .regex(/^0x(?:[0-9a-fA-F]{40}|[0-9a-fA-F]{64})$/)
    .transform((value) => value as Hex)
    .describe("the pool's address; a Uniswap V4 pool (one of the PoolManager's) by its 32-byte pool id"),
  source: z.string().describe("the venue the hop swaps on (`uniswap-v2`, a V3 venue such as `uniswap-v3`, a propAMM's name, `uniswap-v4`): the names `excluded_sources` takes"),
  leg: z
    .string()
    .describe("the pool in the live service's form `<venue>:chain-<id>:<pool>:<fee>`, fee in hundredths of a bip (a 30 bps V2 pair: 3000; a propAMM: 0)"),
  token_in: address,
  token_out: address,
  amount_in: amount,
  amount_out: amount,
  gas: z.number().int().min(0).describe("the hop's execution gas as its venue's model estimates it (V2: constant; V3 and V4: a base plus the ticks it crosses; propAMM: measured p90 plus a margin)"),
});

/** `platform_fee.fees[]`: one entry per fee the route takes (ours: the integrator's, from the buy token). */
const platformFeeEntrySchema = z.object({
  side: z.enum(["source", "destination"]).describe("destination: taken from the output, in the buy token"),
  token: address,
  symbol: z.string(),
  decimals: z.number().int(),
  bps: z.number().int(),
  amount,
  amount_decimal: z.string().describe("amount in whole tokens (amount / 10^decimals)"),
  recipient: address,
});

/**
 * The GET /price response body: a quote's route, amounts, fees, gas and issues, without what only a
 * firm quote has (quote_id, tx, permit2). GET /quote's body is this plus those.
 */
/** The route search's statistics, served both inside `route_stats` and at the top level. */
const routeStatFields = {
  candidate_paths: z.number().int().min(0).describe("token paths the search tried for the whole amount (direct, through each hub, through pairs of hubs)"),
  successful_routes: z.number().int().min(0).describe("those whose every hop had a pool giving a positive output"),
  failed_routes: z.number().int().min(0).describe("candidate_paths - successful_routes"),
  candidates_by_source: z
    .record(z.string(), z.number().int().min(0))
    .optional()
    .describe("pools priced by the search, per venue name (each pool that could take its hop, each time a candidate path asked it); venues excluded or without a pool on the way are absent"),
};

export const priceJsonSchema = z
  .object({
    chain_id: z.number().int(),
    block_number: amount,
    sell_token: address,
    buy_token: address,
    sell_amount: amount.describe("what is sold; for an exact-output quote (asked with buy_amount), the input the route needs at the quote's block"),
    max_sell_amount: amount
      .optional()
      .describe("exact-output quotes only: the most the taker spends, sell_amount plus the slippage tolerance (rounded up); the permit signs it, a native sell sends it as tx.value and gets the unspent part back in the same transaction"),
    buy_amount: amount.describe("the expected output; for an exact-output quote, exactly the buy_amount asked (the recipient gets at least this)"),
    min_buy_amount: amount.describe("the least output the order accepts: buy_amount less slippage_bps, or buy_amount itself for an exact-output quote"),
    token_metadata: z
      .object({ sell_token: transferTaxJsonSchema, buy_token: transferTaxJsonSchema })
      .optional()
      .describe("the two tokens' transfer taxes; a buy tax is already taken out of buy_amount and min_buy_amount, and a taxed sell_token is refused (400 token_taxed)"),
    route: z.object({
      hops: z.array(hopJsonSchema).describe("every hop of the route, leg after leg"),
      legs: z
        .array(
          z.object({
            share_bps: z.number().int().describe("the leg's share in bps, as the router's SPLIT action states it: of sell_amount, or of the output for an exact-output quote"),
            sell_amount: amount.describe("what the router gives the leg: sell_amount × share_bps / 10000 rounded down, the last leg the rest"),
            buy_amount: amount,
            gas: z.number().int().min(0).describe("the execution gas of the leg's hops (the sum of their `gas`)"),
            hops: z.array(hopJsonSchema),
          }),
        )
        .describe("the route's paths: one for a single path, or 2-3 legs of a split settled in one transaction"),
    }),
    platform_fee: z.object({
      token: address,
      amount,
      bps: z.number().int(),
      recipient: address,
      total_bps: z.number().int().optional().describe("every platform and integrator fee of the quote together, in bps"),
      fees: z.array(platformFeeEntrySchema).optional().describe("each fee taken, as the live service lists them (empty when no fee is taken)"),
    }),
    integrator_fee: z
      .object({ bps: z.number().int(), recipient: address, id: z.string().describe("the integrator's slug") })
      .optional()
      .describe("the integrator's fee as the live service names it: the same fee as platform_fee (the platform takes none of its own)"),
    network_fee: z
      .object({
        token: address.describe("the native-token placeholder 0xEeee…EEeE"),
        symbol: z.string(),
        decimals: z.number().int(),
        gas: amount.describe("the transaction's estimated gas (tx.estimated_gas)"),
        gas_price: amount.describe("wei per gas: the quoted block's base fee plus the tip (the node's suggestion, at most the configured tip)"),
        gas_price_gwei: z.string(),
        l1_fee: amount.describe("the L1 data cost in wei (L1_FEE_MODEL; 0 on chains without one)"),
        amount: amount.describe("gas × gas_price + l1_fee, in wei"),
        amount_eth: z.string(),
      })
      .optional()
      .describe("what sending the transaction is expected to cost in ETH (a gasless taker pays it through relayer_fee instead)"),
    taker: address.optional().describe("the request's taker"),
    slippage_bps: z.number().int().optional().describe("the slippage applied to buy_amount for min_buy_amount (default 100), or for an exact-output quote to sell_amount for max_sell_amount"),
    candidate_paths: routeStatFields.candidate_paths.optional().describe("route_stats.candidate_paths at the top level, where the live service puts it"),
    successful_routes: routeStatFields.successful_routes.optional().describe("route_stats.successful_routes at the top level, where the live service puts it"),
    failed_routes: routeStatFields.failed_routes.optional().describe("route_stats.failed_routes at the top level, where the live service puts it"),
    route_stats: z.object(routeStatFields).optional().describe("route statistics of the single-path search (0s for a bare wrap or unwrap)"),
    settlement: z.enum(["permit2", "allowance", "native", "gasless"]),
    gasless: z.boolean(),
    relayer_fee: z.object({ token: address, amount, recipient: address, gas: z.number().int(), gas_price: amount }).nullable(),
    expires_at: z.string(),
    issues: z.object({
      allowance: z.object({ spender: address, actual: amount }).nullable(),
      balance: z.object({ token: address, actual: amount, expected: amount }).nullable(),
      simulationIncomplete: z.boolean().optional().describe("true when some known pool could not be read at the quoted block: the route was searched without it"),
      invalidSourcesPassed: z
        .array(z.string())
        .optional()
        .describe("sources a request asked to exclude that do not exist: always empty, because an unknown name in excluded_sources is refused (400 naming it) rather than ignored"),
    }),
  });

export type PriceJson = z.output<typeof priceJsonSchema>;

export const quoteJsonSchema = priceJsonSchema.extend({
  quote_id: z.uuid(),
  tx: z.object({
    to: address,
    data: hex,
    value: amount,
    estimated_gas: z.number().int(),
    signature_offset: z.number().int().optional().describe("byte offset of the 65-byte signature placeholder in tx.data (permit and gasless quotes)"),
  }),
  permit2: permit2TypedDataJsonSchema.optional(),
  approval: tokenPermitApprovalJsonSchema
    .nullable()
    .optional()
    .describe("gasless quotes: when Permit2 is not approved for the debit and the sell token has EIP-2612, the token permit to sign and send as approval_signature with POST /gasless/submit (approval and swap in one relayed transaction); null otherwise"),
});

export type QuoteJson = z.output<typeof quoteJsonSchema>;
