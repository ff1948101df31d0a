// Nonces and rate-limit counters: small, hot, shared through the database so that every
// instance behind a load balancer sees the same replays and the same counts.
//
// Every signed request writes both, so their cost bounds the whole partner API. The writes of
// requests that arrive together are group-committed: queued for one turn of the event loop,
// then written in one transaction, one multi-row statement per table. The database still decides
// every outcome (so instances sharing it still agree), but a commit is paid per batch instead of
// per request, which on SQLite is most of a write's cost (about 80 µs alone, 20 µs in a batch of
// ten).
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.ts';

/** Rows per statement: far below both dialects' bound-parameter limits (4 parameters a row). */
const MAX_BATCH = 500;

interface NonceJob {
  keyId: string;
  nonce: string;
  expiresAt: number;
  now: number;
  resolve(fresh: boolean): void;
  reject(err: unknown): void;
}

interface HitJob {
  bucket: string;
  now: number;
  windowMs: number;
  resolve(result: { count: number; windowStart: number }): void;
  reject(err: unknown): void;
}

type Settle = () => void;

/** Whether the stored window has ended at the incoming row's time (its window_start is `now`). */
const windowEnded = sql<boolean>`rate_counters.window_start + (excluded.expires_at - excluded.window_start) <= excluded.window_start`;

export function replayGuardRepository(db: Kysely<Database>) {
  /**
   * Inserts the nonces (distinct pairs) in one statement; returns the pairs that were fresh. A
   * row whose retention has passed (expires_at before the oldest `now` of the batch) is reclaimed,
   * since such a request already fails the timestamp check.
   */
  async function writeNonces(executor: Kysely<Database>, jobs: NonceJob[]): Promise<Set<string>> {
    const now = Math.min(...jobs.map((j) => j.now));
    const rows = await executor
      .insertInto('nonces')
      .values(jobs.map((j) => ({ key_id: j.keyId, nonce: j.nonce, expires_at: j.expiresAt })))
      .onConflict((oc) => oc.columns(['key_id', 'nonce']).doUpdateSet({ expires_at: (eb) => eb.ref('excluded.expires_at') }).where('nonces.expires_at', '<', now))
      .returning(['key_id', 'nonce'])
      .execute();
    return new Set(rows.map((r) => `${r.key_id}\n${r.nonce}`));
  }

  /**
   * Counts `hits` requests in each bucket's current window, opening a new window when the stored
   * one has ended, in one statement (atomic on both dialects); buckets must be distinct. Returns
   * each bucket's count including these requests, and its window's start.
   */
  async function writeHits(executor: Kysely<Database>, groups: Array<{ bucket: string; now: number; windowMs: number; hits: number }>) {
    const rows = await executor
      .insertInto('rate_counters')
      .values(groups.map((g) => ({ bucket: g.bucket, count: g.hits, window_start: g.now, expires_at: g.now + g.windowMs })))
      .onConflict((oc) =>
        oc.column('bucket').doUpdateSet({
          count: sql<number>`CASE WHEN ${windowEnded} THEN excluded.count ELSE rate_counters.count + excluded.count END`,
          window_start: sql<number>`CASE WHEN ${windowEnded} THEN excluded.window_start ELSE rate_counters.window_start END`,
          expires_at: sql<number>`CASE WHEN ${windowEnded} THEN excluded.expires_at ELSE rate_counters.expires_at END`,
        }),
      )
      .returning(['bucket', 'count', 'window_start'])
      .execute();
    return new Map(rows.map((r) => [r.bucket, { count: Number(r.count), windowStart: Number(r.window_start) }]));
  }

  // The run functions write and return how to settle their requests; the caller settles them
  // once the batch's transaction has committed, never before.
  async function runNonces(executor: Kysely<Database>, jobs: NonceJob[]): Promise<Settle> {
    // The first request with a pair decides it; a later one in the same batch is its replay.
    const first = new Map<string, NonceJob>();
    for (const j of jobs) if (!first.has(`${j.keyId}\n${j.nonce}`)) first.set(`${j.keyId}\n${j.nonce}`, j);
    const fresh = await writeNonces(executor, [...first.values()]);
    return () => {
      for (const j of jobs) {
        const key = `${j.keyId}\n${j.nonce}`;
        j.resolve(first.get(key) === j && fresh.has(key));
      }
    };
  }

  async function runHits(executor: Kysely<Database>, jobs: HitJob[]): Promise<Settle> {
    // Requests of one bucket at one instant share a row (counted n at once); a bucket seen at
    // several instants is written once per instant, in arrival order, one layer per statement.
    const groups = new Map<string, Array<{ now: number; windowMs: number; jobs: HitJob[] }>>();
    for (const j of jobs) {
      const list = groups.get(j.bucket) ?? [];
      const last = list[list.length - 1];
      if (last && last.now === j.now && last.windowMs === j.windowMs) last.jobs.push(j);
      else list.push({ now: j.now, windowMs: j.windowMs, jobs: [j] });
      groups.set(j.bucket, list);
    }
    const settled: Array<() => void> = [];
    for (let layer = 0; ; layer++) {
      const rows = [...groups].flatMap(([bucket, list]) => {
        const group = list[layer];
        return group ? [{ bucket, now: group.now, windowMs: group.windowMs, jobs: group.jobs }] : [];
      });
      if (rows.length === 0) break;
      const counted = await writeHits(executor, rows.map((r) => ({ bucket: r.bucket, now: r.now, windowMs: r.windowMs, hits: r.jobs.length })));
      for (const r of rows) {
        const result = counted.get(r.bucket);
        if (!result) throw new Error(`rate counter ${r.bucket} was not written`);
        // The n requests are the last n counted, in arrival order.
        r.jobs.forEach((j, i) => settled.push(() => j.resolve({ count: result.count - r.jobs.length + i + 1, windowStart: result.windowStart })));
      }
    }
    return () => settled.forEach((settle) => settle());
  }

  // Inside a transaction there is no batching: the caller's transaction is the unit.
  const batcher = db.isTransaction ? undefined : writeBatcher(db, runNonces, runHits);

  return {
    /** Records a nonce for a key id; false when it is already tracked (a replay). */
    recordNonce(keyId: string, nonce: string, expiresAt: number, now: number): Promise<boolean> {
      return new Promise((resolve, reject) => {
        const job = { keyId, nonce, expiresAt, now, resolve, reject };
        if (batcher) batcher.nonce(job);
        else runNonces(db, [job]).then((settle) => settle(), reject);
      });
    },

    /**
     * Counts one request in the caller's current window, opening a new window when the stored one
     * has ended. Returns the count including this request and the window's start.
     */
    hit(bucket: string, now: number, windowMs: number): Promise<{ count: number; windowStart: number }> {
      return new Promise((resolve, reject) => {
        const job = { bucket, now, windowMs, resolve, reject };
        if (batcher) batcher.hit(job);
        else runHits(db, [job]).then((settle) => settle(), reject);
      });
    },

    /** Forgets what can no longer matter; keeps both tables bounded under steady load. */
    async purge(now: number): Promise<void> {
      await db.deleteFrom('nonces').where('expires_at', '<', now).execute();
      await db.deleteFrom('rate_counters').where('expires_at', '<', now).execute();
    },
  };
}

/**
 * Queues nonce and hit writes for one turn of the event loop (setImmediate runs once the
 * requests that arrived together have all reached this point), then writes them in one
 * transaction; a lone write skips the transaction. A failed batch fails each of its requests.
 */
function writeBatcher(
  db: Kysely<Database>,
  runNonces: (executor: Kysely<Database>, jobs: NonceJob[]) => Promise<Settle>,
  runHits: (executor: Kysely<Database>, jobs: HitJob[]) => Promise<Settle>,
) {
  let nonces: NonceJob[] = [];
  let hits: HitJob[] = [];
  let scheduled = false;

  const flush = async () => {
    scheduled = false;
    const n = nonces.splice(0, MAX_BATCH);
    const h = hits.splice(0, MAX_BATCH);
    if (nonces.length > 0 || hits.length > 0) schedule();
    const jobs: Array<NonceJob | HitJob> = [...n, ...h];
    let settles: Settle[];
    try {
      if (jobs.length === 1) settles = [await (n.length === 1 ? runNonces(db, n) : runHits(db, h))];
      else {
        settles = await db.transaction().execute(async (trx) => [...(n.length > 0 ? [await runNonces(trx, n)] : []), ...(h.length > 0 ? [await runHits(trx, h)] : [])]);
      }
    } catch (err) {
      for (const j of jobs) j.reject(err);
      return;
    }
    settles.forEach((settle) => settle());
  };
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => void flush());
  };
  return {
    nonce(job: NonceJob) {
      nonces.push(job);
      schedule();
    },
    hit(job: HitJob) {
      hits.push(job);
      schedule();
    },
  };
}

export type ReplayGuardRepository = ReturnType<typeof replayGuardRepository>;
