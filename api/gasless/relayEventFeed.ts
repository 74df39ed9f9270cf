import type { Logger } from "pino";
import type { RelayFeedEventJson } from "../../sdk";
import type { RelayerClient } from "./relayerClient";

/** What a stream is told: new events (in sequence order), or that the feed failed (the stream ends; its client resumes). */
export type FeedSubscriber = Readonly<{ events(events: readonly RelayFeedEventJson[]): void; failed(error: unknown): void }>;

/** How long the feed waits before asking again after the relayer could not be reached. */
const RETRY_MS = 1_000;

/**
 * An API instance's one follower of the relayer's event feed (`GET /internal/relay-events/feed`, a
 * long poll the relayer wakes when an event is written: LISTEN/NOTIFY on PostgreSQL, in-process on
 * SQLite), fanned out to every open stream of every integrator. The relayer then reads its store once
 * per event for the whole instance, not once per stream per 250 ms. Runs while a stream subscribes.
 */
export class RelayEventFeed {
  readonly #subscribers = new Set<FeedSubscriber>();
  #running: Promise<void> | undefined;
  #stop: AbortController | undefined;
  /** Resolved once the feed has a sequence number: every event after it reaches the subscribers. */
  #positioned: { promise: Promise<void>; resolve: () => void } = waiting();

  constructor(
    private readonly relayer: RelayerClient,
    private readonly waitMs: number,
    private readonly logger: Logger,
  ) {}

  /**
   * Events go to `subscriber` until the returned `unsubscribe` is called. Once `positioned` resolves,
   * every event the relayer writes afterwards reaches it, and every event before is in the relayer's
   * store already: a stream reads its catch-up after it, so nothing falls between the two.
   */
  subscribe(subscriber: FeedSubscriber): { positioned: Promise<void>; unsubscribe(): void } {
    this.#subscribers.add(subscriber);
    this.#running ??= this.#run();
    return {
      positioned: this.#positioned.promise,
      unsubscribe: () => {
        this.#subscribers.delete(subscriber);
        if (this.#subscribers.size === 0 && this.#stop !== undefined && !this.#stop.signal.aborted) {
          this.#stop.abort();
          // Positioning belongs to a run: a stream that subscribes before this run has wound down
          // waits for the next run's position, not this one's (it would catch up to here, and the
          // next run starts at a later head: the events between would reach it from neither).
          this.#positioned = waiting();
        }
      },
    };
  }

  async #run(): Promise<void> {
    const stop = new AbortController();
    this.#stop = stop;
    let after: number | "head" = "head";
    try {
      while (!stop.signal.aborted) {
        try {
          // The first ask only learns the head (no wait), so that streams can be positioned at once.
          const answer = await this.relayer.relayEventFeed(after, after === "head" ? 0 : this.waitMs, stop.signal);
          // Stopped while the answer was on its way: the next run's position is not this one.
          if (stop.signal.aborted) break;
          after = answer.events.at(-1)?.seq ?? answer.after;
          if (answer.events.length > 0) for (const subscriber of [...this.#subscribers]) subscriber.events(answer.events);
          this.#positioned.resolve();
        } catch (error) {
          if (stop.signal.aborted) break;
          this.logger.warn({ err: error }, "the relayer's event feed could not be read; open streams end and their clients resume");
          for (const subscriber of [...this.#subscribers]) subscriber.failed(error);
          // Each stream that comes back catches up on its own from its Last-Event-ID.
          after = "head";
          this.#positioned = waiting();
          await new Promise((resolve) => setTimeout(resolve, RETRY_MS).unref());
        }
      }
    } finally {
      this.#running = undefined;
      this.#stop = undefined;
      // A stream that subscribed while this run was stopping starts the next one.
      if (this.#subscribers.size > 0) this.#running = this.#run();
    }
  }
}

function waiting(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => undefined as void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}
