import { z } from "zod";
import { zeroAddress, type Address } from "viem";
import { ApiError } from "../../../sdk/server/apiError";
import { parseRequest } from "../../requestValidation";
import { checksummed, isHexAddress } from "../../services/checksummedAddress";
import { chainIdQueryField } from "../../schemas/queryFields";
import { tokenAmountToBaseUnits } from "./tokenAmount";

const MAX_UINT256 = (1n << 256n) - 1n;

const address = z
  .string()
  .refine(isHexAddress, "must be a 20-byte hex address (0x + 40 hex digits)")
  .transform(checksummed);
/** The taker signs or sends, and the recipient is paid: neither can be the zero address. */
const nonZeroAddress = address.refine((value) => value !== zeroAddress, "must not be the zero address");
/**
 * An address or a symbol, resolved at admission. The zero address is no token (the native asset is
 * 0xeeee…eeee, or ETH): refused here, so it is never recorded as demand.
 */
const tokenParameter = z
  .string()
  .min(1)
  .max(64)
  .refine((value) => value.toLowerCase() !== zeroAddress, "must not be the zero address (the native asset is 0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee, or ETH)");
const integerText = (name: string, min: number, max: number) =>
  z
    .string()
    .regex(/^[0-9]{1,6}$/, `must be an integer from ${min} to ${max}`)
    .transform(Number)
    .refine((value) => value >= min && value <= max, `must be an integer from ${min} to ${max}`)
    .describe(name);

const amountText = z.string().regex(/^[0-9]{1,78}(\.[0-9]{1,78})?$/, "must be a positive integer string in base units (or, with amount_unit=token, a decimal such as 1.5)");

/** Our paths have at most this many pools (api/quote/routing/routeSearch.ts MAX_HOPS); a larger max_hops changes nothing. */
const MAX_HOPS_ACCEPTED = 16;

const slippageBps = integerText("slippage_bps", 0, 10_000).optional();
const feeBps = integerText("fee_bps", 0, 10_000).optional();
const settlement = z.enum(["auto", "permit2", "allowance"]).optional();
const permit2Owner = address.optional();

/**
 * Names the live service documents for our parameters (docs/integrators/quotes.md, "Parameters of the live service").
 * They are resolved here, in parsing, so the probe stage and admission see one request whatever
 * names it used; one parameter under two names with different values is refused.
 */
const aliasesOf = {
  slippage_bps: ["slippageBps"],
  fee_bps: ["swap_fee_bps", "swapFeeBps"],
  permit2_owner: ["permit2Owner", "permitOwner"],
  settlement: ["settlementPreference"],
} as const;

/** The parameters that set or shape the integrator fee: each needs the key's swap:integrator scope. */
export const FEE_PARAMETERS = ["fee_bps", "swap_fee_bps", "swapFeeBps", "swap_fee_token", "swap_fee_recipient"] as const;
export type FeeParameter = (typeof FEE_PARAMETERS)[number];

/** GET /quote's query string, as strings; express gives arrays for repeated parameters, which fail here. */
const quoteQuerySchema = z.strictObject({
  chain_id: chainIdQueryField.optional(),
  sell_token: tokenParameter,
  buy_token: tokenParameter,
  // Base units (the default) or, with amount_unit=token, whole tokens with a decimal point: checked
  // per unit in parseQuoteQuery, and converted with the token's decimals after admission.
  // Exactly one of sell_amount (exact input) and buy_amount (exact output): checked in parseQuoteQuery.
  sell_amount: amountText.optional(),
  buy_amount: amountText.optional(),
  amount_unit: z.enum(["base", "token"]).optional(),
  taker: nonZeroAddress,
  slippage_bps: slippageBps,
  recipient: nonZeroAddress.optional(),
  settlement,
  fee_bps: feeBps,
  permit2_owner: permit2Owner,
  max_hops: integerText("max_hops", 1, MAX_HOPS_ACCEPTED).optional(),
  // Venue names, checked against the chain's venues once the chain is known (excludedSourcesOf).
  excluded_sources: z
    .string()
    .max(1024)
    .regex(/^[A-Za-z0-9._:-]*(,[A-Za-z0-9._:-]*)*$/, "must be venue names separated by commas, such as uniswap-v2,uniswap-v3")
    .optional(),
  // The live service's names (aliasesOf) and its fee parameters we accept but do not act on.
  slippageBps,
  swap_fee_bps: feeBps,
  swapFeeBps: feeBps,
  permit2Owner,
  permitOwner: permit2Owner,
  settlementPreference: settlement,
  swap_fee_token: tokenParameter.optional(),
  swap_fee_recipient: address.optional(),
});

type ParsedQuery = z.output<typeof quoteQuerySchema>;

/** One value per parameter: the canonical name's, or an alias's; two names that disagree are a 400 naming both. */
function resolveAliases(parsed: ParsedQuery): ParsedQuery {
  const resolved: Record<string, unknown> = { ...parsed };
  for (const [canonical, aliases] of Object.entries(aliasesOf)) {
    const given = [canonical, ...aliases].filter((name) => resolved[name] !== undefined);
    const [first, ...others] = given;
    if (first === undefined) continue;
    const conflicting = others.find((name) => resolved[name] !== resolved[first]);
    if (conflicting !== undefined) {
      throw new ApiError(
        "invalid_request",
        `${first} and ${conflicting} are the same parameter (${canonical}) with different values (${String(resolved[first])} and ${String(resolved[conflicting])}); send it once`,
      );
    }
    resolved[canonical] = resolved[first];
  }
  return resolved as ParsedQuery;
}

/** `sell_amount` or `buy_amount` as parsed: base units already, or whole tokens to convert once the token is known. */
export type AmountInput = Readonly<{ unit: "base"; value: bigint }> | Readonly<{ unit: "token"; text: string }>;
/** The name kept for callers of the exact-input amount. */
export type SellAmountInput = AmountInput;

/** Which amount the request fixes: the input (`sell`, exact input) or the output (`buy`, exact output). */
export type AmountSide = "sell" | "buy";

/** The request before its amount is in base units (see quoteQueryFor). */
export type QuoteRequest = Omit<QuoteQuery, "sellAmount" | "buyAmount"> & Readonly<{ amountSide: AmountSide; amount: AmountInput }>;

export type QuoteQuery = Readonly<{
  chainId: number | undefined;
  /** As sent: an address in any case, or a symbol; admission resolves it. */
  sellToken: string;
  buyToken: string;
  /**
   * Exactly one is set. `sellAmount`: an exact-input quote sells this much. `buyAmount`: an
   * exact-output quote buys exactly this much, for at most the quote's `max_sell_amount`.
   */
  sellAmount: bigint | undefined;
  buyAmount: bigint | undefined;
  taker: Address;
  slippageBps: number;
  recipient: Address;
  /** As asked: `auto` (the default) picks permit2 for ERC20 sells by a wallet, allowance otherwise. */
  settlement: "auto" | "permit2" | "allowance";
  feeBps: number;
  /** A gasless quote: the relayer submits, and the taker (who must be this address) only signs. */
  gasless: boolean;
  /** Upper bound on pools per path (`max_hops`); undefined: the router's own bound. */
  maxHops: number | undefined;
  /** Venues whose pools the route must not use (`excluded_sources`, lowercase); each names one of the chain's venues. */
  excludedSources?: readonly string[];
  /** The fee parameters the request named (as sent), for the swap:integrator scope check. */
  feeParameters: readonly FeeParameter[];
  /** The name fee_bps was sent under (an alias or fee_bps), for messages about it. */
  feeBpsName: string;
}>;

function amountOf(text: string, unit: "base" | "token", parameter: "sell_amount" | "buy_amount"): AmountInput {
  if (unit === "token") return { unit, text };
  if (text.includes(".")) {
    throw new ApiError("invalid_request", `${parameter} must be a positive integer string in base units; send amount_unit=token for a decimal amount of tokens such as 1.5`);
  }
  const value = BigInt(text);
  if (value === 0n) throw new ApiError("invalid_request", `${parameter} must be greater than zero`);
  if (value > MAX_UINT256) throw new ApiError("invalid_request", `${parameter} must be at most 2^256-1`);
  return { unit, value };
}

/** Exactly one of sell_amount and buy_amount; both or neither is a 400 naming both. */
function amountOfRequest(parsed: Pick<ParsedQuery, "sell_amount" | "buy_amount" | "amount_unit">): { amountSide: AmountSide; amount: AmountInput } {
  const unit = parsed.amount_unit ?? "base";
  if (parsed.sell_amount !== undefined && parsed.buy_amount !== undefined) {
    throw new ApiError("invalid_request", "sell_amount and buy_amount: send exactly one (sell_amount sells that much, buy_amount buys exactly that much), not both");
  }
  if (parsed.buy_amount !== undefined) return { amountSide: "buy", amount: amountOf(parsed.buy_amount, unit, "buy_amount") };
  if (parsed.sell_amount !== undefined) return { amountSide: "sell", amount: amountOf(parsed.sell_amount, unit, "sell_amount") };
  throw new ApiError("invalid_request", "sell_amount or buy_amount is required: send exactly one (sell_amount sells that much, buy_amount buys exactly that much)");
}

/**
 * The request with its amount in base units: sell_amount with the admitted sell token's decimals,
 * buy_amount with the buy token's.
 */
export function quoteQueryFor(request: QuoteRequest, sellToken: Readonly<{ decimals: number; symbol: string }>, buyToken?: Readonly<{ decimals: number; symbol: string }>): QuoteQuery {
  const { amountSide, amount, ...rest } = request;
  const token = amountSide === "sell" ? sellToken : buyToken;
  const parameter = amountSide === "sell" ? "sell_amount" : "buy_amount";
  if (token === undefined && amount.unit === "token") throw new Error("quoteQueryFor: a buy_amount in tokens needs the buy token");
  const value = amount.unit === "base" ? amount.value : tokenAmountToBaseUnits(amount.text, token!.decimals, token!.symbol, parameter);
  return { ...rest, sellAmount: amountSide === "sell" ? value : undefined, buyAmount: amountSide === "buy" ? value : undefined };
}

/** `excluded_sources` as a list of distinct lowercase names (empty entries, as in a trailing comma, ignored). */
function namesOf(text: string | undefined): string[] {
  if (text === undefined) return [];
  return [...new Set(text.split(",").map((name) => name.trim().toLowerCase()).filter((name) => name !== ""))];
}

/**
 * Refuses an `excluded_sources` name that is not one of `venues` (the chain's venue names): a typo
 * would otherwise quote the venue it meant to avoid. The live service reports such names in
 * `issues.invalidSourcesPassed` instead; a 400 tells the integrator before any route is used.
 */
export function checkExcludedSources(query: Pick<QuoteQuery, "excludedSources">, venues: ReadonlySet<string>): void {
  const unknown = (query.excludedSources ?? []).find((name) => !venues.has(name));
  if (unknown === undefined) return;
  throw new ApiError("invalid_request", `excluded_sources names ${unknown}, which is not a venue of this chain; its venues are ${[...venues].sort().join(", ")}`);
}

/** Validates GET /quote's query; a 400 names the first parameter at fault. */
export function parseQuoteQuery(query: unknown): QuoteRequest {
  const sent = parseRequest(quoteQuerySchema, query, "query");
  const parsed = resolveAliases(sent);
  const permit2OwnerName = (["permit2_owner", ...aliasesOf.permit2_owner] as const).find((name) => sent[name] !== undefined) ?? "permit2_owner";
  if (parsed.permit2_owner !== undefined) {
    if (parsed.permit2_owner !== parsed.taker) {
      throw new ApiError("invalid_request", `${permit2OwnerName} ${parsed.permit2_owner} must equal taker ${parsed.taker}: the taker signs the gasless permit`);
    }
    if (parsed.settlement === "allowance") {
      throw new ApiError("invalid_request", `${permit2OwnerName} asks for a gasless quote, which settles by Permit2 signature; it cannot be combined with settlement=allowance`);
    }
  }
  return {
    chainId: parsed.chain_id,
    sellToken: parsed.sell_token,
    buyToken: parsed.buy_token,
    ...amountOfRequest(parsed),
    taker: parsed.taker,
    slippageBps: parsed.slippage_bps ?? 100,
    recipient: parsed.recipient ?? parsed.taker,
    settlement: parsed.settlement ?? "auto",
    feeBps: parsed.fee_bps ?? 0,
    gasless: parsed.permit2_owner !== undefined,
    maxHops: parsed.max_hops,
    excludedSources: namesOf(parsed.excluded_sources),
    feeParameters: FEE_PARAMETERS.filter((name) => sent[name] !== undefined),
    feeBpsName: (["fee_bps", ...aliasesOf.fee_bps] as const).find((name) => sent[name] !== undefined) ?? "fee_bps",
  };
}

/** The request schema, for the OpenAPI document (api/openapi). */
export { quoteQuerySchema };
