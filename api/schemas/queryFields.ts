import { z } from "zod";

/** `chain_id` in a query string: a positive decimal integer that fits a JS number exactly. */
export const chainIdQueryField = z
  .string()
  .regex(/^[1-9][0-9]{0,15}$/, "must be a positive integer chain id")
  .transform(Number)
  .refine(Number.isSafeInteger, "must be a positive integer chain id");
