/** A stored time (milliseconds since the epoch, as both engines keep it) as a Date; NULL as undefined. */
export function date(ms: number): Date;
export function date(ms: number | null): Date | undefined;
export function date(ms: number | null): Date | undefined {
  return ms === null ? undefined : new Date(ms);
}
