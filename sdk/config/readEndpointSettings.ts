import { z } from "zod";
import { httpUrl } from "./httpUrl";

/** A comma-separated list of 1 to 8 http(s) URLs (RPC_URLS, RELAYER_SEND_URLS). */
export const httpUrlList = z
  .string()
  .trim()
  .transform((list) => list.split(",").map((url) => url.trim()).filter((url) => url !== ""))
  .pipe(z.array(httpUrl).min(1).max(8));

/**
 * The read endpoints' settings, shared by the API and the relayer (each documents them on its config
 * type): several JSON-RPC URLs of one chain, the head lag past which one is set aside, and how often
 * heads are probed (sdk/rpc/readEndpoints.ts).
 */
export const readEndpointSettings = {
  RPC_URLS: httpUrlList.optional(),
  RPC_MAX_HEAD_LAG_BLOCKS: z.coerce.number().int().min(0).max(1_000).default(3),
  RPC_PROBE_MS: z.coerce.number().int().min(50).max(60_000).default(1_000),
};

/** What each read-endpoint setting means, for every service that declares them. */
export const readEndpointSettingDocs = {
  RPC_URLS:
    "Several JSON-RPC endpoints of the chain for its reads, comma-separated, at most 8, instead of RPC_URL (refused together). Each request goes to the best-ranked endpoint (latency, requests without an answer, head height) and fails over to the next when it gets no answer; one whose head is more than RPC_MAX_HEAD_LAG_BLOCKS behind the others is set aside until it catches up. Default: RPC_URL alone.",
  RPC_MAX_HEAD_LAG_BLOCKS: "With several RPC_URLS, an endpoint more than this many blocks behind the highest head is set aside.",
  RPC_PROBE_MS: "With several RPC_URLS, how often each endpoint's head is read to rank them.",
} as const satisfies Record<keyof typeof readEndpointSettings, string>;

export type ReadEndpointConfig = Readonly<{ rpcUrls: readonly string[]; rpcMaxHeadLagBlocks: number; rpcProbeMs: number }>;

/** RPC_URLS, else RPC_URL (or the service's default) alone; both set is refused. */
export function readEndpointConfigOf(
  values: { RPC_URL?: string | undefined; RPC_URLS?: string[] | undefined; RPC_MAX_HEAD_LAG_BLOCKS: number; RPC_PROBE_MS: number },
  defaultUrl: string,
): ReadEndpointConfig {
  if (values.RPC_URL !== undefined && values.RPC_URLS !== undefined) throw new Error("invalid RPC_URLS: give RPC_URLS or RPC_URL, not both (RPC_URLS may list a single URL)");
  return { rpcUrls: values.RPC_URLS ?? [values.RPC_URL ?? defaultUrl], rpcMaxHeadLagBlocks: values.RPC_MAX_HEAD_LAG_BLOCKS, rpcProbeMs: values.RPC_PROBE_MS };
}
