import { z } from "zod";
import { relayReasons, relayStatuses } from "../relay/relayStatus";
import { relayCancelOutcomes } from "../relay/relayCancelOutcome";
import type { RelayCancellationJson, RelayJson } from "../relay/relayWire";

const hash = z.string().regex(/^0x[0-9a-fA-F]{64}$/);
const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/);

/** A relay as POST /gasless/submit and GET /gasless/status/{relay_id} return it. */
export const relayJsonSchema = z
  .object({
    relay_id: z.uuid(),
    quote_id: z.uuid(),
    status: z.enum(relayStatuses),
    chain_id: z.number().int(),
    tx_hash: hash.nullable(),
    error: z.string().nullable(),
    reason: z.enum(relayReasons).nullable(),
    transactions: z.array(
      z.object({
        hash,
        kind: z.enum(["swap", "cancel"]),
        signer: address,
        nonce: z.number().int(),
        max_fee_per_gas: z.string(),
        max_priority_fee_per_gas: z.string(),
        sent_at: z.string(),
        mined: z.boolean(),
        batch: z.object({ position: z.number().int().min(0), size: z.number().int().min(1) }).nullable().optional(),
      }),
    ),
    cancel_requested_at: z.string().nullable(),
    batch: z.object({ tx_hash: hash, position: z.number().int().min(0), size: z.number().int().min(1) }).nullable().optional(),
    created_at: z.string(),
    updated_at: z.string(),
  });

/** The answer of POST /gasless/cancel/{relay_id}. */
export const relayCancellationJsonSchema = z.object({
  outcome: z.enum(relayCancelOutcomes),
  relay: relayJsonSchema,
  invalidate_nonce: z.object({
    chain_id: z.number().int(),
    from: address,
    to: address,
    data: z.string().regex(/^0x[0-9a-fA-F]*$/),
    value: z.literal("0"),
    permit2_nonce: z.string().regex(/^[0-9]+$/),
  }),
});

/** Parses a relay body into the shared wire type. */
export function parseRelayJson(body: unknown): RelayJson {
  return relayJsonSchema.parse(body) as RelayJson;
}

/** Parses a cancellation answer into the shared wire type. */
export function parseRelayCancellationJson(body: unknown): RelayCancellationJson {
  return relayCancellationJsonSchema.parse(body) as RelayCancellationJson;
}
