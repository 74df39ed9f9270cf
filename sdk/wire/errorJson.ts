import { z } from "zod";

/** Every API error body: a message naming the field at fault and a machine code; a 429 adds `bucket`. */
export const errorJsonSchema = z
  .object({
    error: z.string().describe("human-readable message naming the field or value at fault"),
    code: z.string().describe("machine-readable code, e.g. invalid_request, unsupported_token, rate_limited"),
    bucket: z.string().optional().describe("the empty rate-limit bucket (429 only)"),
  })
  .catchall(z.union([z.string(), z.number(), z.boolean(), z.null()]));

export type ErrorJson = z.output<typeof errorJsonSchema>;
