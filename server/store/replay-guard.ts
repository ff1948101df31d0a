// Nonces and rate-limit counters: small, hot, shared through the database so that every
// instance behind a load balancer sees the same replays and the same counts.
//
// Every signed request writes both, so their cost bounds the whole partner API. The writes of
// requests that arrive together are group-committed: queued for two turns of the event loop,
// then written in one transaction, one multi-row statement per table. The database still decides
// every outcome (so instances sharing it still agree), but a commit is paid per batch instead of
// per request, which on SQLite is most of a write's cost (bench/README.md, "Figures behind design
// choices").
//
// Their commits do not wait for the disk (the partner document's x-signing, nonce-store): once
// committed, every instance sees them and a crash of the process loses nothing, but a power loss
// may take back those of the last moments, on SQLite at most DEFERRED_FLUSH_MS (direct.ts), on
// PostgreSQL what its asynchronous commit may (three times wal_writer_delay). Waiting for the
// disk cost a signed GET about a fifth of its throughput (bench/README.md), for a guarantee that
// only a replay within five minutes of a power loss would need. Orders, events and idempotency
// records are never written here, and keep waiting for the disk.
// SQLite keeps its nonces in an append-only log indexed in memory (nonce-ledger.ts), since a
// unique index on random nonces costs a commit one written page per nonce; PostgreSQL decides
// through its table's unique key.
import { sql, type CompiledQuery, type Kysely } from 'kysely';
import type { DirectSqlite } from './direct.ts';
import { pairKey, type Append, type NonceLedger, type NonceLogRow } from './nonce-ledger.ts';
import { template, type Template } from './prepared.ts';
import type { Database } from './schema.ts';
import { runSteps, type Steps } from './steps.ts';

/** Rows per statement: far below both dialects' bound-parameter limits (4 parameters a row). */
const MAX_BATCH = 500;
/** Rows of the nonce log deleted (and pairs the ledger forgets) per statement of a purge: a few ms each. */
const PURGE_SLICE = 2000;
/**
 * The purge's pause between two of its statements. With only a turn of the event loop between
 * them, every turn ran one, and a request, whose batch waits two turns, waited for two or three:
 * a p99 of 22 to 37 ms and answers of up to 68 ms through the purge's seconds at a steady load;
 * with this pause 9 to 11 ms and up to 21 ms (bench/README.md, "Issue 36, ninth session").
 */
export const PURGE_PAUSE_MS = 5;
const pause = () => new Promise<void>((resolve) => setTimeout(resolve, PURGE_PAUSE_MS));
/** Rows of the nonce log the ledger learns per statement when it first reads the log: a few ms each. */
export const CATCH_UP_SLICE = 5000;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

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
  resolve(result: Counted): void;
  reject(err: unknown): void;
}

/** A request counted in its window: its count (this request included) and the window's start. */
export interface Counted {
  count: number;
  windowStart: number;
}

/**
 * A signed request's admission: its nonce is fresh and it is counted, or it is a replay and is not.
 * `stale`: nothing was written, since the rows the request was read with (its `readEpoch`) may have
 * changed; it must read them again and ask again.
 */
export type Admission = ({ fresh: true } & Counted) | { fresh: false; stale?: true };

/** Asked with the epoch of rows read trusting the cache (row-cache.ts): read them again, ask again. */
const STALE: Admission = Object.freeze({ fresh: false, stale: true });
const REPLAY: Admission = Object.freeze({ fresh: false });

type Settle = () => void;

/**
 * The statements of some requests: yields each statement and receives its rows, so a later
 * statement can depend on an earlier one's outcome in the same transaction; returns how to answer
 * the requests, called only once the transaction is durable. A generator, so one plan runs both
 * synchronously on embedded SQLite (direct.ts) and awaiting each statement through Kysely.
 */
type Plan = Steps<Settle>;

/** Whether the stored window has ended at the incoming row's time (its window_start is `now`). */
const windowEnded = sql<boolean>`rate_counters.window_start + (excluded.expires_at - excluded.window_start) <= excluded.window_start`;

const pairOf = (j: { keyId: string; nonce: string }) => pairKey(j.keyId, j.nonce);

/** The first job of each pair, by pair: a later one in the same batch is its replay. */
function firstOfEachPair<J extends { keyId: string; nonce: string }>(jobs: readonly J[]): Map<string, J> {
  const first = new Map<string, J>();
  for (const j of jobs) {
    const pair = pairOf(j);
    if (!first.has(pair)) first.set(pair, j);
  }
  return first;
}

/** Sorts [key, value] entries by key (a total order every instance shares). */
const byKey = ([x]: [string, unknown], [y]: [string, unknown]) => (x < y ? -1 : x > y ? 1 : 0);

/** A nonce's three bound values, in the order of `nonceRows`. */
const nonceValues = (j: { keyId: string; nonce: string; expiresAt: number }) => [j.keyId, j.nonce, j.expiresAt];
const nonceRows = (a: unknown[], n: number) =>
  Array.from({ length: n }, (_, i) => ({
    key_id: a[3 * i] as string,
    nonce: a[3 * i + 1] as string,
    expires_at: a[3 * i + 2] as number,
  }));

export interface ReplayGuardOptions {
  /** Embedded SQLite in a file: the database itself, never a transaction (direct.ts). */
  direct?: DirectSqlite;
  /** PostgreSQL: the database's pool whose commits do not wait for the disk (database.ts). */
  relaxed?: Kysely<Database>;
  /** SQLite: its nonces are logged and indexed in memory, one ledger per database (nonce-ledger.ts). */
  ledger?: NonceLedger;
}

export function replayGuardRepository(db: Kysely<Database>, options: ReplayGuardOptions = {}) {
  const { direct, ledger, relaxed } = options;
  const setLocalAsynchronousCommit = sql`set local synchronous_commit = off`.compile(db);
  const dataVersion = sql<{ data_version: unknown }>`pragma data_version`.compile(db);
  // Both statements are built once per row count: building them with Kysely on every batch cost
  // as much as running them. Arguments: the rows' values in order, then (nonces) the batch's `now`.
  const insertNoncesQuery = perRowCount((n) =>
    template<unknown[], { key_id: string; nonce: string }>(3 * n + 1, (...a) =>
      db
        .insertInto('nonces')
        .values(nonceRows(a, n))
        .onConflict((oc) =>
          oc
            .columns(['key_id', 'nonce'])
            .doUpdateSet({ expires_at: (eb) => eb.ref('excluded.expires_at') })
            .where('nonces.expires_at', '<', a[3 * n] as number),
        )
        .returning(['key_id', 'nonce']),
    ),
  );
  // PostgreSQL: a batch of admissions in one statement (admitAtOnce). Arguments: each distinct
  // pair's key id, nonce, expiry, bucket, window start, window end and the digest of the
  // credential row it was verified with, or null when read for this request (sorted by pair), then
  // the batch's `now`. A pair whose row no longer has that digest writes nothing and is answered
  // `stale`: the statement sees every commit made before it started.
  const admitQuery = perRowCount((n) =>
    template<
      unknown[],
      {
        kind: 'fresh' | 'count' | 'stale';
        a: string;
        b: string | null;
        count: number | string | null;
        window_start: number | string | null;
      }
    >(7 * n + 1, (...a) => {
      const row = (i: number) => a.slice(7 * i, 7 * i + 7);
      const nonceValues = sql.join(
        Array.from(
          { length: n },
          (_, i) => sql`(${row(i)[0]}, ${row(i)[1]}, ${row(i)[2]}::bigint, ${row(i)[6]}::text)`,
        ),
      );
      const hitValues = sql.join(
        Array.from(
          { length: n },
          (_, i) => sql`(${row(i)[3]}, ${row(i)[0]}, ${row(i)[1]}, ${row(i)[4]}::bigint, ${row(i)[5]}::bigint)`,
        ),
      );
      const statement = sql<{
        kind: 'fresh' | 'count' | 'stale';
        a: string;
        b: string | null;
        count: number | string | null;
        window_start: number | string | null;
      }>`
        with arriving (key_id, nonce, expires_at, digest) as (values ${nonceValues}),
        checked as (
          select arriving.key_id, arriving.nonce, arriving.expires_at, arriving.digest is null or exists (
            select 1 from credentials where credentials.key_id = arriving.key_id and md5(credentials::text) = arriving.digest
          ) as confirmed from arriving),
        fresh as (
          insert into nonces (key_id, nonce, expires_at) select key_id, nonce, expires_at from checked where confirmed
          on conflict (key_id, nonce) do update set expires_at = excluded.expires_at where nonces.expires_at < ${a[7 * n]}
          returning key_id, nonce),
        hit (bucket, key_id, nonce, window_start, expires_at) as (values ${hitValues}),
        counted as (
          insert into rate_counters (bucket, count, window_start, expires_at)
          select hit.bucket, count(*), min(hit.window_start), min(hit.expires_at) from hit join fresh on fresh.key_id = hit.key_id and fresh.nonce = hit.nonce
          group by hit.bucket order by hit.bucket
          on conflict (bucket) do update set
            count = case when ${windowEnded} then excluded.count else rate_counters.count + excluded.count end,
            window_start = case when ${windowEnded} then excluded.window_start else rate_counters.window_start end,
            expires_at = case when ${windowEnded} then excluded.expires_at else rate_counters.expires_at end
          returning bucket, count, window_start)
        select 'fresh' as kind, key_id as a, nonce as b, null::bigint as count, null::bigint as window_start from fresh
        union all select 'count', bucket, null, count, window_start from counted
        union all select 'stale', key_id, nonce, null, null from checked where not confirmed`;
      return { compile: () => statement.compile(db) };
    }),
  );
  const nonceLogAfter = template<[number, number], NonceLogRow>(2, (after, now) =>
    db
      .selectFrom('nonce_log')
      .select(['seq', 'key_id', 'nonce', 'expires_at'])
      .where('seq', '>', after)
      .where('expires_at', '>=', now),
  );
  // Expired rows too: which have expired depends on the requests' clock, and the purge soon
  // takes them (the ledger forgets them with it).
  const nonceLogSlice = template<[number], NonceLogRow>(1, (after) =>
    db
      .selectFrom('nonce_log')
      .select(['seq', 'key_id', 'nonce', 'expires_at'])
      .where('seq', '>', after)
      .orderBy('seq')
      .limit(CATCH_UP_SLICE),
  );
  const appendNoncesQuery = perRowCount((n) =>
    template<unknown[], NonceLogRow>(3 * n, (...a) =>
      db.insertInto('nonce_log').values(nonceRows(a, n)).returning(['seq', 'key_id', 'nonce', 'expires_at']),
    ),
  );
  const countHitsQuery = perRowCount((n) =>
    template<unknown[], { bucket: string; count: number | string; window_start: number | string }>(4 * n, (...a) =>
      db
        .insertInto('rate_counters')
        .values(
          Array.from({ length: n }, (_, i) => ({
            bucket: a[4 * i] as string,
            count: a[4 * i + 1] as number,
            window_start: a[4 * i + 2] as number,
            expires_at: a[4 * i + 3] as number,
          })),
        )
        .onConflict((oc) =>
          oc.column('bucket').doUpdateSet({
            count: sql<number>`CASE WHEN ${windowEnded} THEN excluded.count ELSE rate_counters.count + excluded.count END`,
            window_start: sql<number>`CASE WHEN ${windowEnded} THEN excluded.window_start ELSE rate_counters.window_start END`,
            expires_at: sql<number>`CASE WHEN ${windowEnded} THEN excluded.expires_at ELSE rate_counters.expires_at END`,
          }),
        )
        .returning(['bucket', 'count', 'window_start']),
    ),
  );

  /**
   * Inserts the nonces (distinct pairs) in one statement; gives the pairs that were fresh. A row
   * whose retention has passed (expires_at before the oldest `now` of the batch) is reclaimed,
   * since such a request already fails the timestamp check. The first request with a pair
   * decides it; a later one in the same batch is its replay, so `isFresh` answers per request.
   */
  function* insertNonces(
    jobs: ReadonlyArray<Omit<NonceJob, 'resolve' | 'reject'>>,
  ): Generator<CompiledQuery, NonceDecision, unknown[]> {
    const first = firstOfEachPair(jobs);
    // In one order on every instance: PostgreSQL locks each inserted key until commit, and two
    // instances inserting {a, b} and {b, a} would each wait for the other (a deadlock, one of
    // them failed). The counters below are sorted for the same reason.
    const distinct = [...first].sort(byKey).map(([, j]) => j);
    const now = Math.min(...distinct.map((j) => j.now));
    const args: unknown[] = [...distinct.flatMap(nonceValues), now];
    const rows = (yield insertNoncesQuery(distinct.length)(args)) as Array<{ key_id: string; nonce: string }>;
    const fresh = new Set(rows.map((r) => pairOf({ keyId: r.key_id, nonce: r.nonce })));
    return {
      isFresh: (job) => {
        const key = pairOf(job as { keyId: string; nonce: string });
        return first.get(key) === job && fresh.has(key);
      },
      committed: () => undefined,
    };
  }

  /**
   * SQLite: the same decision against the ledger. Reads the log past what the ledger has learned
   * (in the write transaction, so nothing can be committed meanwhile), unless the ledger is
   * complete at `epoch` (nonce-ledger.ts), then appends the fresh pairs, learned once committed.
   * Inside a caller's transaction the rows read may include that transaction's own, not yet
   * committed: they count for this decision but are not learned, since it may roll back.
   */
  function* logNonces(
    jobs: ReadonlyArray<Omit<NonceJob, 'resolve' | 'reject'>>,
    known: NonceLedger,
    epoch: number | undefined,
  ): Generator<CompiledQuery, NonceDecision, unknown[]> {
    const first = firstOfEachPair(jobs);
    const now = Math.min(...jobs.map((j) => j.now));
    const uncommitted = new Map<string, number>();
    if (db.isTransaction || epoch === undefined || !known.completeAt(epoch)) {
      const tail = (yield nonceLogAfter([known.after, now])) as NonceLogRow[];
      if (db.isTransaction) for (const r of tail) uncommitted.set(pairKey(r.key_id, r.nonce), Number(r.expires_at));
      else {
        known.learn(tail);
        known.readAt(epoch);
      }
    }
    const fresh = [...first]
      .filter(([pair, j]) => !known.used(j.keyId, j.nonce, now) && !((uncommitted.get(pair) ?? -Infinity) >= now))
      .map(([, j]) => j);
    if (fresh.length === 0) return NONE_FRESH;
    const append: Append = known.appending();
    const rows = (yield appendNoncesQuery(fresh.length)(fresh.flatMap(nonceValues))) as NonceLogRow[];
    const admitted = new Set<object>(fresh);
    return {
      isFresh: (job) => admitted.has(job),
      committed: () => {
        if (!db.isTransaction) known.appended(append, rows, epoch);
      },
    };
  }

  const decideNonces = (jobs: ReadonlyArray<Omit<NonceJob, 'resolve' | 'reject'>>, epoch: number | undefined) =>
    ledger ? logNonces(jobs, ledger, epoch) : insertNonces(jobs);

  /**
   * SQLite with rows kept in memory (direct.ts): whether another connection has committed, read in
   * the write transaction, where it takes no lock of its own; the kept rows' epoch after
   * (row-cache.ts `observe`). Undefined elsewhere.
   */
  function* observedEpoch(): Generator<CompiledQuery, number | undefined, unknown[]> {
    if (!direct || !ledger) return undefined;
    const [row] = (yield dataVersion) as Array<{ data_version: unknown }>;
    return direct.observe(row?.data_version);
  }

  /**
   * Counts the requests in their buckets' current windows, opening a new window when the stored
   * one has ended (atomic on both dialects). Requests of one bucket at one instant share a row
   * (counted n at once); a bucket seen at several instants is written once per instant, in
   * arrival order, one layer per statement. Gives each request its count.
   */
  function* countHits(
    jobs: ReadonlyArray<Omit<HitJob, 'resolve' | 'reject'>>,
  ): Generator<CompiledQuery, (job: object) => Counted, unknown[]> {
    const groups = new Map<string, Array<{ now: number; windowMs: number; jobs: object[] }>>();
    for (const j of jobs) {
      const list = groups.get(j.bucket) ?? [];
      const last = list[list.length - 1];
      if (last && last.now === j.now && last.windowMs === j.windowMs) last.jobs.push(j);
      else list.push({ now: j.now, windowMs: j.windowMs, jobs: [j] });
      groups.set(j.bucket, list);
    }
    const counted = new Map<object, Counted>();
    const buckets = [...groups].sort(byKey);
    for (let layer = 0; ; layer++) {
      const rows = buckets.flatMap(([bucket, list]) => {
        const group = list[layer];
        return group ? [{ bucket, ...group }] : [];
      });
      if (rows.length === 0) break;
      const args = rows.flatMap((g) => [g.bucket, g.jobs.length, g.now, g.now + g.windowMs]);
      const written = (yield countHitsQuery(rows.length)(args)) as Array<{
        bucket: string;
        count: number | string;
        window_start: number | string;
      }>;
      const byBucket = new Map(written.map((r) => [r.bucket, r]));
      for (const r of rows) {
        const result = byBucket.get(r.bucket);
        if (!result) throw new Error(`rate counter ${r.bucket} was not written`);
        // The n requests are the last n counted, in arrival order.
        const count = Number(result.count);
        r.jobs.forEach((j, k) =>
          counted.set(j, { count: count - r.jobs.length + k + 1, windowStart: Number(result.window_start) }),
        );
      }
    }
    return (job) => counted.get(job) as Counted;
  }

  function* nonces(jobs: NonceJob[]): Plan {
    const decided = yield* decideNonces(jobs, yield* observedEpoch());
    return () => {
      decided.committed();
      jobs.forEach((j) => j.resolve(decided.isFresh(j)));
    };
  }

  function* hits(jobs: HitJob[]): Plan {
    const countOf = yield* countHits(jobs);
    return () => jobs.forEach((j) => j.resolve(countOf(j)));
  }

  /**
   * Nonces first; only requests whose nonce was fresh are counted (a replay spends no quota). A
   * request read with rows that may have changed since (its `readEpoch` is no longer the kept
   * rows' epoch) is neither: it is answered stale, to read them again.
   */
  function* admissions(jobs: AdmissionJob[]): Plan {
    const epoch = yield* observedEpoch();
    // A digest is checked only by the one-statement admission (admitAtOnce); here it is stale.
    const stale = (j: AdmissionJob) => (j.readEpoch !== undefined && j.readEpoch !== epoch) || j.digest !== undefined;
    const live = jobs.filter((j) => !stale(j));
    const decided = live.length > 0 ? yield* decideNonces(live, epoch) : NONE_FRESH;
    const admitted = live.filter(decided.isFresh);
    const countOf = admitted.length > 0 ? yield* countHits(admitted) : () => undefined;
    return () => {
      decided.committed();
      jobs.forEach((j) =>
        j.resolve(stale(j) ? STALE : decided.isFresh(j) ? { fresh: true, ...(countOf(j) as Counted) } : REPLAY),
      );
    };
  }

  /**
   * SQLite: the ledger learns the committed log a slice at a time, a turn between slices, before
   * the first batch decides; that batch then reads in its write transaction only what was
   * committed since. A restart after a busy spell finds up to a retention's rows (900,000 at a
   * steady 2,800 signed requests a second): read in the first batch's transaction, they held the
   * event loop for seconds, every other request waiting (bench/README.md).
   */
  let caughtUp = !ledger || db.isTransaction;
  let catchingUp: Promise<void> | undefined;
  const catchUp = (known: NonceLedger) =>
    (catchingUp ??= (async () => {
      try {
        for (;;) {
          const rows = (await db.executeQuery(nonceLogSlice([known.after]))).rows;
          known.learn(rows);
          if (rows.length < CATCH_UP_SLICE) break;
          await nextTurn();
        }
        caughtUp = true;
      } finally {
        // A failure is the jobs' (run rejects them); the next batch starts again from what was learned.
        catchingUp = undefined;
      }
    })());

  /** Runs the plans in one transaction (inside the caller's, when `db` is one) and, once durable, settles them. */
  async function run(plans: Plan[], jobs: ReadonlyArray<{ reject(err: unknown): void }>): Promise<void> {
    try {
      if (!caughtUp && ledger) await catchUp(ledger);
      const settles = await execute(function* () {
        const out: Settle[] = [];
        for (const plan of plans) out.push(yield* plan);
        return out;
      });
      settles.forEach((settle) => settle());
    } catch (err) {
      // A request already answered keeps its answer (a promise settles once).
      for (const j of jobs) j.reject(err);
    }
  }

  function execute<T>(plan: () => Steps<T>): Promise<T> {
    // SQLite reads the log before it writes, so the transaction takes the write lock first: a
    // deferred one could see another process commit between the read and the write.
    if (ledger || db.isTransaction) return runSteps(db, direct, plan, { commit: 'deferred', immediate: true });
    // PostgreSQL's asynchronous commit: on the relaxed pool's connections it is their setting
    // (database.ts); elsewhere it is set for this transaction alone, one statement more.
    if (relaxed) return runSteps(relaxed, undefined, plan, { commit: 'deferred' });
    return runSteps(db, undefined, () => relaxedCommit(plan()), { commit: 'deferred' });
  }

  function* relaxedCommit<T>(steps: Steps<T>): Steps<T> {
    yield setLocalAsynchronousCommit;
    return yield* steps;
  }

  /**
   * PostgreSQL, a batch of admissions only: the nonces and the counts in one statement instead of
   * a transaction of four or more (BEGIN, the nonces, a counts statement per instant, COMMIT). The
   * counts join the nonces the statement found fresh, so a replay still spends no quota; the rows
   * are taken in one order (pairs, then buckets), as in the transaction. One statement counts each
   * bucket at one instant, so the batch is cut, in arrival order, into layers in which each bucket
   * is at one instant (one layer as good as always; under load a turn spans a few ms, and the
   * batch then has two or three), written one after the other: each bucket is still counted at
   * its instants in arrival order, and a pair already admitted by an earlier layer is a replay
   * (its row is there). Undefined: the batch is not of admissions alone (the transaction).
   */
  function admissionLayers(batch: Batch): AdmissionJob[][] | undefined {
    if (ledger || batch.nonces.length > 0 || batch.hits.length > 0 || batch.admissions.length === 0) return undefined;
    const layers: AdmissionJob[][] = [];
    let layer: AdmissionJob[] = [];
    let instant = new Map<string, string>();
    for (const j of batch.admissions) {
      const at = `${j.now}:${j.windowMs}`;
      if ((instant.get(j.bucket) ?? at) !== at) {
        layers.push(layer);
        layer = [];
        instant = new Map();
      }
      instant.set(j.bucket, at);
      layer.push(j);
    }
    layers.push(layer);
    return layers;
  }

  async function admitInLayers(layers: AdmissionJob[][]): Promise<void> {
    // admitAtOnce settles its own jobs, failure included, so a later layer still runs.
    for (const layer of layers) await admitAtOnce(layer);
  }

  async function admitAtOnce(jobs: AdmissionJob[]): Promise<void> {
    try {
      const first = firstOfEachPair(jobs);
      const distinct = [...first].sort(byKey).map(([, j]) => j);
      const now = Math.min(...distinct.map((j) => j.now));
      const args = [
        ...distinct.flatMap((j) => [
          j.keyId,
          j.nonce,
          j.expiresAt,
          j.bucket,
          j.now,
          j.now + j.windowMs,
          j.digest ?? null,
        ]),
        now,
      ];
      const rows = (await (relaxed ?? db).executeQuery(admitQuery(distinct.length)(args))).rows;
      const fresh = new Set(rows.filter((r) => r.kind === 'fresh').map((r) => pairKey(r.a, r.b as string)));
      const stale = new Set(rows.filter((r) => r.kind === 'stale').map((r) => pairKey(r.a, r.b as string)));
      const counts = new Map(
        rows
          .filter((r) => r.kind === 'count')
          .map((r) => [r.a, { count: Number(r.count), windowStart: Number(r.window_start) }]),
      );
      // A later job of a pair in the same batch is its replay, whatever the first was answered.
      const firstOfPair = (j: AdmissionJob) => first.get(pairOf(j)) === j;
      const isFresh = (j: AdmissionJob) => firstOfPair(j) && fresh.has(pairOf(j));
      // Each bucket's fresh requests are its last n counted, in arrival order.
      const admitted = new Map<string, AdmissionJob[]>();
      for (const j of jobs) if (isFresh(j)) admitted.set(j.bucket, [...(admitted.get(j.bucket) ?? []), j]);
      const counted = new Map<AdmissionJob, Counted>();
      for (const [bucket, list] of admitted) {
        const written = counts.get(bucket);
        if (!written) throw new Error(`rate counter ${bucket} was not written`);
        list.forEach((j, k) =>
          counted.set(j, { count: written.count - list.length + k + 1, windowStart: written.windowStart }),
        );
      }
      for (const j of jobs)
        j.resolve(
          isFresh(j)
            ? { fresh: true, ...(counted.get(j) as Counted) }
            : firstOfPair(j) && stale.has(pairOf(j))
              ? STALE
              : REPLAY,
        );
    } catch (err) {
      for (const j of jobs) j.reject(err);
    }
  }

  // Inside a transaction there is no batching: the caller's transaction is the unit.
  const batcher = db.isTransaction
    ? undefined
    : writeBatcher((batch) => {
        const layers = admissionLayers(batch);
        return layers
          ? admitInLayers(layers)
          : run(
              [
                ...(batch.nonces.length ? [nonces(batch.nonces)] : []),
                ...(batch.hits.length ? [hits(batch.hits)] : []),
                ...(batch.admissions.length ? [admissions(batch.admissions)] : []),
              ],
              [...batch.nonces, ...batch.hits, ...batch.admissions],
            );
      });

  return {
    /**
     * SQLite: learns the committed nonce log now, a slice at a time, instead of on the first
     * batch; gives the ledger's size after. A server calls it before it listens, so that no
     * request waits for it: restarted onto a steady load's log (900,000 rows) its first requests
     * waited about 3 s (bench/README.md). Elsewhere nothing to learn: 0.
     */
    async learnLog(): Promise<number> {
      if (!ledger) return 0;
      if (!caughtUp) await catchUp(ledger);
      return ledger.size;
    },

    /** Records a nonce for a key id; false when it is already tracked (a replay). */
    recordNonce(keyId: string, nonce: string, expiresAt: number, now: number): Promise<boolean> {
      return new Promise((resolve, reject) => {
        const job = { keyId, nonce, expiresAt, now, resolve, reject };
        if (batcher) batcher.add('nonces', job);
        else void run([nonces([job])], [job]);
      });
    },

    /**
     * Counts one request in the caller's current window, opening a new window when the stored one
     * has ended. Returns the count including this request and the window's start.
     */
    hit(bucket: string, now: number, windowMs: number): Promise<Counted> {
      return new Promise((resolve, reject) => {
        const job = { bucket, now, windowMs, resolve, reject };
        if (batcher) batcher.add('hits', job);
        else void run([hits([job])], [job]);
      });
    },

    /**
     * A signed request's nonce and rate-limit count in one write: `recordNonce`, then, only for a
     * fresh nonce, `hit`. One durable commit per request instead of two.
     */
    admit(
      request: {
        keyId: string;
        nonce: string;
        expiresAt: number;
        bucket: string;
        windowMs: number;
        /** The epoch of rows read trusting the cache (row-cache.ts): stale if it has moved. */
        readEpoch?: number | undefined;
        /**
         * PostgreSQL: the digest of the credential row the signature was verified with, when it was
         * not read for this request (credentials.ts `lastRead`): stale if the row has changed since.
         */
        digest?: string | undefined;
      },
      now: number,
    ): Promise<Admission> {
      return new Promise((resolve, reject) => {
        // Written out: a spread followed by more properties takes V8's slow path (about 0.6 to 2 µs
        // an object on Node 20; bench/README.md, "Figures behind design choices").
        const { keyId, nonce, expiresAt, bucket, windowMs, readEpoch, digest } = request;
        const job = { keyId, nonce, expiresAt, bucket, windowMs, readEpoch, digest, now, resolve, reject };
        if (batcher) batcher.add('admissions', job);
        else void run([admissions([job])], [job]);
      });
    },

    /**
     * Forgets what can no longer matter; keeps both tables bounded under steady load. On SQLite
     * every statement runs on the event loop, so the log is purged a slice at a time, with a pause
     * between slices for the requests waiting (at a steady 2,800 signed requests a second a
     * minute's expired rows, 150,000, took one statement 280 ms; bench/README.md).
     */
    async purge(now: number): Promise<void> {
      if (ledger) {
        for (;;) {
          // The newest row stays whatever its age: the next row's seq must be higher than every
          // seq a ledger has learned, and SQLite gives max(rowid) + 1.
          const { numDeletedRows } = await db
            .deleteFrom('nonce_log')
            .where('seq', 'in', (eb) =>
              eb
                .selectFrom('nonce_log')
                .select('seq')
                .where('expires_at', '<', now)
                .where('seq', '<', (e) => e.selectFrom('nonce_log').select((f) => f.fn.max('seq').as('newest')))
                .limit(PURGE_SLICE),
            )
            .executeTakeFirst();
          if (Number(numDeletedRows) < PURGE_SLICE) break;
          await pause();
        }
        if (!db.isTransaction) while (!ledger.forget(now, PURGE_SLICE)) await nextTurn();
      } else await db.deleteFrom('nonces').where('expires_at', '<', now).execute();
      await db.deleteFrom('rate_counters').where('expires_at', '<', now).execute();
    },
  };
}

/** One template per row count, built on first use (at most MAX_BATCH of them). */
function perRowCount<R>(build: (rows: number) => Template<unknown[], R>): (rows: number) => Template<unknown[], R> {
  const built = new Map<number, Template<unknown[], R>>();
  return (rows) => {
    let bind = built.get(rows);
    if (!bind) built.set(rows, (bind = build(rows)));
    return bind;
  };
}

interface AdmissionJob extends Omit<NonceJob, 'resolve'>, Omit<HitJob, 'resolve' | 'reject'> {
  readEpoch: number | undefined;
  digest: string | undefined;
  resolve(admission: Admission): void;
}

/** Which requests' nonces were fresh, and what to learn once the transaction has committed. */
interface NonceDecision {
  isFresh(job: object): boolean;
  committed(): void;
}

const NONE_FRESH: NonceDecision = Object.freeze({ isFresh: () => false, committed: () => undefined });

interface Batch {
  nonces: NonceJob[];
  hits: HitJob[];
  admissions: AdmissionJob[];
}

/**
 * Queues writes for two turns of the event loop, then writes them together, at most MAX_BATCH of
 * a kind. One turn (setImmediate runs once the requests that arrived together have all reached
 * this point) took, under load, about half the connections' requests: the others arrive in the
 * next turn, sent as soon as their previous answers left. Waiting for them too halves the
 * commits, for one more pass of the event loop, which takes microseconds when nothing else is
 * ready (bench/README.md, "Figures behind design choices").
 */
function writeBatcher(write: (batch: Batch) => Promise<void>) {
  const queued: Batch = { nonces: [], hits: [], admissions: [] };
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    const batch: Batch = {
      nonces: queued.nonces.splice(0, MAX_BATCH),
      hits: queued.hits.splice(0, MAX_BATCH),
      admissions: queued.admissions.splice(0, MAX_BATCH),
    };
    if (queued.nonces.length + queued.hits.length + queued.admissions.length > 0) schedule();
    void write(batch);
  };
  const nextTurn = () => setImmediate(flush);
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(nextTurn);
  };
  return {
    add<K extends keyof Batch>(kind: K, job: Batch[K][number]) {
      (queued[kind] as Array<Batch[K][number]>).push(job);
      schedule();
    },
  };
}

export type ReplayGuardRepository = ReturnType<typeof replayGuardRepository>;
