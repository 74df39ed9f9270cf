import { z } from "zod";

/** A pino level (API_LOG_LEVEL, RELAYER_LOG_LEVEL); `silent` logs nothing. */
export const logLevel = z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]);
