/**
 * The soak's load: a bounded, open-loop mix at fixed rates (× SOAK_RATE, × the burst factor while a
 * burst lasts): firm quotes and prices from several integrators, gasless relays and their status
 * reads, supported-token snapshot polling with If-None-Match, onboarding of new integrators, and a
 * few hostile requests that must all be 4xx. Requests start on a 100-ms clock without waiting for
 * earlier ones; past MAX_IN_FLIGHT the clock skips (counted as shed) rather than queue without bound.
 */
import { randomUUID } from "node:crypto";
import { parseUnits, type LocalAccount } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { onboardIntegrator, OnboardingRequestError } from "../../sdk";
import type { SoakHttp } from "./soakHttp";
import type { Integrator, soakRelays } from "./soakRelays";
import type { RequestSample } from "./soakReport";

/** Requests a second at SOAK_RATE=1 (a relay is a gasless quote and a submission). */
export const BASE_RATES = { quote: 2, price: 2, relay: 0.5, status: 1, snapshot: 0.5, onboarding: 0.05, hostile: 0.3 } as const;
type Activity = keyof typeof BASE_RATES;
const MAX_IN_FLIGHT = 200;
const TICK_MS = 100;

export type LoadContext = {
  http: SoakHttp;
  relays: ReturnType<typeof soakRelays>;
  integrators: Integrator[];
  takers: LocalAccount[];
  chainId: number;
  now: () => number;
  record: (sample: RequestSample) => void;
};

const pickOne = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;

function hostileRequests(context: LoadContext): (() => Promise<unknown>)[] {
  const { http } = context;
  const key = () => pickOne(context.integrators).key;
  return [
    () => http.send("hostile", `/quote?${new URLSearchParams({ sell_token: "USDC", buy_token: "WETH", sell_amount: "-1" })}`, { key: key() }),
    () => http.send("hostile", `/quote?${new URLSearchParams({ sell_token: "USDC", buy_token: "WETH", sell_amount: "1000000" })}`, { key: `sk_live_${randomUUID()}` }),
    () => http.send("hostile", "/gasless/submit", { key: key(), body: '{"quote_id": "', contentType: "application/json" }),
    () => http.send("hostile", "/gasless/submit", { key: key(), json: { quote_id: randomUUID(), signature: `0x${"11".repeat(65)}` } }),
    () => http.send("hostile", `/gasless/status/${randomUUID()}`, { key: key() }),
    () => http.send("hostile", "/integrators/nonce", { json: { wallet: "0x0000000000000000000000000000000000000001", padding: "x".repeat(20_000) } }),
    () => http.send("hostile", `/price?${new URLSearchParams({ sell_token: `0x${"ab".repeat(20)}`, buy_token: "WETH", sell_amount: "1000" })}`, { key: key() }),
  ];
}

export function soakLoad(context: LoadContext, rate: number) {
  const { http } = context;
  let factor = 1;
  let inFlight = 0;
  let shed = 0;
  let stopped = false;
  let etag: string | undefined;
  let onboarded = 0;
  let generatorErrors = 0;
  const credits: Record<Activity, number> = { quote: 0, price: 0, relay: 0, status: 0, snapshot: 0, onboarding: 0, hostile: 0 };
  const pending = new Set<Promise<unknown>>();
  const hostile = hostileRequests(context);

  const activities: Record<Activity, () => Promise<unknown>> = {
    quote: () => {
      const sellWeth = Math.random() < 0.5;
      const params = new URLSearchParams({
        sell_token: sellWeth ? "WETH" : "USDC",
        buy_token: sellWeth ? "USDC" : "WETH",
        sell_amount: (sellWeth ? parseUnits((0.01 + Math.random()).toFixed(4), 18) : parseUnits(String(10 + Math.floor(Math.random() * 5000)), 6)).toString(),
        taker: pickOne(context.takers).address,
      });
      return http.send("quote", `/quote?${params}`, { key: pickOne(context.integrators).key });
    },
    price: () => {
      const params = new URLSearchParams({ sell_token: "USDC", buy_token: "WETH", sell_amount: parseUnits(String(1 + Math.floor(Math.random() * 10_000)), 6).toString(), taker: pickOne(context.takers).address });
      return http.send("price", `/price?${params}`, { key: pickOne(context.integrators).key });
    },
    relay: () => context.relays.relayOne(pickOne(context.takers), pickOne(context.integrators)),
    status: () => context.relays.readStatus(),
    snapshot: async () => {
      const answer = await http.send("snapshot", `/tokens/supported-tokens?chain_id=${context.chainId}`, etag === undefined ? {} : { headers: { "if-none-match": etag } });
      etag = answer?.headers.get("etag") ?? etag;
    },
    onboarding: async () => {
      const { url, instance } = http.pick();
      const atMs = context.now();
      const started = performance.now();
      const slug = `soak-late-${process.pid}-${onboarded++}`;
      try {
        const result = await onboardIntegrator({
          baseUrl: url,
          account: privateKeyToAccount(generatePrivateKey()),
          application: { chain_id: context.chainId, display_name: slug, slug, requested_max_fee_bps: 50 },
          keyLabel: slug,
        });
        context.record({ atMs, ms: performance.now() - started, kind: "onboarding", instance, status: 200 });
        if (result.apiKey !== undefined) context.integrators.push({ key: result.apiKey.secret, slug });
      } catch (error) {
        const status = error instanceof OnboardingRequestError ? error.status : 0;
        const code = error instanceof OnboardingRequestError ? error.code : ((error as { cause?: { code?: string } }).cause?.code ?? "error");
        context.record({ atMs, ms: performance.now() - started, kind: "onboarding", instance, status, ...(code === undefined ? {} : { code }) });
      }
    },
    hostile: () => pickOne(hostile)(),
  };

  const tick = () => {
    if (stopped) return;
    for (const activity of Object.keys(BASE_RATES) as Activity[]) {
      credits[activity] += (BASE_RATES[activity] * rate * factor * TICK_MS) / 1000;
      while (credits[activity] >= 1) {
        credits[activity] -= 1;
        if (inFlight >= MAX_IN_FLIGHT) {
          shed++;
          continue;
        }
        inFlight++;
        const running = activities[activity]()
          .catch((error: unknown) => {
            // The generator's own failures (not the API's answers, which are recorded): the first few are printed.
            if (++generatorErrors <= 20) process.stderr.write(`soak: ${activity} failed in the load generator: ${error instanceof Error ? error.message : String(error)}\n`);
          })
          .finally(() => {
            inFlight--;
            pending.delete(running);
          });
        pending.add(running);
      }
    }
  };
  const timer = setInterval(tick, TICK_MS);

  return {
    setFactor(value: number): void {
      factor = value;
    },
    inFlight: () => inFlight,
    shed: () => shed,
    /** Stops starting requests and waits for those in flight. */
    async stop(): Promise<void> {
      stopped = true;
      clearInterval(timer);
      await Promise.all([...pending]);
    },
  };
}
