/**
 * The soak's gasless relays: quote, sign and submit as a wallet would (retrying an unanswered or
 * 503 submission with its idempotency key, as the API asks), status reads, and after the load the
 * accounting: every accepted relay's final status against the chain's SwapSettled logs.
 */
import { Client } from "pg";
import { parseEventLogs, type LocalAccount, type PublicClient } from "viem";
import { gaslessSwapRouterAbi } from "../../sdk";
import type { SoakHttp } from "./soakHttp";
import type { RelayRecord } from "./soakReport";

export type Integrator = { key: string; slug: string };
type Accepted = { relayId: string; quoteId: string; key: string; status: string };

const SUBMIT_PATIENCE_MS = 60_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function soakRelays(http: SoakHttp, sellAmount: bigint) {
  const accepted: Accepted[] = [];
  const open = new Set<Accepted>();
  /** On-chain quote ids of submissions that were never accepted. */
  const unaccepted: string[] = [];
  let submissions = 0;

  return {
    accepted,
    unaccepted,
    /** One relay for `taker` through `integrator`'s key; resolves when it was accepted or given up. */
    async relayOne(taker: LocalAccount, integrator: Integrator): Promise<void> {
      const params = new URLSearchParams({ sell_token: "USDC", buy_token: "WETH", sell_amount: sellAmount.toString(), taker: taker.address, permit2_owner: taker.address });
      const quote = await http.send("gasless-quote", `/quote?${params}`, { key: integrator.key });
      if (quote?.status !== 200 || quote.body?.permit2 === undefined) return;
      const permit2 = quote.body.permit2 as { domain: unknown; types: Record<string, unknown>; primaryType: string; message: { witness: { quoteId: string } } };
      const { EIP712Domain: _domain, ...types } = permit2.types;
      const signature = await taker.signTypedData({ ...permit2, types } as Parameters<LocalAccount["signTypedData"]>[0]);
      const quoteId = permit2.message.witness.quoteId;
      const body = { quote_id: quote.body.quote_id as string, signature, idempotency_key: `soak-${process.pid}-${submissions++}` };
      const until = Date.now() + SUBMIT_PATIENCE_MS;
      for (;;) {
        const answer = await http.send("gasless-submit", "/gasless/submit", { key: integrator.key, json: body });
        if (answer !== undefined && (answer.status === 200 || answer.status === 202)) {
          const relay = { relayId: answer.body.relay_id as string, quoteId, key: integrator.key, status: answer.body.status as string };
          accepted.push(relay);
          open.add(relay);
          return;
        }
        const retry = answer === undefined || answer.status >= 500 || answer.status === 429;
        if (!retry || Date.now() > until) {
          unaccepted.push(quoteId);
          return;
        }
        await sleep(1000);
      }
    },
    /** Reads the status of one open relay (the oldest first), as a wallet polling it would. */
    async readStatus(): Promise<void> {
      const relay = open.values().next().value as Accepted | undefined;
      if (relay === undefined) return;
      // Polled relays go to the back of the line.
      open.delete(relay);
      const answer = await http.send("gasless-status", `/gasless/status/${relay.relayId}`, { key: relay.key });
      if (answer?.status === 200 && typeof answer.body?.status === "string") relay.status = answer.body.status;
      if (relay.status === "accepted" || relay.status === "submitted") open.add(relay);
    },
  };
}

/**
 * Waits until every accepted relay is final in the relayers' shared table (or `timeoutMs` passes),
 * then returns each relay with its status there; a relay missing from the table is `unknown`.
 */
export async function drainRelays(databaseUrl: string, relays: readonly { relayId: string; quoteId: string }[], timeoutMs: number, log: (line: string) => void): Promise<RelayRecord[]> {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const ids = relays.map((relay) => relay.relayId);
    const until = Date.now() + timeoutMs;
    let statuses = new Map<string, string>();
    for (let round = 0; ; round++) {
      const { rows } = await db.query<{ id: string; status: string }>("SELECT id, status FROM relays WHERE id = ANY($1)", [ids]);
      statuses = new Map(rows.map((row) => [row.id, row.status]));
      const open = ids.filter((id) => !["confirmed", "failed", "expired", "rejected", "cancelled"].includes(statuses.get(id) ?? "unknown"));
      if (open.length === 0 || Date.now() > until) break;
      if (round % 10 === 0) log(`drain: ${open.length} of ${ids.length} relays not final yet`);
      await sleep(1000);
    }
    return relays.map((relay) => {
      const status = statuses.get(relay.relayId);
      return { relayId: relay.relayId, quoteId: relay.quoteId, status: status === undefined ? "unknown" : status === "accepted" || status === "submitted" ? `open (${status})` : status };
    });
  } finally {
    await db.end();
  }
}

/** How many SwapSettled events each on-chain quote id has, from `fromBlock` on, every contract. */
export async function settlementsByQuote(client: PublicClient, fromBlock: bigint): Promise<Map<string, number>> {
  const latest = await client.getBlockNumber();
  const counts = new Map<string, number>();
  const event = gaslessSwapRouterAbi.find((item) => item.type === "event" && item.name === "SwapSettled");
  if (event === undefined) throw new Error("the SDK's gaslessSwapRouterAbi has no SwapSettled event");
  for (let from = fromBlock; from <= latest; from += 2000n) {
    const to = from + 1999n > latest ? latest : from + 1999n;
    const logs = await client.getLogs({ event, fromBlock: from, toBlock: to } as Parameters<PublicClient["getLogs"]>[0]);
    for (const log of parseEventLogs({ abi: gaslessSwapRouterAbi, logs, eventName: "SwapSettled" })) {
      const quoteId = (log.args.quoteId as string).toLowerCase();
      counts.set(quoteId, (counts.get(quoteId) ?? 0) + 1);
    }
  }
  return counts;
}
