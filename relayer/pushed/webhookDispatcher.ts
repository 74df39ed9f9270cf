import type { Logger } from "pino";
import { webhookHeaders } from "../../sdk/webhooks/webhookSignature";
import type { ClaimedDelivery, PushedStatusStore } from "../store/pushedStatusStore";
import { nextWebhookAttempt, type WebhookRetryPolicy } from "./webhookBackoff";
import { WebhookTransport, type WebhookResolver, type WebhookTransportSettings } from "./webhookTransport";

export type WebhookDispatchSettings = Readonly<{
  owner: string;
  retry: WebhookRetryPolicy;
  pollMs: number;
  leaseMs: number;
  concurrency: number;
  /** Attempts one integrator may have in flight (across relayers): its share of `concurrency`. */
  perIntegrator: number;
  /** Failed attempts in a row that open an endpoint's circuit, and how long it then stays open before a probe. */
  breaker: Readonly<{ failures: number; cooldownMs: number }>;
  transport: WebhookTransportSettings;
  retentionMs: number;
}>;

const PRUNE_EVERY_MS = 10 * 60_000;

/**
 * Sends the outbox's webhook deliveries, fairly: the claim takes turns between integrators and keeps
 * each within `perIntegrator` attempts in flight, and an endpoint that fails `breaker.failures` times
 * in a row is left alone for `breaker.cooldownMs`, then probed with one delivery at a time. One
 * integrator's silent endpoint therefore holds at most its own share of the slots, and another's
 * delivery waits at most one attempt (`transport.timeoutMs`) plus one poll for a free slot. Each is claimed in the database with a lease longer than an
 * attempt's timeout, so two relayers on one PostgreSQL never send it concurrently, and one that died
 * mid-attempt leaves it to whoever claims it after the lease: at least once, never lost. A relay's
 * next delivery is claimable only once its earlier ones are settled: in order per relay.
 */
export class WebhookDispatcher {
  readonly #inFlight = new Set<Promise<void>>();
  readonly #transport: WebhookTransport;
  #timer: NodeJS.Timeout | undefined;
  #running = false;
  #lastPrune = 0;

  constructor(
    private readonly store: PushedStatusStore,
    private readonly settings: WebhookDispatchSettings,
    private readonly logger: Logger,
    private readonly now: () => Date = () => new Date(),
    resolver?: WebhookResolver,
  ) {
    this.#transport = new WebhookTransport(settings.transport, resolver);
  }

  async start(): Promise<void> {
    // Claims this relayer held before a restart: nothing of ours is in flight any more.
    const released = await this.store.releaseWebhookClaims(this.settings.owner);
    if (released > 0) this.logger.info({ released }, "webhook deliveries claimed before the restart are due again");
    this.#running = true;
    this.#schedule(0);
  }

  async stop(): Promise<void> {
    this.#running = false;
    clearTimeout(this.#timer);
    await Promise.allSettled([...this.#inFlight]);
    await this.#transport.close();
  }

  #schedule(ms: number): void {
    if (!this.#running) return;
    this.#timer = setTimeout(() => void this.#tick(), ms);
  }

  async #tick(): Promise<void> {
    try {
      const free = this.settings.concurrency - this.#inFlight.size;
      if (free > 0) {
        const now = this.now();
        const lease = { owner: this.settings.owner, until: new Date(now.getTime() + this.settings.leaseMs) };
        const claimed = await this.store.claimWebhookDeliveries(lease, now, free, this.settings.perIntegrator);
        for (const delivery of claimed) {
          const attempt = this.#attempt(delivery).finally(() => this.#inFlight.delete(attempt));
          this.#inFlight.add(attempt);
        }
      }
      if (Date.now() - this.#lastPrune > PRUNE_EVERY_MS) {
        this.#lastPrune = Date.now();
        const now = this.now();
        const expired = await this.store.expireWebhookDeliveries(new Date(now.getTime() - this.settings.retry.windowMs), now);
        if (expired > 0) this.logger.error({ expired }, "webhook deliveries given up after their retry window without an attempt (their endpoint's circuit stayed open)");
        const pruned = await this.store.prunePushedStatus(new Date(this.now().getTime() - this.settings.retentionMs));
        if (pruned > 0) this.logger.info({ pruned }, "relay events past their retention were deleted");
      }
    } catch (error) {
      this.logger.warn({ err: error }, "webhook dispatch could not read its outbox; trying again");
    }
    this.#schedule(this.settings.pollMs);
  }

  async #attempt(delivery: ClaimedDelivery): Promise<void> {
    const sentAt = this.now();
    const headers = { "content-type": "application/json", "user-agent": "swap-api-webhooks/1", ...webhookHeaders(delivery.secret, delivery.eventId, sentAt, delivery.body) };
    const { status, failure, detail } = await this.#transport.post(delivery.url, headers, delivery.body);
    const error = failure;
    const at = this.now();
    const delivered = error === undefined;
    const retryAt = delivered ? undefined : nextWebhookAttempt(this.settings.retry, delivery.attempts + 1, delivery.createdAt, at);
    try {
      const breaker = { failures: this.settings.breaker.failures, openUntil: new Date(at.getTime() + this.settings.breaker.cooldownMs) };
      const settled = await this.store.settleWebhookDelivery(delivery.eventSeq, this.settings.owner, { integratorId: delivery.integratorId, at, delivered, status, error, retryAt, breaker });
      if (!settled) this.logger.warn({ eventId: delivery.eventId }, "a webhook delivery's lease ran out during its attempt; another attempt may repeat it");
      if (!delivered) {
        this.logger[retryAt === undefined ? "error" : "warn"](
          { eventId: delivery.eventId, relayId: delivery.relayId, integratorId: delivery.integratorId, url: delivery.url, status, error, detail, retryAt },
          retryAt === undefined ? "webhook delivery given up after its retry window" : "webhook delivery failed; retrying",
        );
      }
    } catch (caught) {
      // The claim lapses and the delivery is sent again: at least once.
      this.logger.warn({ err: caught, eventId: delivery.eventId }, "could not record a webhook attempt");
    }
  }
}
