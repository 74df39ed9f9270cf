import { getAddress, isAddress, type Address } from "viem";
import { z } from "zod";

/**
 * An address in a service's input (the relayer's internal routes, the API's RELAYER_FEE_RECIPIENT):
 * `0x` and 40 hex digits in any case, checksum not required, read as its EIP-55 form.
 */
export const addressField = z
  .string()
  .refine((value) => isAddress(value, { strict: false }), "must be an address")
  .transform((value): Address => getAddress(value.toLowerCase()));
