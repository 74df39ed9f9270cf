import type { Address } from "viem";
import { findFill, isPermit2NonceUsed } from "../intake/orderState";
import type { RelayContext } from "../queue/relayContext";
import type { RelayRecord } from "../store/relayStore";

/** What the chain decided for a cancelled relay with transactions on record: final now, or not yet. */
export type InFlightCancellation = "confirmed" | "cancelled" | "pending";

/**
 * A relay whose cancellation was asked, with transactions on record but none this relayer can replace
 * (no signer of its own now: taken over from a relayer that died, or its nonce went elsewhere). A
 * recorded swap may still be in some mempool and mine, so only the chain ends it:
 * - the order was filled (a SwapSettled for its quote, by any transaction): `confirmed`;
 * - the taker spent the order's Permit2 nonce without a fill: `cancelled`;
 * - a block later than the quote's deadline was mined (the router refuses every later one): `cancelled`;
 * - every recorded transaction's nonce was used at its signer by something else: nothing recorded can
 *   mine any more, `cancelled`;
 * - otherwise `pending` (nothing is written): the caller asks again later.
 * The head, the signers' counts and the Permit2 nonce are read before the fill is looked for, so a
 * fill cannot land between the reads unseen.
 * Throws what the node throws (the caller retries).
 */
export async function resolveInFlightCancellation(context: RelayContext, relay: RelayRecord): Promise<InFlightCancellation> {
  const { client, store, logger } = context;
  const head = await context.head.fresh();
  const open = await openTransactions(context, relay);
  const nonceUsed = await isPermit2NonceUsed(client, context.permit2, relay);
  const fill = await findFill(client, context.permit2, relay);
  const at = context.now();
  if (fill !== undefined) {
    await store.updateRelay(relay.id, { status: "confirmed", mined: { hash: fill.hash, foreign: { from: fill.from, nonce: fill.nonce } }, at });
    logger.info({ relayId: relay.id, hash: fill.hash, from: fill.from }, "cancelled relay confirmed: a recorded swap (or a copier's) filled it first");
    return "confirmed";
  }
  let error: string | undefined;
  if (nonceUsed) error = "cancelled by the integrator; the taker's Permit2 nonce was spent without a fill";
  else if (head.timestamp > relay.deadline) error = `cancelled by the integrator; block ${head.number} passed the quote's deadline (${relay.deadline}) with no fill`;
  else if (open === 0) error = "cancelled by the integrator; the nonce of every recorded transaction was used by another transaction";
  if (error === undefined) return "pending";
  await store.updateRelay(relay.id, { status: "cancelled", error, at });
  logger.info({ relayId: relay.id, error }, "relay cancelled; nothing of it can fill any more");
  return "cancelled";
}

/**
 * How many of the relay's recorded transactions (signed by any relayer, a dead one's included) have a
 * nonce their signer has not used yet, so may still mine; `except` leaves out one signer's nonce.
 */
export async function openTransactions(context: RelayContext, relay: RelayRecord, except?: { signer: Address; nonce: number }): Promise<number> {
  const excepted = (transaction: RelayRecord["transactions"][number]) =>
    except !== undefined && transaction.signer.toLowerCase() === except.signer.toLowerCase() && transaction.nonce === except.nonce;
  const signed = relay.transactions.filter((transaction) => transaction.raw !== undefined && !transaction.mined && !excepted(transaction));
  const counts = new Map<Address, Promise<number>>();
  const minedCount = (signer: Address) => {
    const key = signer.toLowerCase() as Address;
    let count = counts.get(key);
    if (count === undefined) {
      count = context.client.getTransactionCount({ address: signer, blockTag: "latest" });
      counts.set(key, count);
    }
    return count;
  };
  const open = await Promise.all(signed.map(async (transaction) => (await minedCount(transaction.signer)) <= transaction.nonce));
  return open.filter(Boolean).length;
}
