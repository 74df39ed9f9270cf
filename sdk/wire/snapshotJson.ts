import { z } from "zod";

/** The supported-token snapshot body (GET /tokens/supported-tokens). */
export const snapshotJsonSchema = z
  .object({
    schema_version: z.number().int(),
    chain_id: z.number().int(),
    snapshot_id: z.string().regex(/^0x[0-9a-f]+$/),
    count: z.number().int().min(0),
    addresses: z.array(z.string().regex(/^0x[0-9a-f]{40}$/)),
  });

export type SnapshotJson = z.output<typeof snapshotJsonSchema>;
