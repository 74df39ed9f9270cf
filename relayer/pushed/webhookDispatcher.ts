import type { Logger } from "pino";
import { webhookHeaders } from "../../sdk/webhooks/webhookSignature";
import type { ClaimedDelivery, PushedStatusStore } from "../store/pushedStatusStore";
import { nextWebhookAttempt, type WebhookRetryPolicy } from "./webhookBackoff";

export type WebhookDispatchSettings = Readonly<{
  owner: string;
  retry: WebhookRetryPolicy;
  pollMs: number;
  timeoutMs: number;
  leaseMs: number;
  concurrency: number;
  retentionMs: number;
}>;

const PRUNE_EVERY_MS = 10 * 60_000;

/**
 * Sends the outbox's webhook deliveries. Each is claimed in the database with a lease longer than an
 * attempt's timeout, so two relayers on one PostgreSQL never send it concurrently, and one that died
 * mid-attempt leaves it to whoever claims it after the lease: at least once, never lost. A relay's
 * next delivery is claimable only once its earlier ones are settled: in order per relay.
 */
export class WebhookDispatcher {
  readonly #inFlight = new Set<Promise<void>>();
  #timer: NodeJS.Timeout | undefined;
  #running = false;
  #lastPrune = 0;

  constructor(
    private readonly store: PushedStatusStore,
    private readonly settings: WebhookDispatchSettings,
    private readonly logger: Logger,
    private readonly now: () => Date = () => new Date(),
  ) {}

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
        const claimed = await this.store.claimWebhookDeliveries({ owner: this.settings.owner, until: new Date(now.getTime() + this.settings.leaseMs) }, now, free);
        for (const delivery of claimed) {
          const attempt = this.#attempt(delivery).finally(() => this.#inFlight.delete(attempt));
          this.#inFlight.add(attempt);
        }
      }
      if (Date.now() - this.#lastPrune > PRUNE_EVERY_MS) {
        this.#lastPrune = Date.now();
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
    let status: number | undefined;
    let error: string | undefined;
    try {
      const response = await fetch(delivery.url, {
        method: "POST",
        headers: { "content-type": "application/json", "user-agent": "swap-api-webhooks/1", ...webhookHeaders(delivery.secret, delivery.eventId, sentAt, delivery.body) },
        body: delivery.body,
        // A redirect is the endpoint's mistake (and could point anywhere): not followed, counted as a failure.
        redirect: "manual",
        signal: AbortSignal.timeout(this.settings.timeoutMs),
      });
      status = response.status;
      await response.body?.cancel().catch(() => undefined);
      if (status < 200 || status >= 300) error = `answered ${status}`;
    } catch (caught) {
      const cause = (caught as { cause?: { code?: unknown } }).cause?.code;
      error = typeof cause === "string" ? cause : caught instanceof Error ? caught.message : String(caught);
    }
    const at = this.now();
    const delivered = error === undefined;
    const retryAt = delivered ? undefined : nextWebhookAttempt(this.settings.retry, delivery.attempts + 1, delivery.createdAt, at);
    try {
      const settled = await this.store.settleWebhookDelivery(delivery.eventSeq, this.settings.owner, { at, delivered, status, error, retryAt });
      if (!settled) this.logger.warn({ eventId: delivery.eventId }, "a webhook delivery's lease ran out during its attempt; another attempt may repeat it");
      if (!delivered) {
        this.logger[retryAt === undefined ? "error" : "warn"](
          { eventId: delivery.eventId, relayId: delivery.relayId, integratorId: delivery.integratorId, status, error, retryAt },
          retryAt === undefined ? "webhook delivery given up after its retry window" : "webhook delivery failed; retrying",
        );
      }
    } catch (caught) {
      // The claim lapses and the delivery is sent again: at least once.
      this.logger.warn({ err: caught, eventId: delivery.eventId }, "could not record a webhook attempt");
    }
  }
}
