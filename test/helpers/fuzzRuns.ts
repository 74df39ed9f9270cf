import type { Parameters as FcParameters } from "fast-check";

/**
 * fast-check settings shared by the fuzz, differential and invariant suites. `npm test` runs a bounded
 * number of cases; `npm run test:fuzz` multiplies them (FUZZ_SCALE). The seed is random unless
 * FUZZ_SEED is set; it is printed once per run and fast-check repeats it in every failure report,
 * so `FUZZ_SEED=<seed> npm run test:fuzz` replays a failure.
 */
const seed = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
const scale = Number(process.env.FUZZ_SCALE ?? "1");
let announced = false;

export function fuzzRuns<T>(runs: number): FcParameters<T> {
  if (!announced) {
    announced = true;
    console.log(`      fuzz seed ${seed} (replay with FUZZ_SEED=${seed}), scale ${scale}`);
  }
  return { seed, numRuns: Math.max(1, Math.round(runs * scale)) };
}
