import { Histogram, type Registry } from "prom-client";

/**
 * The stages of POST /gasless/submit, in order:
 * - `lookup`: the swap rate limit, the body, and the quote read from the store;
 * - `match`: asking the relayer whether this submission is a retry of a relay it has;
 * - `verify`: the signature and the order checked on chain (verifySubmission);
 * - `handoff`: the relayer storing the relay and queueing it (POST /internal/relays).
 */
export const SUBMIT_STAGES = ["lookup", "match", "verify", "handoff"] as const;
export type SubmitStage = (typeof SUBMIT_STAGES)[number];

/** The histogram `api_gasless_submit_stage_seconds{stage}`, from 0.5 ms to 60 s (the relayer's stage buckets). */
export function gaslessSubmitStageHistogram(registry: Registry): Histogram<"stage"> {
  return new Histogram({
    name: "api_gasless_submit_stage_seconds",
    help: "Time POST /gasless/submit spends in each stage (lookup, match, verify, handoff)",
    labelNames: ["stage"] as const,
    buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 30, 60],
    registers: [registry],
  });
}

/** Times one submission: each `lap` records the time since the previous one (or since the stopwatch started) under its stage. */
export function submitStopwatch(histogram: Histogram<"stage"> | undefined): { lap(stage: SubmitStage): void } {
  let last = performance.now();
  return {
    lap(stage) {
      const now = performance.now();
      histogram?.observe({ stage }, (now - last) / 1000);
      last = now;
    },
  };
}
