/**
 * One key's work one piece at a time, in this process: each piece starts when the one before it
 * under the same key has ended (done or failed); other keys' work goes on beside it. The App keys
 * a loop PR's events by the head they are about (`headOfEvent`), so GitHub's several deliveries
 * for one CI result are judged one after the other: the second reads what the first wrote.
 */
export function serialByKey(): <T>(key: string | undefined, work: () => Promise<T>) => Promise<T> {
  const tails = new Map<string, Promise<unknown>>();
  return async (key, work) => {
    if (key === undefined) return work();
    const mine = (tails.get(key) ?? Promise.resolve()).then(work);
    const tail = mine.then(
      () => undefined,
      () => undefined,
    );
    tails.set(key, tail);
    try {
      return await mine;
    } finally {
      // The last piece under its key: nothing waits on it, and the map keeps no key for long.
      if (tails.get(key) === tail) tails.delete(key);
    }
  };
}
