/** Which cap a new stream would exceed. */
export type StreamRefusal = "key" | "integrator" | "total";

/**
 * Open server-sent-event streams of this API process, counted per key, per integrator (all its keys)
 * and in total: SSE_MAX_STREAMS_PER_KEY, SSE_MAX_STREAMS_PER_INTEGRATOR, SSE_MAX_STREAMS. A place is
 * taken only when every cap has room.
 */
export class StreamSlots {
  readonly #perKey = new Map<number, number>();
  readonly #perIntegrator = new Map<number, number>();
  #total = 0;

  constructor(private readonly caps: Readonly<{ perKey: number; perIntegrator: number; total: number }>) {}

  /** Takes a place, or names the cap that has none. */
  acquire(keyId: number, integratorId: number): StreamRefusal | undefined {
    if ((this.#perKey.get(keyId) ?? 0) >= this.caps.perKey) return "key";
    if ((this.#perIntegrator.get(integratorId) ?? 0) >= this.caps.perIntegrator) return "integrator";
    if (this.#total >= this.caps.total) return "total";
    increment(this.#perKey, keyId, 1);
    increment(this.#perIntegrator, integratorId, 1);
    this.#total++;
    return undefined;
  }

  release(keyId: number, integratorId: number): void {
    increment(this.#perKey, keyId, -1);
    increment(this.#perIntegrator, integratorId, -1);
    this.#total--;
  }
}

function increment(counts: Map<number, number>, id: number, by: number): void {
  const next = (counts.get(id) ?? 0) + by;
  if (next <= 0) counts.delete(id);
  else counts.set(id, next);
}
