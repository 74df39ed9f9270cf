/** Where the API reads the time; tests pass their own to move time without sleeping. */
export type Clock = { now(): Date };

export const systemClock: Clock = { now: () => new Date() };
