import { z } from "zod";

/** A comma-separated list of 1 to 8 http(s) URLs (RPC_URLS, RELAYER_SEND_URLS). */
export const httpUrlList = z
  .string()
  .trim()
  .transform((list) => list.split(",").map((url) => url.trim()).filter((url) => url !== ""))
  .pipe(z.array(z.url({ protocol: /^https?$/ })).min(1).max(8));

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

export type ReadEndpointConfig = Readonly<{ rpcUrls: readonly string[]; rpcMaxHeadLagBlocks: number; rpcProbeMs: number }>;

/** RPC_URLS, else RPC_URL (or the service's default) alone; both set is refused. */
export function readEndpointConfigOf(
  values: { RPC_URL?: string | undefined; RPC_URLS?: string[] | undefined; RPC_MAX_HEAD_LAG_BLOCKS: number; RPC_PROBE_MS: number },
  defaultUrl: string,
): ReadEndpointConfig {
  if (values.RPC_URL !== undefined && values.RPC_URLS !== undefined) throw new Error("invalid RPC_URLS: give RPC_URLS or RPC_URL, not both (RPC_URLS may list a single URL)");
  return { rpcUrls: values.RPC_URLS ?? [values.RPC_URL ?? defaultUrl], rpcMaxHeadLagBlocks: values.RPC_MAX_HEAD_LAG_BLOCKS, rpcProbeMs: values.RPC_PROBE_MS };
}
