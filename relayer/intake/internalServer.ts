import { randomUUID, timingSafeEqual, createHash } from "node:crypto";
import express, { type Express, type NextFunction, type Request, type Response } from "express";
import { getAddress, isAddress, isHex, type Address, type Hex } from "viem";
import { z } from "zod";
import { decodeGaslessCall, decodeRouteActions, MAX_CONTRACT_SIGNATURE_BYTES, type RelayHandoffResult, type SignedGaslessExactOutputOrder, type SignedGaslessOrder } from "../../sdk";
import { CONTROL_CHARACTER_MESSAGE, hasControlCharacter } from "../../sdk/wire/controlCharacters";
import type { RelayContext } from "../queue/relayContext";
import type { RelayCreation } from "../store/relayStore";
import type { RelayQueue } from "../queue/relayQueue";
import { internalRelayJson } from "./relayView";
import { relayerReadiness } from "../relayerReadiness";
import { gaslessStanding, integratorGasBudget } from "./gaslessStanding";
import { relayCancelHandler } from "../cancellation/relayCancelRoute";
import { handoffBudgetRefusal } from "./handoffBudget";
import { serialTurns } from "../queue/serialTurns";
import type { TrackRelay } from "../cancellation/relayCancellation";
import { pushedStatusRoutes } from "../pushed/pushedStatusRoutes";
import { continueBody } from "../../sdk/server/httpServerLimits";
import { refuseJsonBody } from "../../sdk/server/jsonRequestBody";

const address = z.string().refine((value) => isAddress(value, { strict: false }), "must be an address").transform((value) => getAddress(value.toLowerCase()) as Address);
const hex = z.string().refine((value) => isHex(value), "must be 0x-prefixed hex").transform((value) => value as Hex);
const uintText = z.string().regex(/^[0-9]{1,78}$/).transform((value) => BigInt(value));

/** The API's hand-off (sdk RelayRequestJson), validated again: the relayer trusts the secret, not the shape. */
const relayRequest = z.strictObject({
  chain_id: z.number().int().positive(),
  quote_id: z.uuid(),
  onchain_quote_id: hex.refine((value) => value.length === 66, "must be 32 bytes"),
  integrator_id: z.number().int().positive(),
  api_key_id: z.number().int().positive(),
  // PostgreSQL cannot store NUL: refused here too, so a relayer never answers the API a 500 it would retry.
  idempotency_key: z.string().min(1).max(128).refine((value) => !hasControlCharacter(value), CONTROL_CHARACTER_MESSAGE).nullable(),
  taker: address,
  router: address,
  data: hex,
  // 65 bytes from a plain key; a smart wallet's ERC-1271 signature (which the API checked) up to the router's cap.
  signature: hex.refine((value) => value.length >= 4 && value.length % 2 === 0 && value.length <= 2 + MAX_CONTRACT_SIGNATURE_BYTES * 2, `must be 1 to ${MAX_CONTRACT_SIGNATURE_BYTES} bytes`),
  permit2_nonce: uintText,
  deadline: uintText,
  estimated_gas: z.number().int().positive(),
  fee_wei: z.string().regex(/^[0-9]{1,78}$/, "must be decimal wei").nullable(),
});

const standingQuery = z.strictObject({ taker: address, integrator_id: z.coerce.number().int().positive() });
const budgetQuery = standingQuery.pick({ integrator_id: true });

const matchRequest = relayRequest.pick({ chain_id: true, quote_id: true, integrator_id: true, idempotency_key: true, signature: true });

/** The largest hand-off the API sends is a relay with a contract wallet's signature, well below this. */
const INTERNAL_BODY_LIMIT_BYTES = 65_536;

function digest(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}

/**
 * The relayer's internal endpoint, on loopback: the API hands validated relays over with
 * `POST /internal/relays` and reads them back with `GET /internal/relays/:id`, presenting the shared
 * secret `RELAYER_INTERNAL_TOKEN` as a bearer token. Not for integrators. GET /metrics, which tells
 * signer balances, is not here: it has a port of its own (`RELAYER_METRICS_PORT`).
 */
export function createInternalApp(context: RelayContext, queue: RelayQueue, track: TrackRelay): Express {
  const app = express();
  app.disable("x-powered-by");
  const expected = digest(`Bearer ${context.config.internalToken}`);
  app.get("/health", (_req, res) => void res.json({ status: "ok" }));
  app.get("/ready", async (_req, res) => {
    const readiness = await relayerReadiness(context);
    res.status(readiness.ready ? 200 : 503).json(readiness.ready ? { status: "ready", ...readiness.body } : { error: "this relayer cannot work right now", code: "not_ready", ...readiness.body });
  });
  app.use((req: Request, res: Response, next: NextFunction) => {
    if (timingSafeEqual(digest(req.get("authorization") ?? ""), expected)) return next();
    res.status(401).json({ error: "the relayer's internal endpoint needs Authorization: Bearer <RELAYER_INTERNAL_TOKEN>", code: "unauthorized" });
  });
  // Refused from the headers (415 a charset other than UTF-8, 413 over the limit) before a client
  // waiting for `100 Continue` sends its body; only an authorised request is told to continue.
  app.use((req: Request, res: Response, next: NextFunction) => {
    const refusal = refuseJsonBody(req, INTERNAL_BODY_LIMIT_BYTES);
    if (refusal !== undefined) {
      res.status(refusal.status).json({ error: refusal.message, code: refusal.code });
      return;
    }
    continueBody(req, res);
    next();
  });
  app.use(express.json({ limit: INTERNAL_BODY_LIMIT_BYTES }));
  app.use(pushedStatusRoutes(context));

  const handoffTurn = serialTurns();
  app.post("/internal/relays", async (req, res) => {
    const parsed = relayRequest.safeParse(req.body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      res.status(400).json({ error: `${issue?.path.join(".") ?? "body"}: ${issue?.message ?? "invalid"}`, code: "invalid_request" });
      return;
    }
    const body = parsed.data;
    if (body.chain_id !== context.config.chainId) {
      res.status(400).json({ error: `chain_id ${body.chain_id} is not this relayer's chain (${context.config.chainId})`, code: "unsupported_chain" });
      return;
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
      res.status(400).json({ error: "data: must be swapGasless calldata with readable route actions", code: "invalid_request" });
      return;
    }
    // The fee is the relayer's pay for the gas it spends: refused before anything is stored or sent
    // when it is in a token the operator does not take (one anyone can mint is worth nothing).
    const feeToken = order.params.sellToken.toLowerCase() as Address;
    if (!context.feeTokens.has(feeToken)) {
      res.status(400).json({ error: `the relay's fee token ${feeToken} (its order's sellToken) is not one this relayer accepts (RELAYER_FEE_TOKENS)`, code: "fee_token_not_accepted" });
      return;
    }
    // Quotes are refused to a taker or an integrator whose gas budget is spent, but one taken before
    // would still be relayed: the budgets are checked again here, where the operator's gas is about to be
    // spent. Check and insert take turns within this process.
    const handoff = await handoffTurn(async (): Promise<{ refusal: { status: number; body: object } } | { creation: RelayCreation }> => {
      const refusal = await handoffBudgetRefusal(context.store, context.config.gasBudgets, { taker: body.taker, integratorId: body.integrator_id }, context.now());
      if (refusal !== undefined) return { refusal: { status: 403, body: refusal } };
      let acceptedBlock: bigint;
      try {
        // Where the search for a copier's fill starts: a head a poll interval old only widens it.
        acceptedBlock = (context.head.last ?? (await context.head.read())).number;
      } catch {
        return { refusal: { status: 503, body: { error: "the relayer cannot reach its chain right now; retry shortly", code: "chain_unavailable" } } };
      }
      const creation = await context.store.createRelay({
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
      }, { owner: context.config.relayerId, until: new Date(context.now().getTime() + context.config.leaseSeconds * 1000) });
      return { creation };
    });
    if ("refusal" in handoff) {
      res.status(handoff.refusal.status).json(handoff.refusal.body);
      return;
    }
    const { creation } = handoff;
    if (creation.outcome === "created") {
      context.logger.info({ relayId: creation.relay.id, quoteId: body.quote_id, taker: body.taker }, "relay accepted");
      queue.enqueue(creation.relay.id);
    }
    const result: RelayHandoffResult = { outcome: creation.outcome, relay: internalRelayJson(creation.relay) };
    res.status(creation.outcome === "created" ? 201 : creation.outcome === "existing" ? 200 : 409).json(result);
  });

  app.post("/internal/relays/match", async (req, res) => {
    const parsed = matchRequest.safeParse(req.body);
    if (!parsed.success) {
      res.status(400).json({ error: `${parsed.error.issues[0]?.path.join(".") ?? "body"}: ${parsed.error.issues[0]?.message ?? "invalid"}`, code: "invalid_request" });
      return;
    }
    const body = parsed.data;
    const match = await context.store.matchRelay({
      chainId: body.chain_id,
      quoteId: body.quote_id,
      integratorId: body.integrator_id,
      idempotencyKey: body.idempotency_key ?? undefined,
      signature: body.signature,
    });
    if (match === undefined) {
      res.json({ outcome: "none" });
      return;
    }
    res.status(match.outcome === "existing" ? 200 : 409).json({ outcome: match.outcome, relay: internalRelayJson(match.relay) });
  });

  // Read by the API before each gasless quote (it caches answers briefly): the taker's and the
  // integrator's gas budgets, and whether either is spent.
  app.get("/internal/gasless-standing", async (req, res) => {
    const parsed = standingQuery.safeParse(req.query);
    if (!parsed.success) {
      res.status(400).json({ error: `${parsed.error.issues[0]?.path.join(".") ?? "query"}: ${parsed.error.issues[0]?.message ?? "invalid"}`, code: "invalid_request" });
      return;
    }
    res.json(await gaslessStanding(context.store, context.config.gasBudgets, { taker: parsed.data.taker, integratorId: parsed.data.integrator_id }, context.now()));
  });

  // Read by the API for an integrator's profile and key responses: its gas budget and its takers'.
  app.get("/internal/gas-budget", async (req, res) => {
    const parsed = budgetQuery.safeParse(req.query);
    if (!parsed.success) {
      res.status(400).json({ error: `${parsed.error.issues[0]?.path.join(".") ?? "query"}: ${parsed.error.issues[0]?.message ?? "invalid"}`, code: "invalid_request" });
      return;
    }
    res.json(await integratorGasBudget(context.store, context.config.gasBudgets, parsed.data.integrator_id, context.now()));
  });

  // The API's forward of POST /gasless/cancel/{relay_id} (relayCancellation.ts).
  app.post("/internal/relays/:id/cancel", relayCancelHandler(context, track));

  app.get("/internal/relays/:id", async (req, res) => {
    const relay = z.uuid().safeParse(req.params.id).success ? await context.store.getRelay(req.params.id) : undefined;
    if (relay === undefined) {
      res.status(404).json({ error: `no relay ${req.params.id}`, code: "relay_not_found" });
      return;
    }
    res.json(internalRelayJson(relay));
  });

  app.use((_req: Request, res: Response) => void res.status(404).json({ error: "no such endpoint", code: "not_found" }));
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const status = (error as { status?: number }).status;
    if (typeof status === "number" && status >= 400 && status < 500) {
      res.status(status).json({ error: "malformed request body", code: "invalid_request" });
      return;
    }
    context.logger.error({ err: error }, "internal endpoint error");
    res.status(500).json({ error: "internal error", code: "internal_error" });
  });
  return app;
}
