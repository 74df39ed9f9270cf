import { z } from "zod";

/** A TCP port to listen on; 0 lets the system pick a free one. */
export const portNumber = z.coerce.number().int().min(0).max(65535);
