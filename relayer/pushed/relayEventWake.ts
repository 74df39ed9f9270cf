import type { PushedStatusStore } from "../store/pushedStatusStore";

/**
 * Resolves at the next event notice of `integratorId` (any integrator's when undefined), after
 * `timeoutMs`, or when `closed` aborts, whichever is first. Taken before the read it guards, so an
 * event written between the read and the wait still wakes it: a long poll reads the store once per
 * event that concerns it, never on a timer (issue 28, finding 6).
 */
export function nextRelayEvent(store: PushedStatusStore, integratorId: number | undefined, timeoutMs: number, closed: AbortSignal): { woken: Promise<void>; cancel(): void } {
  let finish = () => undefined as void;
  const woken = new Promise<void>((resolve) => (finish = resolve));
  const timer = setTimeout(() => finish(), Math.max(0, timeoutMs));
  const stop = store.watchRelayEvents((notice) => {
    if (integratorId === undefined || notice.integratorId === undefined || notice.integratorId === integratorId) finish();
  });
  const abort = () => finish();
  closed.addEventListener("abort", abort, { once: true });
  const cancel = () => {
    clearTimeout(timer);
    stop();
    closed.removeEventListener("abort", abort);
    finish();
  };
  void woken.then(cancel);
  return { woken, cancel };
}
