/**
 * Wraps an object (a store) so every async method's duration is reported to `observe` under the
 * method's name: the servers' store-latency metrics, for either engine. Not exported from `sdk/index.ts`.
 */
export function timedMethods<T extends object>(target: T, observe: (operation: string, seconds: number) => void): T {
  // One wrapper per method, made on first use: the store is called on every authenticated request.
  const wrappers = new Map<string, { method: unknown; timed: (...args: unknown[]) => unknown }>();
  return new Proxy(target, {
    get(object, property, receiver) {
      const value = Reflect.get(object, property, receiver) as unknown;
      if (typeof value !== "function" || typeof property !== "string") return value;
      const known = wrappers.get(property);
      if (known !== undefined && known.method === value) return known.timed;
      const timed = (...args: unknown[]) => {
        const started = process.hrtime.bigint();
        const result = (value as (...a: unknown[]) => unknown).apply(object, args);
        if (!(result instanceof Promise)) return result;
        return result.finally(() => observe(property, Number(process.hrtime.bigint() - started) / 1e9));
      };
      wrappers.set(property, { method: value, timed });
      return timed;
    },
  });
}
