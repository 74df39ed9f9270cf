import type { Request, Response } from "express";
import { z } from "zod";
import type { Hex } from "viem";
import { MAX_CONTRACT_SIGNATURE_BYTES, SIGNATURE_BYTES, type InternalRelayJson, type RelayJson } from "../../sdk";
import { ApiError } from "../../sdk/server/apiError";
import type { ApiDependencies } from "../apiDependencies";
import { RelayerClient, type RelayMatch } from "../gasless/relayerClient";
import { SubmissionHeads } from "../gasless/submissionHeads";
import { verifySubmission } from "../gasless/verifySubmission";
import { submitStopwatch } from "../metrics/gaslessSubmitStages";
import { apiKeyAuth, principalOf, requireScope } from "../middleware/apiKeyAuth";
import { QuoteBuckets } from "../quote/admission/quoteBuckets";
import { parseRequest } from "../requestValidation";
import { plainText } from "../schemas/plainText";
import type { GaslessTerms, QuoteRecord } from "../store/store";
import type { Route } from "./route";

const bodySchema = z.strictObject({
  quote_id: z.uuid("must be the quote_id (a UUID) of a gasless quote"),
  // 65 bytes for a plain key (checked once the quote says who the taker is); a smart wallet's ERC-1271
  // signature may have any length up to the router's MAX_CONTRACT_SIGNATURE_BYTES.
  signature: z
    .string()
    .regex(/^0x([0-9a-fA-F]{2})+$/, "must be 0x-prefixed hex of whole bytes")
    .superRefine((value, context) => {
      if (value.length > 2 + MAX_CONTRACT_SIGNATURE_BYTES * 2) context.addIssue({ code: "custom", message: `must be at most ${MAX_CONTRACT_SIGNATURE_BYTES} bytes; got ${(value.length - 2) / 2} bytes` });
    })
    .describe("the taker's signature of the quote's permit2 typed data: exactly 65 bytes from a key (permit2.signature_kind eoa); from a smart wallet (eip1271), whatever its isValidSignature accepts, 1 to 2048 bytes")
    .transform((value) => value.toLowerCase() as Hex),
  /** The taker's signature of the quote's `approval.eip712` (an EIP-2612 permit), sent with the swap. */
  approval_signature: z
    .string()
    .regex(/^0x[0-9a-fA-F]{130}$/, "must be 0x-prefixed hex of exactly 65 bytes")
    .describe("optional: the taker's 65-byte signature of the quote's approval.eip712 (an EIP-2612 permit of the sell token to Permit2); the relayer sends the permit and the swap in one transaction")
    .transform((value) => value.toLowerCase() as Hex)
    .optional(),
  idempotency_key: plainText(128).nullable().optional(),
});

/** The relay as integrators see it: the relayer's internal fields stay inside. */
export function publicRelay(relay: InternalRelayJson): RelayJson {
  const { integrator_id: _integrator, idempotency_key: _key, signature: _signature, ...visible } = relay;
  return visible;
}

function conflictOrExisting(match: RelayMatch): InternalRelayJson | undefined {
  switch (match.outcome) {
    case "existing":
      return match.relay;
    case "idempotency_conflict":
      throw new ApiError("idempotency_key_conflict", `idempotency_key was already used for quote ${match.relay.quote_id}; use a new key for a new quote`);
    case "quote_conflict":
      throw new ApiError("quote_already_submitted", `quote ${match.relay.quote_id} was already submitted with another signature (relay ${match.relay.relay_id})`);
    default:
      return undefined;
  }
}

/**
 * POST /gasless/submit: validates a signed gasless quote and hands it to the relayer, which stores it
 * before answering; from `accepted` on, no crash loses it or sends it twice. The same quote and
 * signature, or the same idempotency key with the same quote, returns the existing relay (200).
 */
function submitHandler(deps: ApiDependencies) {
  const buckets = new QuoteBuckets(deps.config.quoteProbeMultiplier, deps.rateLimiters, (bucket) => deps.metrics?.rateLimited.inc({ bucket }));
  const relayer = deps.config.gasless === undefined ? undefined : new RelayerClient(deps.config.gasless);
  const heads = new SubmissionHeads();
  return async (req: Request, res: Response) => {
    const stages = submitStopwatch(deps.metrics?.submitStages);
    const principal = principalOf(res);
    await buckets.consume("swap:create", principal, res);
    const body = parseRequest(bodySchema, req.body);
    if (relayer === undefined) throw new ApiError("gasless_unavailable", "this deployment has no relayer configured");
    // A gasless quote is committed before it is answered (saveQuote), so any instance finds it at once.
    const quote = await deps.store.findQuote(body.quote_id);
    if (quote === undefined || quote.apiKeyId !== principal.keyId) {
      throw new ApiError("quote_not_found", `quote_id ${body.quote_id} is not a quote made with this API key`);
    }
    if (quote.gasless === undefined) {
      throw new ApiError("quote_not_gasless", `quote ${body.quote_id} is not gasless; request one with permit2_owner, or send its tx yourself`);
    }
    const chain = deps.chains.get(quote.chainId);
    if (chain === undefined) throw new ApiError("unsupported_chain", `quote ${body.quote_id} is on chain ${quote.chainId}, which this API no longer serves`);
    const idempotencyKey = body.idempotency_key ?? null;
    const signatureBytes = (body.signature.length - 2) / 2;
    if (quote.gasless.signatureKind !== "eip1271" && signatureBytes !== SIGNATURE_BYTES) {
      throw new ApiError("invalid_request", `signature must be exactly 65 bytes (130 hex characters after 0x); got ${signatureBytes} bytes`);
    }
    stages.lap("lookup");

    // The usual submission is new: it is checked, then handed off (the relayer's store dedupes it). A
    // submission that fails a check may be the retry of a relay that already went out (its nonce now
    // spent, its swap no longer simulating): only then is the relayer asked for it, so a retry gets
    // the relay (200) rather than the failed check, and a new submission costs one relayer call.
    let verified;
    try {
      verified = await verifySubmission(chain, heads.for(chain), quote as QuoteRecord & { gasless: GaslessTerms }, body.signature, deps.config.gasless!, {
        approvalSignature: body.approval_signature,
        contractSignatureCheck: { gas: deps.config.onboarding1271Gas, timeoutMs: deps.config.onboarding1271TimeoutMs },
      });
    } catch (error) {
      stages.lap("verify");
      // The client's own error stands when the relayer cannot be asked: a 503 would tell it to retry a
      // submission that cannot succeed.
      const clientError = error instanceof ApiError && error.status < 500;
      const match = relayer.match({ chain_id: quote.chainId, quote_id: quote.quoteId, integrator_id: principal.integratorId, idempotency_key: idempotencyKey, signature: body.signature });
      const existing = conflictOrExisting(clientError ? await match.catch((): RelayMatch => ({ outcome: "none" })) : await match);
      stages.lap("match");
      if (existing !== undefined) {
        res.status(200).json(publicRelay(existing));
        return;
      }
      if (error instanceof ApiError) throw error;
      deps.logger.warn({ err: error, chainId: quote.chainId }, "gasless submission could not be checked on chain");
      throw new ApiError("chain_unavailable", `chain ${quote.chainId} could not be read right now; retry with the same idempotency_key`);
    }
    stages.lap("verify");
    const handoff = await relayer.handOff({
      chain_id: quote.chainId,
      quote_id: quote.quoteId,
      onchain_quote_id: quote.onchainId,
      integrator_id: principal.integratorId,
      api_key_id: principal.keyId,
      idempotency_key: idempotencyKey,
      taker: quote.taker,
      router: quote.router,
      data: verified.data,
      signature: body.signature,
      permit2_nonce: quote.gasless.permit2Nonce.toString(),
      deadline: verified.deadline.toString(),
      estimated_gas: quote.gasless.estimatedGas,
      fee_wei: quote.gasless.feeWei === undefined ? null : quote.gasless.feeWei.toString(),
    });
    stages.lap("handoff");
    const relay = handoff.outcome === "created" ? handoff.relay : conflictOrExisting(handoff);
    res.status(handoff.outcome === "created" ? 202 : 200).json(publicRelay(relay!));
  };
}

export const postGaslessSubmitRoute: Route = {
  method: "post",
  path: "/gasless/submit",
  handlers: (deps) => [apiKeyAuth(deps), requireScope("swap:create"), submitHandler(deps)],
};

/** The request schema, for the OpenAPI document (api/openapi). */
export { bodySchema as gaslessSubmitBodySchema };
