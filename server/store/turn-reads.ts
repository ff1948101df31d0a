// Reads by key that requests arriving together make in the same turn of the event loop, sent as
// one statement (PostgreSQL: one round trip for all of them instead of one each).
//
// Nothing is cached: a read joins only a statement that has not been sent yet, and every statement
// is sent after all the reads it answers were asked for. So each read sees every commit that ended
// before it was asked for, as its own statement would have; a change made by any instance (they
// share the database) applies from the next request, with no staleness bound to state.

/** At most this many keys in one statement; more wait for the next turn. */
const MAX_KEYS = 256;

/**
 * `load` reads the rows of the given distinct keys in one statement; `keyOf` names a row's key.
 * The result answers each key with its rows (none when it has none).
 */
export function turnReads<K, R>(
  load: (keys: K[]) => Promise<readonly R[]>,
  keyOf: (row: R) => K,
): (key: K) => Promise<readonly R[]> {
  let queued = new Map<K, Array<{ resolve(rows: readonly R[]): void; reject(err: unknown): void }>>();
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    let batch = queued;
    if (queued.size > MAX_KEYS) {
      const keys = [...queued.keys()];
      batch = new Map(keys.slice(0, MAX_KEYS).map((k) => [k, queued.get(k) ?? []]));
      queued = new Map(keys.slice(MAX_KEYS).map((k) => [k, queued.get(k) ?? []]));
      schedule();
    } else queued = new Map();
    load([...batch.keys()]).then(
      (rows) => {
        const byKey = new Map<K, R[]>();
        for (const row of rows) {
          const key = keyOf(row);
          const list = byKey.get(key);
          if (list) list.push(row);
          else byKey.set(key, [row]);
        }
        for (const [key, waiters] of batch) for (const w of waiters) w.resolve(byKey.get(key) ?? []);
      },
      (err: unknown) => {
        for (const waiters of batch.values()) for (const w of waiters) w.reject(err);
      },
    );
  };
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    // setImmediate: after the requests that arrived together have all reached their read.
    setImmediate(flush);
  };
  return (key) =>
    new Promise((resolve, reject) => {
      const waiters = queued.get(key);
      if (waiters) waiters.push({ resolve, reject });
      else queued.set(key, [{ resolve, reject }]);
      schedule();
    });
}
