/** Settings of `npm run soak`, read once from the environment (docs/benchmarks.md, "Soak"). */
import { resolve } from "node:path";
import { z } from "zod";
import { environmentSchemaOf, readSettings, setting } from "../../sdk/config/settingDeclaration";

const positive = z.coerce.number().positive();

/**
 * `npm run soak`'s environment, declared once: each variable's parser (with its default) and its meaning.
 * `loadSoakSettings` parses them, `npm run docs:reference` lists them (docs/reference/environment.md).
 */
export const soakSettings = {
  SOAK_MINUTES: setting(positive.max(24 * 60).default(60), "Length of the loaded run, before the drain, in minutes (fractions allowed); every period of the hour-long plan is scaled by it."),
  SOAK_RATE: setting(positive.max(100).default(1), "Multiplies every request rate of the normal load."),
  SOAK_BLOCK_MS: setting(z.coerce.number().int().min(100).max(60_000).default(1000), "The chain's interval mining, in milliseconds."),
  SOAK_OUT_DIR: setting(z.string().min(1).default("bench-results"), "Where soak.json, soak.svg and the services' logs go."),
  SOAK_DRAIN_SECONDS: setting(positive.max(3600).default(360), "How long, after the load, accepted relays may take to become final before they count as lost."),
  SOAK_TAKERS: setting(z.coerce.number().int().min(1).max(1000).default(20), "Takers signing gasless relays (funded with USDC, Permit2 approved)."),
  SOAK_INTEGRATORS: setting(z.coerce.number().int().min(1).max(100).default(4), "Integrators onboarded before the load (more join during the run)."),
};

/** `npm run soak`'s environment as one zod object (the settings' parsers). */
export const soakEnvironmentSchema = environmentSchemaOf(soakSettings);

/** The soak's settings as the run takes them; what each variable means: `soakSettings`. */
export type SoakSettings = {
  /** SOAK_MINUTES. */
  minutes: number;
  /** SOAK_RATE. */
  rate: number;
  /** SOAK_BLOCK_MS. */
  blockMs: number;
  /** SOAK_OUT_DIR, resolved. */
  outDir: string;
  /** SOAK_DRAIN_SECONDS. */
  drainSeconds: number;
  /** SOAK_TAKERS. */
  takers: number;
  /** SOAK_INTEGRATORS. */
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

/** Reads the soak's settings from the environment once; every invalid value is reported at once, each named. */
export function loadSoakSettings(env: NodeJS.ProcessEnv = process.env): SoakSettings {
  const data = readSettings(soakSettings, env);
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
