import { z } from "zod";
import { zeroAddress, type Address } from "viem";
import { ApiError } from "../apiError";
import { parseRequest } from "../requestValidation";
import { checksummed, isHexAddress } from "../services/checksummedAddress";
import { chainIdQueryField } from "../schemas/queryFields";
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

/** Our paths have at most this many pools (api/quote/routeSearch.ts MAX_HOPS); a larger max_hops changes nothing. */
const MAX_HOPS_ACCEPTED = 16;

const slippageBps = integerText("slippage_bps", 0, 10_000).optional();
const feeBps = integerText("fee_bps", 0, 10_000).optional();
const settlement = z.enum(["auto", "permit2", "allowance"]).optional();
const permit2Owner = address.optional();

/**
 * Names the live service documents for our parameters (README, "Parameters of the live service").
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
  sell_amount: z.string().regex(/^[0-9]{1,78}(\.[0-9]{1,78})?$/, "must be a positive integer string in base units (or, with amount_unit=token, a decimal such as 1.5)"),
  amount_unit: z.enum(["base", "token"]).optional(),
  taker: nonZeroAddress,
  slippage_bps: slippageBps,
  recipient: nonZeroAddress.optional(),
  settlement,
  fee_bps: feeBps,
  permit2_owner: permit2Owner,
  max_hops: integerText("max_hops", 1, MAX_HOPS_ACCEPTED).optional(),
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
        400,
        "invalid_request",
        `${first} and ${conflicting} are the same parameter (${canonical}) with different values (${String(resolved[first])} and ${String(resolved[conflicting])}); send it once`,
      );
    }
    resolved[canonical] = resolved[first];
  }
  return resolved as ParsedQuery;
}

/** `sell_amount` as parsed: base units already, or whole tokens to convert once the token is known. */
export type SellAmountInput = Readonly<{ unit: "base"; value: bigint }> | Readonly<{ unit: "token"; text: string }>;

/** The request before the sell amount is in base units (see quoteQueryFor). */
export type QuoteRequest = Omit<QuoteQuery, "sellAmount"> & Readonly<{ sellAmount: SellAmountInput }>;

export type QuoteQuery = Readonly<{
  chainId: number | undefined;
  /** As sent: an address in any case, or a symbol; admission resolves it. */
  sellToken: string;
  buyToken: string;
  sellAmount: bigint;
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
  /** The fee parameters the request named (as sent), for the swap:integrator scope check. */
  feeParameters: readonly FeeParameter[];
  /** The name fee_bps was sent under (an alias or fee_bps), for messages about it. */
  feeBpsName: string;
}>;

function sellAmountOf(text: string, unit: "base" | "token"): SellAmountInput {
  if (unit === "token") return { unit, text };
  if (text.includes(".")) {
    throw new ApiError(400, "invalid_request", "sell_amount must be a positive integer string in base units; send amount_unit=token for a decimal amount of tokens such as 1.5");
  }
  const value = BigInt(text);
  if (value === 0n) throw new ApiError(400, "invalid_request", "sell_amount must be greater than zero");
  if (value > MAX_UINT256) throw new ApiError(400, "invalid_request", "sell_amount must be at most 2^256-1");
  return { unit, value };
}

/** The request with its sell amount in base units of the admitted sell token. */
export function quoteQueryFor(request: QuoteRequest, sellToken: Readonly<{ decimals: number; symbol: string }>): QuoteQuery {
  const amount = request.sellAmount;
  const sellAmount = amount.unit === "base" ? amount.value : tokenAmountToBaseUnits(amount.text, sellToken.decimals, sellToken.symbol, "sell_amount");
  return { ...request, sellAmount };
}

/** Validates GET /quote's query; a 400 names the first parameter at fault. */
export function parseQuoteQuery(query: unknown): QuoteRequest {
  const sent = parseRequest(quoteQuerySchema, query, "query");
  const parsed = resolveAliases(sent);
  const permit2OwnerName = (["permit2_owner", ...aliasesOf.permit2_owner] as const).find((name) => sent[name] !== undefined) ?? "permit2_owner";
  if (parsed.permit2_owner !== undefined) {
    if (parsed.permit2_owner !== parsed.taker) {
      throw new ApiError(400, "invalid_request", `${permit2OwnerName} ${parsed.permit2_owner} must equal taker ${parsed.taker}: the taker signs the gasless permit`);
    }
    if (parsed.settlement === "allowance") {
      throw new ApiError(400, "invalid_request", `${permit2OwnerName} asks for a gasless quote, which settles by Permit2 signature; it cannot be combined with settlement=allowance`);
    }
  }
  return {
    chainId: parsed.chain_id,
    sellToken: parsed.sell_token,
    buyToken: parsed.buy_token,
    sellAmount: sellAmountOf(parsed.sell_amount, parsed.amount_unit ?? "base"),
    taker: parsed.taker,
    slippageBps: parsed.slippage_bps ?? 100,
    recipient: parsed.recipient ?? parsed.taker,
    settlement: parsed.settlement ?? "auto",
    feeBps: parsed.fee_bps ?? 0,
    gasless: parsed.permit2_owner !== undefined,
    maxHops: parsed.max_hops,
    feeParameters: FEE_PARAMETERS.filter((name) => sent[name] !== undefined),
    feeBpsName: (["fee_bps", ...aliasesOf.fee_bps] as const).find((name) => sent[name] !== undefined) ?? "fee_bps",
  };
}

/** The request schema, for the OpenAPI document (api/openapi). */
export { quoteQuerySchema };
