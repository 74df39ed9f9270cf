/**
 * A step run every `intervalMs`, the next wait starting when the step ends, so two steps never overlap
 * however slow one is (a node that takes longer than the interval to answer). `stop` stops scheduling
 * and waits for the step in flight, so a caller that closes a database after it never races the step.
 * The timer does not keep the process alive. A step that throws or rejects is handed to `onError` (a
 * step that handles its own errors needs none) and the loop goes on, even when `onError` throws (that
 * becomes a process warning).
 */
export class PollingLoop {
  #timer: NodeJS.Timeout | undefined;
  #step: Promise<void> | undefined;
  #started = false;
  #stopped = false;

  constructor(
    private readonly step: () => Promise<unknown>,
    private readonly intervalMs: number,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {}

  /** Schedules the first step one interval from now; a second call does nothing. */
  start(): void {
    if (this.#started || this.#stopped) return;
    this.#started = true;
    this.#schedule();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#step;
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      // Started inside a promise, so a step that throws before returning one is an error like any other;
      // an onError that throws must neither stop the loop nor become an unhandled rejection (which ends the process).
      this.#step = Promise.resolve()
        .then(() => this.step())
        .then(
          () => undefined,
          (error: unknown) => this.#report(error),
        )
        .finally(() => {
          this.#step = undefined;
          this.#schedule();
        });
    }, this.intervalMs);
    this.#timer.unref();
  }

  #report(error: unknown): void {
    try {
      this.onError(error);
    } catch (failure) {
      process.emitWarning(`PollingLoop: onError threw while handling a failed step: ${failure instanceof Error ? failure.message : String(failure)}`);
    }
  }
}
