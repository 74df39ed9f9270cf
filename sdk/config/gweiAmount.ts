import { z } from "zod";

/** A decimal amount of gwei as text, such as `1` or `0.5` (at most 9 decimals: whole wei), for parseUnits(…, 9). */
export const gweiAmount = z.string().trim().regex(/^[0-9]{1,9}(\.[0-9]{1,9})?$/, "must be a decimal amount of gwei such as 1 or 0.5");
