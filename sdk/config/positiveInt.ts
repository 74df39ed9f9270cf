import { z } from "zod";

/** A whole number above zero, read from an environment variable's text (counts, limits, milliseconds). */
export const positiveInt = z.coerce.number().int().positive();
