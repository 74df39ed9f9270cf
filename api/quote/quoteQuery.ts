import { z } from "zod";
import { zeroAddress, type Address } from "viem";
import { ApiError } from "../apiError";
import { parseRequest } from "../requestValidation";
import { checksummed, isHexAddress } from "../services/checksummedAddress";
import { chainIdQueryField } from "../schemas/queryFields";

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

/** GET /quote's query string, as strings; express gives arrays for repeated parameters, which fail here. */
const quoteQuerySchema = z.strictObject({
  chain_id: chainIdQueryField.optional(),
  sell_token: tokenParameter,
  buy_token: tokenParameter,
  sell_amount: z
    .string()
    .regex(/^[0-9]{1,78}$/, "must be a positive integer string in base units")
    .transform((value) => BigInt(value))
    .refine((value) => value > 0n, "must be greater than zero")
    .refine((value) => value <= MAX_UINT256, "must be at most 2^256-1"),
  taker: nonZeroAddress,
  slippage_bps: integerText("slippage_bps", 0, 10_000).optional(),
  recipient: nonZeroAddress.optional(),
  settlement: z.enum(["auto", "permit2", "allowance"]).optional(),
  fee_bps: integerText("fee_bps", 0, 10_000).optional(),
  permit2_owner: address.optional(),
});

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
}>;

/** Validates GET /quote's query; a 400 names the first parameter at fault. */
export function parseQuoteQuery(query: unknown): QuoteQuery {
  const parsed = parseRequest(quoteQuerySchema, query, "query");
  if (parsed.permit2_owner !== undefined) {
    if (parsed.permit2_owner !== parsed.taker) {
      throw new ApiError(400, "invalid_request", `permit2_owner ${parsed.permit2_owner} must equal taker ${parsed.taker}: the taker signs the gasless permit`);
    }
    if (parsed.settlement === "allowance") {
      throw new ApiError(400, "invalid_request", "permit2_owner asks for a gasless quote, which settles by Permit2 signature; it cannot be combined with settlement=allowance");
    }
  }
  return {
    chainId: parsed.chain_id,
    sellToken: parsed.sell_token,
    buyToken: parsed.buy_token,
    sellAmount: parsed.sell_amount,
    taker: parsed.taker,
    slippageBps: parsed.slippage_bps ?? 100,
    recipient: parsed.recipient ?? parsed.taker,
    settlement: parsed.settlement ?? "auto",
    feeBps: parsed.fee_bps ?? 0,
    gasless: parsed.permit2_owner !== undefined,
  };
}

/** The request schema, for the OpenAPI document (api/openapi). */
export { quoteQuerySchema };
