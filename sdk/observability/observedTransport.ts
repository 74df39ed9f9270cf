import type { Transport } from "viem";

/** Told of every JSON-RPC request a transport made: its method, how long it took, and whether it failed. */
export type RpcObserver = (method: string, seconds: number, failed: boolean) => void;

/**
 * Wraps a viem transport so each request is reported to `observe` (the servers' RPC latency and
 * error metrics). Not exported from `sdk/index.ts`: it is the servers' concern, not integrators'.
 */
export function observedTransport(transport: Transport, observe: RpcObserver): Transport {
  return ((options: Parameters<Transport>[0]) => {
    const inner = transport(options);
    const request = (async (args: { method: string; params?: unknown }, requestOptions?: unknown) => {
      const started = process.hrtime.bigint();
      let failed = false;
      try {
        return await (inner.request as (a: unknown, o?: unknown) => Promise<unknown>)(args, requestOptions);
      } catch (error) {
        failed = true;
        throw error;
      } finally {
        observe(args.method, Number(process.hrtime.bigint() - started) / 1e9, failed);
      }
    }) as typeof inner.request;
    return { ...inner, request };
  }) as Transport;
}
