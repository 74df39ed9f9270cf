import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import { dependencyMetrics } from "../sdk/observability/serverMetrics";
import { readEndpointMetrics } from "../sdk/observability/readEndpointMetrics";
import { RelayStageTimings } from "./queue/relayStageTimings";
import type { UnpaidGasTotal } from "./ledger/unpaidGas";
import type { WebhookBacklog } from "./store/pushedStatusStore";

/**
 * What the metrics read when scraped: the queue's and the watcher's sizes, each signer's nonces in
 * flight, and the unpaid-gas ledger's totals (from the store, so restarts and several relayers on one
 * PostgreSQL database never count an entry twice).
 */
export type RelayerGauges = {
  queueDepth(): number;
  tracked(): number;
  pendingNonces(): { signer: string; pending: number }[];
  unpaidGasTotals?(): Promise<UnpaidGasTotal[]>;
  /** Each signer's spend counted against its daily cap (relayer/signing/signerSpend.ts). */
  dailySpend?(): { signer: string; spent: bigint }[];
  /** The webhook outbox's pending deliveries (from the store: every relayer on the database sees the same). */
  webhookBacklog?(): Promise<WebhookBacklog>;
};

/**
 * The relayer's Prometheus metrics (prom-client), served by GET /metrics on its metrics port (RELAYER_METRICS_PORT):
 * relays by status and reason, broadcasts and bumps, confirmation latency, queue depth, signer
 * balances and pending nonces, chain RPC latency and errors, store latency, and the unpaid-gas ledger
 * by cause and kind (gas, wei and charges, all time, read from the store at each scrape).
 */
export type RelayerMetrics = ReturnType<typeof createRelayerMetrics>;

export function createRelayerMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  let gauges: RelayerGauges | undefined;
  const metrics = {
    registry,
    /** Connects the gauges read at scrape time, once the queue and the watcher exist. */
    observe(source: RelayerGauges) {
      gauges = source;
    },
    relays: new Counter({ name: "relayer_relays_total", help: "Relays reaching a status, by status and reason", labelNames: ["status", "reason"] as const, registers: [registry] }),
    broadcasts: new Counter({ name: "relayer_broadcasts_total", help: "Signed transactions persisted and sent, by kind (swap, cancel)", labelNames: ["kind"] as const, registers: [registry] }),
    bumps: new Counter({ name: "relayer_fee_bumps_total", help: "Replacements at the same nonce with bumped fees, by kind", labelNames: ["kind"] as const, registers: [registry] }),
    takeovers: new Counter({ name: "relayer_takeovers_total", help: "Relays claimed from a relayer whose lease ran out", registers: [registry] }),
    confirmationSeconds: new Histogram({
      name: "relayer_confirmation_latency_seconds",
      help: "From acceptance to confirmed",
      buckets: [0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300],
      registers: [registry],
    }),
    /** Where a relay's time goes between being queued and its broadcast (relayer/queue/relayStageTimings.ts). */
    stages: new RelayStageTimings(registry),
    /** Nonce repairs by the reconciliation (relayer/broadcast/nonceReconciler.ts): resend, fill, resync. */
    nonceRepairs: new Counter({ name: "relayer_nonce_repairs_total", help: "Nonce repairs made by reconciling with the chain, by action (resend, fill, resync)", labelNames: ["action"] as const, registers: [registry] }),
    nonceLag: new Gauge({ name: "relayer_signer_nonce_lag", help: "Nonces a signer handed out that the node did not count at the last reconciliation (held behind a gap when it stays above 0)", labelNames: ["signer"] as const, registers: [registry] }),
    /** Raw transactions per RELAYER_SEND_URLS endpoint (its host), by what it did with them (relayer/broadcast/sendFanOut.ts). */
    sendEndpoints: new Counter({ name: "relayer_send_endpoint_total", help: "Raw transactions sent to each RELAYER_SEND_URLS endpoint, by endpoint host and outcome (accepted, refused, unreachable)", labelNames: ["endpoint", "outcome"] as const, registers: [registry] }),
    /** Signatures the signing policy refused (relayer/signing/signingRules.ts names the reasons). */
    signingRefusals: new Counter({ name: "relayer_signing_refusals_total", help: "Transactions the signing policy refused to sign, by signer and reason", labelNames: ["signer", "reason"] as const, registers: [registry] }),
    signerBalance: new Gauge({ name: "relayer_signer_balance_wei", help: "Each signer's balance at the last check", labelNames: ["signer"] as const, registers: [registry] }),
    /** RELAYER_MIN_SIGNER_BALANCE_ETH in wei, so an alert compares each balance with the floor the relayer applies. */
    signerMinBalance: new Gauge({ name: "relayer_signer_min_balance_wei", help: "The floor below which a signer takes no new relays (RELAYER_MIN_SIGNER_BALANCE_ETH, in wei)", registers: [registry] }),
    signerBelowFloor: new Gauge({ name: "relayer_signer_below_min_balance", help: "1 while a signer's balance is below RELAYER_MIN_SIGNER_BALANCE_ETH (it takes no new relays), else 0", labelNames: ["signer"] as const, registers: [registry] }),
    /** Treasury top-ups by status as they reach it (relayer/broadcast/treasury.ts). */
    treasuryTopUps: new Counter({ name: "relayer_treasury_topups_total", help: "Treasury top-ups of signers, by status reached (sent, mined, failed, capped: stopped by RELAYER_TREASURY_DAILY_CAP_ETH)", labelNames: ["status"] as const, registers: [registry] }),
    treasuryDailySpend: new Gauge({ name: "relayer_treasury_daily_spend_wei", help: "What the treasury sent in top-ups over the last 24 h (failed ones excluded), in wei", registers: [registry] }),
    /** RELAYER_TREASURY_DAILY_CAP_ETH in wei (0 without a treasury), so an alert compares the day's top-ups with the cap the relayer applies. */
    treasuryDailyCap: new Gauge({ name: "relayer_treasury_daily_cap_wei", help: "The treasury's top-up cap per rolling 24 h (RELAYER_TREASURY_DAILY_CAP_ETH, in wei; 0 without RELAYER_TREASURY_SIGNER)", registers: [registry] }),
    /** 1 while the treasury key's backend fails to sign (it tries no top-up until a probe signs). */
    treasurySigningFailing: new Gauge({ name: "relayer_treasury_signing_failing", help: "1 while the treasury key's backend fails to sign (no top-ups until a probe at a signer check signs); 0 otherwise or without RELAYER_TREASURY_SIGNER", registers: [registry] }),
    treasuryBalance: new Gauge({ name: "relayer_treasury_balance_wei", help: "The treasury key's balance at the last signer check (0 without RELAYER_TREASURY_SIGNER)", registers: [registry] }),
    /** RELAYER_DAILY_SPEND_CAP_ETH in wei, the cap relayer_signer_daily_spend_wei counts against. */
    signerDailySpendCap: new Gauge({ name: "relayer_signer_daily_spend_cap_wei", help: "Each signer's spend cap per rolling 24 h (RELAYER_DAILY_SPEND_CAP_ETH, in wei): past it a signer takes no new relays", registers: [registry] }),
    signerSigningFailing: new Gauge({ name: "relayer_signer_signing_failing", help: "1 while a signer's key backend fails to sign (its last signature or probe failed): it takes no new relays, else 0", labelNames: ["signer"] as const, registers: [registry] }),
    signerDrained: new Gauge({ name: "relayer_signer_drained", help: "1 while the operator has a signer drained (relayer-admin signers drain), else 0", labelNames: ["signer"] as const, registers: [registry] }),
    ...dependencyMetrics(registry, "relayer"),
    ...readEndpointMetrics(registry, "relayer"),
  };
  new Gauge({
    name: "relayer_signer_daily_spend_wei",
    help: "Each signer's spend in the last 24 hours as the signing policy counts it (gas limit x max fee + value per nonce), against RELAYER_DAILY_SPEND_CAP_ETH",
    labelNames: ["signer"] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const { signer, spent } of gauges?.dailySpend?.() ?? []) this.set({ signer }, Number(spent));
    },
  });
  new Gauge({ name: "relayer_queue_depth", help: "Relays waiting for their first broadcast", registers: [registry], collect() { this.set(gauges?.queueDepth() ?? 0); } });
  new Gauge({ name: "relayer_tracked_relays", help: "Broadcast relays followed until final", registers: [registry], collect() { this.set(gauges?.tracked() ?? 0); } });
  new Gauge({
    name: "relayer_signer_pending_nonces",
    help: "Each signer's transactions not yet mined",
    labelNames: ["signer"] as const,
    registers: [registry],
    collect() {
      for (const { signer, pending } of gauges?.pendingNonces() ?? []) this.set({ signer }, pending);
    },
  });
  // One read of the ledger per scrape, shared by its three gauges (prom-client collects them in turn).
  let ledgerRead: Promise<UnpaidGasTotal[]> | undefined;
  const ledger = (first: boolean) => {
    if (first || ledgerRead === undefined) ledgerRead = gauges?.unpaidGasTotals?.() ?? Promise.resolve([]);
    return ledgerRead;
  };
  const ledgerGauge = (name: string, help: string, value: (total: UnpaidGasTotal) => number, first: boolean) =>
    new Gauge({
      name,
      help,
      labelNames: ["cause", "kind"] as const,
      registers: [registry],
      async collect() {
        this.reset();
        for (const total of await ledger(first)) this.set({ cause: total.cause, kind: total.kind }, value(total));
      },
    });
  ledgerGauge("relayer_unpaid_gas", "Gas the operator paid with no fee (the unpaid-gas ledger, all time), by who caused it and what it paid for", (total) => Number(total.gasUsed), true);
  ledgerGauge("relayer_unpaid_gas_wei", "The same in wei (gas times the effective price paid)", (total) => total.weiPaid, false);
  ledgerGauge("relayer_unpaid_gas_charges", "Ledger entries (one per transaction, relay and kind), by cause and kind", (total) => total.entries, false);
  // One read of the outbox per scrape, shared by its two gauges.
  let backlogRead: Promise<WebhookBacklog | undefined> | undefined;
  const backlog = (first: boolean) => {
    if (first || backlogRead === undefined) backlogRead = (gauges?.webhookBacklog?.() ?? Promise.resolve(undefined)).catch(() => undefined); // a database outage must not fail the whole scrape
    return backlogRead;
  };
  new Gauge({
    name: "relayer_webhook_backlog",
    help: "Webhook deliveries pending (not delivered, not given up), of every integrator",
    registers: [registry],
    async collect() {
      this.set((await backlog(true))?.pending ?? 0);
    },
  });
  new Gauge({
    name: "relayer_webhook_oldest_pending_seconds",
    help: "Age of the oldest pending webhook delivery (0 when none)",
    registers: [registry],
    async collect() {
      const oldest = (await backlog(false))?.oldestCreatedAt;
      this.set(oldest === undefined ? 0 : Math.max(0, (Date.now() - oldest.getTime()) / 1000));
    },
  });
  return metrics;
}
