import { randomUUID } from "node:crypto";
import { isHex, type Address, type Hex } from "viem";
import { z } from "zod";
import { decodeGaslessCall, decodeRouteActions, MAX_CONTRACT_SIGNATURE_BYTES, type RelayHandoffResult, type SignedGaslessExactOutputOrder, type SignedGaslessOrder } from "../../../sdk";
import { ApiError } from "../../../sdk/server/apiError";
import { budgetRefusalError } from "../../../sdk/server/budgetRefusalError";
import { addressField } from "../../../sdk/wire/addressField";
import { CONTROL_CHARACTER_MESSAGE, hasControlCharacter } from "../../../sdk/wire/controlCharacters";
import { serialTurns } from "../../queue/serialTurns";
import type { RelayCreation } from "../../store/relayStore";
import { handoffBudgetRefusal } from "../handoffBudget";
import { parseInternal, type InternalRoute } from "../internalRequest";
import { internalRelayJson } from "../relayView";

const hex = z.string().refine((value) => isHex(value), "must be 0x-prefixed hex").transform((value) => value as Hex);
const uintText = z.string().regex(/^[0-9]{1,78}$/).transform((value) => BigInt(value));

/** The API's hand-off (sdk RelayRequestJson), validated again: the relayer trusts the secret, not the shape. */
export const relayRequest = z.strictObject({
  chain_id: z.number().int().positive(),
  quote_id: z.uuid(),
  onchain_quote_id: hex.refine((value) => value.length === 66, "must be 32 bytes"),
  integrator_id: z.number().int().positive(),
  api_key_id: z.number().int().positive(),
  // PostgreSQL cannot store NUL: refused here too, so a relayer never answers the API a 500 it would retry.
  idempotency_key: z.string().min(1).max(128).refine((value) => !hasControlCharacter(value), CONTROL_CHARACTER_MESSAGE).nullable(),
  taker: addressField,
  router: addressField,
  data: hex,
  // 65 bytes from a plain key; a smart wallet's ERC-1271 signature (which the API checked) up to the router's cap.
  signature: hex.refine((value) => value.length >= 4 && value.length % 2 === 0 && value.length <= 2 + MAX_CONTRACT_SIGNATURE_BYTES * 2, `must be 1 to ${MAX_CONTRACT_SIGNATURE_BYTES} bytes`),
  permit2_nonce: uintText,
  deadline: uintText,
  estimated_gas: z.number().int().positive(),
  fee_wei: z.string().regex(/^[0-9]{1,78}$/, "must be decimal wei").nullable(),
});

/**
 * `POST /internal/relays`: the API hands a validated relay over. 201 when created (and queued), 200
 * for the same relay again, 409 for a conflicting one; refused before anything is stored when its
 * calldata is not a readable gasless swap, its fee token is not taken, or a gas budget is spent.
 */
export const postRelayRoute: InternalRoute = {
  method: "post",
  path: "/internal/relays",
  handler: ({ context, queue }) => {
    const handoffTurn = serialTurns();
    return async (req, res) => {
      const body = parseInternal(relayRequest, req.body, "body");
      if (body.chain_id !== context.config.chainId) {
        throw new ApiError("unsupported_chain", `chain_id ${body.chain_id} is not this relayer's chain (${context.config.chainId})`);
      }
      // The gas limit is derived from the calldata at each broadcast, and the fee is paid in its order's
      // sell token: calldata that is not a readable swapGasless call is refused now.
      let order: SignedGaslessOrder | SignedGaslessExactOutputOrder;
      try {
        // swapGasless, or GaslessTokenPermit's token-permit and smart-wallet entry points, or the
        // exact-output one (these go alone, never in a batch).
        order = decodeGaslessCall(body.data).order;
        // Every route's actions, whatever its buy token: attribution later takes bytes that do not decode as the operator's side.
        decodeRouteActions(order.params.actions);
      } catch {
        throw new ApiError("invalid_request", "data: must be swapGasless calldata with readable route actions");
      }
      // The fee is the relayer's pay for the gas it spends: refused before anything is stored or sent
      // when it is in a token the operator does not take (one anyone can mint is worth nothing).
      const feeToken = order.params.sellToken.toLowerCase() as Address;
      if (!context.feeTokens.has(feeToken)) {
        throw new ApiError("fee_token_not_accepted", `the relay's fee token ${feeToken} (its order's sellToken) is not one this relayer accepts (RELAYER_FEE_TOKENS)`);
      }
      // Quotes are refused to a taker or an integrator whose gas budget is spent, but one taken before
      // would still be relayed: the budgets are checked again here, where the operator's gas is about to be
      // spent. Check and insert take turns within this process.
      const creation = await handoffTurn(async (): Promise<RelayCreation> => {
        const refusal = await handoffBudgetRefusal(context.store, context.config.gasBudgets, { taker: body.taker, integratorId: body.integrator_id }, context.now());
        if (refusal !== undefined) throw budgetRefusalError(refusal);
        let acceptedBlock: bigint;
        try {
          // Where the search for a copier's fill starts: a head a poll interval old only widens it.
          acceptedBlock = (context.head.last ?? (await context.head.read())).number;
        } catch {
          throw new ApiError("chain_unavailable", "the relayer cannot reach its chain right now; retry shortly");
        }
        return context.store.createRelay(
          {
            id: randomUUID(),
            chainId: body.chain_id,
            quoteId: body.quote_id,
            onchainQuoteId: body.onchain_quote_id,
            integratorId: body.integrator_id,
            apiKeyId: body.api_key_id,
            idempotencyKey: body.idempotency_key ?? undefined,
            taker: body.taker,
            router: body.router,
            data: body.data,
            signature: body.signature,
            permit2Nonce: body.permit2_nonce,
            deadline: body.deadline,
            estimatedGas: body.estimated_gas,
            feeWei: body.fee_wei === null ? undefined : BigInt(body.fee_wei),
            acceptedBlock,
            createdAt: context.now(),
          },
          { owner: context.config.relayerId, until: new Date(context.now().getTime() + context.config.leaseSeconds * 1000) },
        );
      });
      if (creation.outcome === "created") {
        context.logger.info({ relayId: creation.relay.id, quoteId: body.quote_id, taker: body.taker }, "relay accepted");
        queue.enqueue(creation.relay.id);
      }
      const result: RelayHandoffResult = { outcome: creation.outcome, relay: internalRelayJson(creation.relay) };
      res.status(creation.outcome === "created" ? 201 : creation.outcome === "existing" ? 200 : 409).json(result);
    };
  },
};
