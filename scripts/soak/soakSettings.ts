/** Settings of `npm run soak`, read once from the environment (docs/benchmarks.md, "Soak"). */
import { resolve } from "node:path";
import { z } from "zod";

const positive = z.coerce.number().positive();

/** `npm run soak`'s environment (npm run docs:reference lists it with the SoakSettings doc comments). */
export const soakEnvironmentSchema = z.object({
  SOAK_MINUTES: positive.max(24 * 60).default(60),
  SOAK_RATE: positive.max(100).default(1),
  SOAK_BLOCK_MS: z.coerce.number().int().min(100).max(60_000).default(1000),
  SOAK_OUT_DIR: z.string().min(1).default("bench-results"),
  SOAK_DRAIN_SECONDS: positive.max(3600).default(360),
  SOAK_TAKERS: z.coerce.number().int().min(1).max(1000).default(20),
  SOAK_INTEGRATORS: z.coerce.number().int().min(1).max(100).default(4),
});

export type SoakSettings = {
  /** Length of the loaded run, before the drain. `SOAK_MINUTES`, default 60 (fractions allowed). */
  minutes: number;
  /** Multiplies every request rate of the normal load. `SOAK_RATE`, default 1. */
  rate: number;
  /** The chain's interval mining. `SOAK_BLOCK_MS`, default 1000. */
  blockMs: number;
  /** Where soak.json, soak.svg and the services' logs go. `SOAK_OUT_DIR`, default bench-results. */
  outDir: string;
  /** How long, after the load, accepted relays may take to become final before they count as lost. `SOAK_DRAIN_SECONDS`, default 360. */
  drainSeconds: number;
  /** Takers signing gasless relays (funded with USDC, Permit2 approved). `SOAK_TAKERS`, default 20. */
  takers: number;
  /** Integrators onboarded before the load (more join during the run). `SOAK_INTEGRATORS`, default 4. */
  integrators: number;
  /** minutes / 60: every period of the hour-long plan is multiplied by it. */
  scale: number;
  durationMs: number;
  /** The reporting window: 5 minutes in an hour, scaled (at least 10 s). */
  windowMs: number;
  /** The memory goal ignores a process's first 10 minutes (scaled, at least 20 s): its warm-up. */
  warmupMs: number;
  /** How often every process's RSS is read. */
  sampleMs: number;
};

export function loadSoakSettings(env: NodeJS.ProcessEnv = process.env): SoakSettings {
  const parsed = soakEnvironmentSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`invalid ${issue?.path.join(".") ?? "environment"}: ${issue?.message ?? ""}`);
  }
  const data = parsed.data;
  const scale = data.SOAK_MINUTES / 60;
  const windowMs = Math.max(10_000, Math.round(300_000 * scale));
  return {
    minutes: data.SOAK_MINUTES,
    rate: data.SOAK_RATE,
    blockMs: data.SOAK_BLOCK_MS,
    outDir: resolve(data.SOAK_OUT_DIR),
    drainSeconds: data.SOAK_DRAIN_SECONDS,
    takers: data.SOAK_TAKERS,
    integrators: data.SOAK_INTEGRATORS,
    scale,
    durationMs: Math.round(data.SOAK_MINUTES * 60_000),
    windowMs,
    warmupMs: Math.max(20_000, Math.round(600_000 * scale)),
    sampleMs: Math.max(1000, Math.round(windowMs / 30)),
  };
}
