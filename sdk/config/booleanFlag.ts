import { z } from "zod";

/** A boolean environment variable: `true`/`false`/`1`/`0` (any case); anything else is a configuration error, not a silent false. */
export const booleanFlag = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.enum(["true", "false", "1", "0"]))
  .transform((value) => value === "true" || value === "1");
