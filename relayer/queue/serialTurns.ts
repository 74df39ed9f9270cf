/**
 * Runs async work one piece at a time, in call order: a check and the write it allows (a budget and
 * the relay it admits) are then never interleaved with another's in this process.
 */
export function serialTurns(): <T>(work: () => Promise<T>) => Promise<T> {
  let last: Promise<unknown> = Promise.resolve();
  return <T>(work: () => Promise<T>): Promise<T> => {
    const turn = last.then(work, work);
    last = turn.catch(() => undefined);
    return turn;
  };
}
