import type { SpawnedService } from "./spawnService";

export type SupervisorOptions = {
  /** How the service is named in log lines, e.g. "relayer". */
  name: string;
  /** Starts one instance and resolves once it is ready (spawnService). */
  start: () => Promise<SpawnedService>;
  /** One line per event: an exit, a restart, a failed restart. */
  log: (line: string) => void;
  /** First wait before a restart; doubled after every restart that fails or dies young. Default 500 ms. */
  initialDelayMs?: number;
  /** Cap of the wait. Default 30 s. */
  maxDelayMs?: number;
  /** An instance that ran this long before exiting resets the wait to its first value. Default 60 s. */
  stableAfterMs?: number;
};

export type SupervisedService = {
  /** The instance running now (or the last one, while a restart is pending). */
  current(): SpawnedService;
  /** How many times the service was restarted. */
  restarts(): number;
  /** Stops watching, cancels a pending restart and stops the running instance. */
  stop(): Promise<void>;
};

/** The last non-empty line a failed start printed: usually the service's own reason. */
function reasonOf(error: unknown): string {
  const lines = (error instanceof Error ? error.message : String(error)).split("\n").filter((line) => line.trim() !== "");
  return lines.length <= 1 ? (lines[0] ?? "") : `${lines[0]} ${lines[lines.length - 1]!.trim()}`;
}

/**
 * Keeps a child service running for `npm start`: its exit is logged at once, then it is started again
 * after a wait that doubles (capped) while restarts keep failing or dying young. The first start is
 * the caller's: its failure rejects, so a misconfigured service stops the devnet instead of looping.
 */
export async function superviseService(options: SupervisorOptions): Promise<SupervisedService> {
  const initialDelayMs = options.initialDelayMs ?? 500;
  const maxDelayMs = options.maxDelayMs ?? 30_000;
  const stableAfterMs = options.stableAfterMs ?? 60_000;
  let service = await options.start();
  let startedAt = Date.now();
  let delayMs = initialDelayMs;
  let restarts = 0;
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  let restarting: Promise<void> | undefined;

  const nextDelay = (): number => {
    const delay = delayMs;
    delayMs = Math.min(maxDelayMs, delayMs * 2);
    return delay;
  };

  const schedule = (delay: number) => {
    timer = setTimeout(() => {
      timer = undefined;
      restarting = restart().finally(() => (restarting = undefined));
    }, delay);
  };

  const restart = async () => {
    try {
      const started = await options.start();
      if (stopping) {
        await started.stop();
        return;
      }
      service = started;
      startedAt = Date.now();
      restarts++;
      options.log(`${options.name} restarted (pid ${started.child.pid})`);
      watch(started);
    } catch (error) {
      if (stopping) return;
      const delay = nextDelay();
      options.log(`${options.name} failed to restart (${reasonOf(error)}); next attempt in ${delay} ms`);
      schedule(delay);
    }
  };

  const watch = (instance: SpawnedService) => {
    void instance.exited.then((code) => {
      if (stopping) return;
      if (Date.now() - startedAt >= stableAfterMs) delayMs = initialDelayMs;
      const how = instance.child.signalCode !== null ? `was killed by ${instance.child.signalCode}` : `exited with code ${code}`;
      const delay = nextDelay();
      options.log(`${options.name} (pid ${instance.child.pid}) ${how}; restarting in ${delay} ms`);
      schedule(delay);
    });
  };
  watch(service);

  return {
    current: () => service,
    restarts: () => restarts,
    stop: async () => {
      stopping = true;
      if (timer !== undefined) clearTimeout(timer);
      await restarting;
      await service.stop();
    },
  };
}
