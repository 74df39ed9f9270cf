/**
 * A concern's methods bound to it, so that a store's concerns (one class each, written once on a
 * `SqlDatabase`) can be joined into the one object its interface describes, without a forwarder per method.
 */
export function methodsOf<Concern extends object>(concern: Concern): { [Name in keyof Concern]: Concern[Name] } {
  const methods: Record<string, unknown> = {};
  for (const name of Object.getOwnPropertyNames(Object.getPrototypeOf(concern))) {
    const method: unknown = (concern as Record<string, unknown>)[name];
    if (name !== "constructor" && typeof method === "function") methods[name] = method.bind(concern);
  }
  return methods as { [Name in keyof Concern]: Concern[Name] };
}
