// The group-committed nonce and rate-limit writes (server/store/replay-guard.ts): requests that
// arrive together share a transaction, yet each gets exactly the answer it would get alone.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { CompiledQuery, Migrator, sql } from 'kysely';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { tempFolder } from '../support/temp-folder.ts';
import { secretBox } from '../../server/security/secret-box.ts';
import { openDatabase } from '../../server/store/database.ts';
import { createStore, type Store } from '../../server/store/index.ts';
import { DEFERRED_FLUSH_MS } from '../../server/store/direct.ts';
import { nonceLedger } from '../../server/store/nonce-ledger.ts';
import { CATCH_UP_SLICE, PURGE_PAUSE_MS, replayGuardRepository } from '../../server/store/replay-guard.ts';
import { migrations } from '../../server/store/migrations.ts';
import { postgresUrl } from './harness.ts';

const pg = postgresUrl();
const dialects: Array<[string, () => Promise<Store>]> = [
  [
    'sqlite in memory (through Kysely)',
    async () => createStore(await openDatabase({ filename: ':memory:' }), secretBox(randomBytes(32))),
  ],
  // A file: the hot path runs on the connection directly, and its commits are flushed later (store/direct.ts).
  [
    'sqlite in a file (direct)',
    async () => createStore(await openDatabase({ dataDir: tempFolder('guard-') }), secretBox(randomBytes(32))),
  ],
  ...(pg
    ? ([
        [
          'postgres',
          async () =>
            createStore(
              await openDatabase({ databaseUrl: pg, schema: `t_${randomBytes(6).toString('hex')}` }),
              secretBox(randomBytes(32)),
            ),
        ],
      ] as Array<[string, () => Promise<Store>]>)
    : []),
];

describe.each(dialects)('replay guard on %s', (_name, open) => {
  let store: Store | undefined;
  afterEach(async () => {
    await store?.close();
    store = undefined;
  });

  it('of 50 concurrent requests with one nonce, exactly one is fresh; other nonces and other key ids are unaffected', async () => {
    store = await open();
    const now = Date.now();
    const same = await Promise.all(
      Array.from({ length: 50 }, () => store!.replayGuard.recordNonce('pk_a', 'n-1', now + 360_000, now)),
    );
    expect(same.filter(Boolean)).toHaveLength(1);
    const mixed = await Promise.all([
      store.replayGuard.recordNonce('pk_a', 'n-2', now + 360_000, now),
      store.replayGuard.recordNonce('pk_b', 'n-1', now + 360_000, now),
      store.replayGuard.recordNonce('pk_a', 'n-1', now + 360_000, now),
      store.replayGuard.recordNonce('pk_a', 'n-2', now + 360_000, now),
    ]);
    expect(mixed).toEqual([true, true, false, false]);
  });

  it('a nonce whose retention has passed is fresh again', async () => {
    store = await open();
    const now = Date.now();
    expect(await store.replayGuard.recordNonce('pk_a', 'old', now + 1000, now)).toBe(true);
    expect(await store.replayGuard.recordNonce('pk_a', 'old', now + 1000, now + 500)).toBe(false);
    expect(await store.replayGuard.recordNonce('pk_a', 'old', now + 5000, now + 2000)).toBe(true);
  });

  it('concurrent hits on one bucket get the counts 1..n, each once, and share the window', async () => {
    store = await open();
    const now = 1_700_000_000_000;
    const results = await Promise.all(
      Array.from({ length: 40 }, () => store!.replayGuard.hit('pk_a:search', now, 60_000)),
    );
    expect(results.map((r) => r.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(new Set(results.map((r) => r.windowStart))).toEqual(new Set([now]));
    // Another bucket in the same batch counts on its own.
    const [a, b] = await Promise.all([
      store.replayGuard.hit('pk_a:search', now + 10, 60_000),
      store.replayGuard.hit('pk_a:write', now + 10, 60_000),
    ]);
    expect(a).toEqual({ count: 41, windowStart: now });
    expect(b).toEqual({ count: 1, windowStart: now + 10 });
  });

  it('hits at two instants in one batch are counted in order, and a hit after the window opens a new one', async () => {
    store = await open();
    const now = 1_700_000_000_000;
    const [first, second, third] = await Promise.all([
      store.replayGuard.hit('b', now, 60_000),
      store.replayGuard.hit('b', now + 5, 60_000),
      store.replayGuard.hit('b', now + 5, 60_000),
    ]);
    expect([first?.count, second?.count, third?.count]).toEqual([1, 2, 3]);
    const [late, later] = await Promise.all([
      store.replayGuard.hit('b', now + 60_000, 60_000),
      store.replayGuard.hit('b', now + 60_000, 60_000),
    ]);
    expect(late).toEqual({ count: 1, windowStart: now + 60_000 });
    expect(later).toEqual({ count: 2, windowStart: now + 60_000 });
  });

  it('admit: a fresh nonce is counted in its bucket; a replay is refused and spends no quota', async () => {
    store = await open();
    const now = 1_700_000_000_000;
    const request = (nonce: string, bucket = 'pk_a:search') => ({
      keyId: 'pk_a',
      nonce,
      expiresAt: now + 360_000,
      bucket,
      windowMs: 60_000,
    });
    // One batch: two fresh requests, one replay of the first, one request of another class.
    const answers = await Promise.all([
      store.replayGuard.admit(request('n-1'), now),
      store.replayGuard.admit(request('n-2'), now),
      store.replayGuard.admit(request('n-1'), now),
      store.replayGuard.admit(request('n-3', 'pk_a:write'), now),
    ]);
    expect(answers).toEqual([
      { fresh: true, count: 1, windowStart: now },
      { fresh: true, count: 2, windowStart: now },
      { fresh: false },
      { fresh: true, count: 1, windowStart: now },
    ]);
    // A later replay (another batch) is refused too, and the next fresh request is the third counted.
    expect(await store.replayGuard.admit(request('n-2'), now + 10)).toEqual({ fresh: false });
    expect(await store.replayGuard.admit(request('n-4'), now + 10)).toEqual({
      fresh: true,
      count: 3,
      windowStart: now,
    });
    // Plain hits and admissions share the bucket's count.
    expect(await store.replayGuard.hit('pk_a:search', now + 20, 60_000)).toEqual({ count: 4, windowStart: now });
    // A nonce recorded by recordNonce is a replay for admit, and the other way round.
    expect(await store.replayGuard.recordNonce('pk_a', 'n-5', now + 360_000, now)).toBe(true);
    expect(await store.replayGuard.admit(request('n-5'), now + 30)).toEqual({ fresh: false });
    expect(await store.replayGuard.recordNonce('pk_a', 'n-4', now + 360_000, now)).toBe(false);
  });

  it('admissions of one bucket at two instants in one batch: counted in arrival order, a replay at the later instant refused', async () => {
    const guard = (store = await open()).replayGuard;
    const now = 1_700_000_000_000;
    const request = (nonce: string, at: number) =>
      guard.admit({ keyId: 'pk_l', nonce, expiresAt: now + 360_000, bucket: 'pk_l:search', windowMs: 60_000 }, at);
    const answers = await Promise.all([
      request('l-1', now),
      request('l-2', now + 3),
      request('l-1', now + 3),
      request('l-3', now),
      request('l-4', now + 60_000),
    ]);
    expect(answers).toEqual([
      { fresh: true, count: 1, windowStart: now },
      { fresh: true, count: 2, windowStart: now },
      { fresh: false },
      { fresh: true, count: 3, windowStart: now },
      // The window of `now` has ended at now + 60 s: a new one opens there.
      { fresh: true, count: 1, windowStart: now + 60_000 },
    ]);
  });

  it('inside a transaction the writes are the transaction’s own (rolled back with it)', async () => {
    store = await open();
    const now = Date.now();
    await expect(
      store.transaction(async (tx) => {
        expect(await tx.replayGuard.recordNonce('pk_a', 'in-tx', now + 360_000, now)).toBe(true);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await store.replayGuard.recordNonce('pk_a', 'in-tx', now + 360_000, now)).toBe(true);
  });
});

describe('replay guard on a SQLite file: commits are deferred, then flushed (store/direct.ts)', () => {
  it('answers before the flush, flushes within DEFERRED_FLUSH_MS, one flush at a time, and a failed flush fails no answer', async () => {
    const flushes: Array<{ release(): void; fail(err: Error): void }> = [];
    const failures: unknown[] = [];
    const dataDir = tempFolder('guard-flush-');
    const opened = await openDatabase({
      dataDir,
      flush: () => new Promise<void>((release, fail) => flushes.push({ release, fail })),
      onFlushError: (err) => failures.push(err),
    });
    // What another connection (another process) sees committed.
    const committed = () => {
      const other = new BetterSqlite3(join(dataDir, 'service.sqlite'), { readonly: true });
      try {
        return other.prepare('select nonce from nonce_log order by seq').pluck().all() as string[];
      } finally {
        other.close();
      }
    };
    const store = createStore(opened, secretBox(randomBytes(32)));
    const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    // No flush is released before these answers: one that waited for the disk never comes.
    const answered = <T>(p: Promise<T>) =>
      Promise.race([p, wait(2_000).then(() => Promise.reject(new Error('the answer waited for the disk')))]);
    /** Waits (up to 2 s, timers may run late on a busy machine) for the n-th flush to start. */
    const flushStarted = async (n: number) => {
      for (const deadline = Date.now() + 2_000; flushes.length < n && Date.now() < deadline;) await wait(5);
      return flushes.length;
    };
    /** The flushes started once a deferred flush would surely have started. */
    const flushesAfterDeadline = async () => {
      await wait(DEFERRED_FLUSH_MS + 50);
      return flushes.length;
    };
    try {
      const now = Date.now();
      const admit = (nonce: string) =>
        store.replayGuard.admit(
          { keyId: 'pk_a', nonce, expiresAt: now + 360_000, bucket: 'pk_a:search', windowMs: 60_000 },
          now,
        );
      expect((await answered(Promise.all(['a', 'b', 'c'].map(admit)))).map((a) => a.fresh)).toEqual([true, true, true]);
      expect(committed()).toEqual(['a', 'b', 'c']);
      expect(await answered(store.replayGuard.recordNonce('pk_a', 'a', now + 360_000, now))).toBe(false);
      expect(await flushStarted(1)).toBe(1);

      // A commit made while that flush runs is answered at once and waits for the next flush,
      // which starts only once this one has ended.
      expect(await answered(admit('d'))).toMatchObject({ fresh: true });
      expect(await flushesAfterDeadline()).toBe(1);
      flushes[0]?.release();
      expect(await flushStarted(2)).toBe(2);

      // A failed flush is reported; the requests were answered long before and stay answered.
      flushes[1]?.fail(new Error('disk gone'));
      await wait(10);
      expect(failures).toEqual([new Error('disk gone')]);
      expect(await answered(admit('e'))).toMatchObject({ fresh: true });
      expect(await flushStarted(3)).toBe(3);
      // Nothing is flushed while nothing was committed.
      flushes[2]?.release();
      expect(await flushesAfterDeadline()).toBe(3);
      // The connection is back to flushing every other commit itself (synchronous = FULL = 2).
      expect(await opened.db.executeQuery(CompiledQuery.raw('PRAGMA synchronous')).then((r) => r.rows)).toEqual([
        { synchronous: 2 },
      ]);
    } finally {
      flushes.forEach((f) => f.release());
      await store.close();
    }
  });
});

interface AdmitOptions {
  retentionMs?: number;
  bucket?: string;
  /** The epoch of the credential rows the request read trusting the cache (store/row-cache.ts). */
  readEpoch?: number | undefined;
}

describe('replay guard on SQLite: the nonce log and its ledger (store/nonce-ledger.ts)', () => {
  const openAt = async (dataDir: string) => createStore(await openDatabase({ dataDir }), secretBox(randomBytes(32)));
  const admit = (
    store: Store,
    nonce: string,
    now: number,
    { retentionMs = 360_000, bucket = 'pk_a:search', readEpoch }: AdmitOptions = {},
  ) =>
    store.replayGuard.admit(
      { keyId: 'pk_a', nonce, expiresAt: now + retentionMs, bucket, windowMs: 60_000, readEpoch },
      now,
    );

  it('a nonce used before a restart is still a replay after it', async () => {
    const dataDir = tempFolder('ledger-restart-');
    const now = Date.now();
    const before = await openAt(dataDir);
    expect((await admit(before, 'n-1', now)).fresh).toBe(true);
    await before.close();
    const after = await openAt(dataDir);
    try {
      expect(await admit(after, 'n-1', now + 1000)).toEqual({ fresh: false });
      expect((await admit(after, 'n-2', now + 1000)).fresh).toBe(true);
    } finally {
      await after.close();
    }
  });

  /** A store reopened onto a log of 2 slices and a row (`logged-1` …), and the slices it has read of it. */
  const reopenedOntoLongLog = async (label: string) => {
    const dataDir = tempFolder(label);
    const now = Date.now();
    const rows = 2 * CATCH_UP_SLICE + 1;
    const first = await openAt(dataDir);
    await sql`insert into nonce_log (key_id, nonce, expires_at)
      with recursive n(n) as (select 1 union all select n + 1 from n where n < ${rows})
      select 'pk_a', 'logged-' || n, ${now + 360_000} from n`.execute(first.db);
    await first.close();
    const slices: string[] = [];
    const store = createStore(
      await openDatabase({
        dataDir,
        onStatement: (e) => {
          if (/from "nonce_log" where "seq" > \? order by "seq" limit/.test(e.sql)) slices.push(e.sql);
        },
      }),
      secretBox(randomBytes(32)),
    );
    return { store, slices, now, rows };
  };

  it('a restart learns a long log a slice at a time before the first decision, and still finds every nonce', async () => {
    const { store: after, slices, now, rows } = await reopenedOntoLongLog('ledger-catch-up-');
    try {
      expect(await admit(after, `logged-${CATCH_UP_SLICE + 7}`, now)).toEqual({ fresh: false });
      expect(slices).toHaveLength(3);
      expect(await admit(after, `logged-${rows}`, now)).toEqual({ fresh: false });
      expect((await admit(after, 'new', now)).fresh).toBe(true);
      expect(slices).toHaveLength(3);
    } finally {
      await after.close();
    }
  });

  it('learns the log before any request when told to (a server does, before it listens); the first decision then reads none of it', async () => {
    const { store: after, slices, now, rows } = await reopenedOntoLongLog('ledger-learn-first-');
    try {
      expect(await after.replayGuard.learnLog()).toBe(rows);
      expect(slices).toHaveLength(3);
      expect(await admit(after, `logged-${CATCH_UP_SLICE + 7}`, now)).toEqual({ fresh: false });
      expect(await admit(after, `logged-${rows}`, now)).toEqual({ fresh: false });
      expect((await admit(after, 'new', now)).fresh).toBe(true);
      expect(slices).toHaveLength(3);
      // Learned once: a second call reads nothing more.
      expect(await after.replayGuard.learnLog()).toBe(rows + 1);
      expect(slices).toHaveLength(3);
    } finally {
      await after.close();
    }
  });

  it('a purge deletes a long expired log a slice at a time, and the ledger forgets those nonces', async () => {
    const dataDir = tempFolder('ledger-purge-slices-');
    // When each delete began and ended (the listener is told as it ends).
    const deletes: Array<{ began: number; ended: number }> = [];
    const opened = await openDatabase({
      dataDir,
      onStatement: (e) => {
        const ended = performance.now();
        if (/^delete from "nonce_log"/.test(e.sql)) deletes.push({ began: ended - e.ms, ended });
      },
    });
    const ledger = nonceLedger();
    const guard = replayGuardRepository(opened.db, { direct: opened.direct, ledger });
    try {
      const now = Date.now();
      const admitted = await Promise.all(
        Array.from({ length: 4_500 }, (_, i) =>
          guard.admit({ keyId: 'pk_a', nonce: `n-${i}`, expiresAt: now + 1000, bucket: 'b', windowMs: 60_000 }, now),
        ),
      );
      expect(admitted.every((a) => a.fresh)).toBe(true);
      expect(ledger.size).toBe(4_500);
      await guard.purge(now + 5000);
      // 2,000 + 2,000 + the 499 left but the newest row, which stays whatever its age.
      expect(deletes).toHaveLength(3);
      // A pause between them, not only a turn, for the requests waiting meanwhile (timers may
      // fire up to a millisecond early by this clock).
      for (let i = 1; i < deletes.length; i++)
        expect(deletes[i]!.began - deletes[i - 1]!.ended).toBeGreaterThanOrEqual(PURGE_PAUSE_MS - 1);
      const left = await opened.db.selectFrom('nonce_log').select('nonce').execute();
      expect(left.map((r) => r.nonce)).toEqual(['n-4499']);
      expect(ledger.size).toBe(0);
    } finally {
      await opened.close();
    }
  });

  it('after a purge that empties the log of expired rows, a nonce logged through one connection is still learned by another', async () => {
    const dataDir = tempFolder('ledger-purge-');
    const a = await openAt(dataDir);
    const b = await openAt(dataDir);
    try {
      const now = Date.now();
      expect((await admit(a, 'short-1', now, { retentionMs: 1000 })).fresh).toBe(true);
      expect((await admit(a, 'short-2', now, { retentionMs: 1000 })).fresh).toBe(true);
      // Both rows have expired; the purge keeps the newest, so the next row's seq is still higher
      // than anything `a` has learned.
      await a.purge(now + 5000);
      const rows = await a.db.selectFrom('nonce_log').select('nonce').execute();
      expect(rows.map((r) => r.nonce)).toEqual(['short-2']);
      expect((await admit(b, 'later', now + 6000)).fresh).toBe(true);
      expect(await admit(a, 'later', now + 6000)).toEqual({ fresh: false });
    } finally {
      await b.close();
      await a.close();
    }
  });

  it('reads the log only when another connection may have written it, and learns its own rows once committed', async () => {
    const dataDir = tempFolder('ledger-complete-');
    const logReads: string[] = [];
    const a = createStore(
      await openDatabase({
        dataDir,
        onStatement: (e) => {
          if (/from "nonce_log" where "seq" >/.test(e.sql)) logReads.push(e.sql);
        },
      }),
      secretBox(randomBytes(32)),
    );
    const b = await openAt(dataDir);
    try {
      const now = Date.now();
      expect((await admit(a, 'n-1', now)).fresh).toBe(true);
      const reads = logReads.length;
      expect(reads).toBeGreaterThan(0);
      // Nothing else has committed: its own rows are known without reading them back.
      expect((await admit(a, 'n-2', now)).fresh).toBe(true);
      expect(await admit(a, 'n-1', now)).toEqual({ fresh: false });
      expect(await admit(a, 'n-2', now)).toEqual({ fresh: false });
      expect(logReads).toHaveLength(reads);
      // Another connection's commit moves the version: the log is read, and its nonce is a replay.
      expect((await admit(b, 'from-b', now)).fresh).toBe(true);
      expect(await admit(a, 'from-b', now)).toEqual({ fresh: false });
      expect(logReads).toHaveLength(reads + 1);
    } finally {
      await b.close();
      await a.close();
    }
  });

  it('a batch that fails after appending teaches the ledger nothing: its nonces stay fresh, later rows are still read', async () => {
    const dataDir = tempFolder('ledger-failed-');
    const a = await openAt(dataDir);
    const b = await openAt(dataDir);
    try {
      const now = Date.now();
      expect((await admit(a, 'before', now)).fresh).toBe(true);
      // On `a`'s connection only: counting in the bucket `boom` fails, after the nonce is appended.
      await sql`create temp trigger boom before insert on rate_counters when new.bucket = 'boom' begin select raise(abort, 'boom'); end`.execute(
        a.db,
      );
      const failing = admit(a, 'rolled-back', now, { bucket: 'boom' });
      await expect(failing).rejects.toThrow(/boom/);
      expect((await admit(a, 'rolled-back', now)).fresh).toBe(true);
      // `b` appends at the row numbers the failed batch had taken and given back.
      expect((await admit(b, 'from-b', now)).fresh).toBe(true);
      expect(await admit(a, 'from-b', now)).toEqual({ fresh: false });
    } finally {
      await b.close();
      await a.close();
    }
  });

  it('an admission asked with the epoch of rows read trusting the cache is stale, and writes nothing, once another connection has committed', async () => {
    const dataDir = tempFolder('ledger-stale-');
    const a = await openAt(dataDir);
    const b = await openAt(dataDir);
    const asked = (nonce: string, now: number, readEpoch: number | undefined) => admit(a, nonce, now, { readEpoch });
    try {
      const now = Date.now();
      expect(await asked('quiet', now, a.readMark()?.epoch)).toEqual({ fresh: true, count: 1, windowStart: now });
      const mark = a.readMark();
      expect(mark).toBeDefined();
      await b.credentials.createPartner({ id: 'p-b', environment: 'sandbox', clockOffsetMs: 0, createdAt: 1 });
      expect(await asked('after-b', now, mark?.epoch)).toEqual({ fresh: false, stale: true });
      // Nothing was written: neither the nonce nor the count.
      expect(await asked('after-b', now, undefined)).toEqual({ fresh: true, count: 2, windowStart: now });
    } finally {
      await b.close();
      await a.close();
    }
  });

  it('the upgrade carries live nonces from the old nonces table into the log (and the downgrade back)', async () => {
    const dataDir = tempFolder('ledger-upgrade-');
    const now = Date.now();
    const opened = await openDatabase({ dataDir });
    const store = createStore(opened, secretBox(randomBytes(32)));
    expect((await admit(store, 'logged', now)).fresh).toBe(true);
    const migrator = new Migrator({ db: opened.db, provider: { getMigrations: async () => migrations('sqlite') } });
    expect((await migrator.migrateTo('007_listing_index')).error).toBeUndefined();
    await sql`insert into nonces (key_id, nonce, expires_at) values ('pk_a', 'from-old-table', ${now + 360_000})`.execute(
      opened.db,
    );
    await store.close();
    const upgraded = await openAt(dataDir);
    try {
      expect(await admit(upgraded, 'from-old-table', now + 1000)).toEqual({ fresh: false });
      expect(await admit(upgraded, 'logged', now + 1000)).toEqual({ fresh: false });
    } finally {
      await upgraded.close();
    }
  });
});

describe.runIf(pg)('replay guard on PostgreSQL: admissions of a batch at several instants', () => {
  it('are written as one statement per instant of a bucket, without a transaction', async () => {
    const seen: string[] = [];
    const store = createStore(
      await openDatabase({
        databaseUrl: pg as string,
        schema: `t_${randomBytes(6).toString('hex')}`,
        onStatement: (e) => seen.push(e.sql),
      }),
      secretBox(randomBytes(32)),
    );
    try {
      const now = 1_700_000_000_000;
      const request = (nonce: string, at: number, bucket = 'pk_s:search') =>
        store.replayGuard.admit({ keyId: 'pk_s', nonce, expiresAt: now + 360_000, bucket, windowMs: 60_000 }, at);
      seen.length = 0;
      const answers = await Promise.all([
        request('s-1', now),
        request('s-2', now, 'pk_s:write'),
        request('s-3', now + 2),
        request('s-4', now + 2, 'pk_s:write'),
      ]);
      expect(answers.map((a) => (a.fresh ? a.count : 0))).toEqual([1, 1, 2, 2]);
      expect(seen.filter((q) => /^(begin|commit)/i.test(q))).toEqual([]);
      expect(seen).toHaveLength(2);
    } finally {
      await store.close();
    }
  });
});

describe.runIf(pg)('replay guard on PostgreSQL: two instances deciding the same nonces at once', () => {
  it('never deadlock, whatever order their batches hold the nonces in, and each nonce is fresh once', async () => {
    const schema = `t_${randomBytes(6).toString('hex')}`;
    const a = createStore(await openDatabase({ databaseUrl: pg as string, schema }), secretBox(randomBytes(32)));
    const b = createStore(await openDatabase({ databaseUrl: pg as string, schema }), secretBox(randomBytes(32)));
    try {
      const now = Date.now();
      for (let round = 0; round < 10; round++) {
        const nonces = Array.from({ length: 50 }, (_, i) => `r${round}-n${String(i).padStart(2, '0')}`);
        const admit = (store: Store, nonce: string) =>
          store.replayGuard.admit(
            { keyId: 'pk_a', nonce, expiresAt: now + 360_000, bucket: 'pk_a:search', windowMs: 60_000 },
            now,
          );
        // One batch each (queued in one turn), holding the nonces in opposite orders.
        const answers = await Promise.all([
          ...nonces.map((n) => admit(a, n)),
          ...[...nonces].reverse().map((n) => admit(b, n)),
        ]);
        expect(answers.filter((x) => x.fresh)).toHaveLength(50);
      }
    } finally {
      await b.close();
      await a.close();
    }
  }, 60_000);
});

// PostgreSQL: a signed request may verify its signature with the credential row its instance last
// read, because its admission checks in the same statement that the row still has that digest
// (server/store/credentials.ts `lastRead`, replay-guard.ts `admitQuery`).
describe.skipIf(!pg)('replay guard on PostgreSQL: the credential row a request was verified with', () => {
  let store: Store | undefined;
  afterEach(async () => {
    await store?.close();
    store = undefined;
  });

  it('admits while the row is unchanged; a changed or deleted row answers stale and writes nothing', async () => {
    store = createStore(
      await openDatabase({ databaseUrl: pg, schema: `t_${randomBytes(6).toString('hex')}` }),
      secretBox(randomBytes(32)),
    );
    const s = store;
    const now = Date.now();
    await s.credentials.createPartner({ id: 'ptr_d', environment: 'sandbox', clockOffsetMs: 0, createdAt: now });
    const credential = (keyId: string) => ({
      keyId,
      partnerId: 'ptr_d',
      environment: 'sandbox' as const,
      secret: `sk_test_${randomBytes(12).toString('hex')}`,
      scopes: ['search'],
      affiliate: false,
      approved: true,
      rateLimits: {},
      createdAt: now,
    });
    await s.credentials.createCredential(credential('pk_d'));
    await s.credentials.createCredential(credential('pk_e'));
    expect(s.credentials.lastRead('pk_d')).toBeUndefined();
    expect((await s.credentials.findCredential('pk_d'))?.keyId).toBe('pk_d');
    const last = s.credentials.lastRead('pk_d');
    expect(last?.credential.keyId).toBe('pk_d');
    const digest = last?.digest as string;
    const admit = (nonce: string, d: string | undefined, keyId = 'pk_d') =>
      s.replayGuard.admit(
        { keyId, nonce, expiresAt: now + 360_000, bucket: `${keyId}:search`, windowMs: 60_000, digest: d },
        now,
      );

    // One batch: the row's digest, a wrong one, and a request with none (read for it).
    const [kept, wrong, read] = await Promise.all([
      admit('n-1', digest),
      admit('n-2', 'not-the-digest'),
      admit('n-3', undefined, 'pk_e'),
    ]);
    expect(kept).toEqual({ fresh: true, count: 1, windowStart: now });
    expect(wrong).toEqual({ fresh: false, stale: true });
    expect(read).toMatchObject({ fresh: true, count: 1 });
    // The stale request wrote nothing: its nonce is still fresh, and it spent no quota.
    expect(await admit('n-2', undefined)).toEqual({ fresh: true, count: 2, windowStart: now });

    // Another instance changes the row: the digest this instance read no longer admits.
    await s.credentials.updateCredential('pk_d', { approved: false });
    expect(await admit('n-4', digest)).toEqual({ fresh: false, stale: true });
    await s.credentials.findCredential('pk_d');
    const again = s.credentials.lastRead('pk_d');
    expect(again?.credential.approved).toBe(false);
    expect(again?.digest).not.toBe(digest);
    expect(await admit('n-4', again?.digest)).toMatchObject({ fresh: true, count: 3 });

    // Deleted: stale too, and a read that finds nothing forgets the row.
    await s.credentials.findCredential('pk_e');
    const gone = s.credentials.lastRead('pk_e')?.digest;
    expect(gone).toEqual(expect.any(String));
    await s.db.deleteFrom('credentials').where('key_id', '=', 'pk_e').execute();
    expect(await admit('n-5', gone, 'pk_e')).toEqual({ fresh: false, stale: true });
    expect(await s.credentials.findCredential('pk_e')).toBeUndefined();
    expect(s.credentials.lastRead('pk_e')).toBeUndefined();
  });
});

describe('credentials on SQLite: no row kept for an admission to confirm', () => {
  it('is not used on SQLite, which confirms kept rows by their epoch instead', async () => {
    const store = createStore(await openDatabase({ dataDir: tempFolder('guard-') }), secretBox(randomBytes(32)));
    const now = Date.now();
    await store.credentials.createPartner({ id: 'ptr_s', environment: 'sandbox', clockOffsetMs: 0, createdAt: now });
    await store.credentials.createCredential({
      keyId: 'pk_s',
      partnerId: 'ptr_s',
      environment: 'sandbox',
      secret: 'sk_test_s',
      scopes: ['search'],
      affiliate: false,
      approved: true,
      rateLimits: {},
      createdAt: now,
    });
    expect(await store.credentials.findCredential('pk_s')).toBeDefined();
    expect(store.credentials.lastRead('pk_s')).toBeUndefined();
    await store.close();
  });
});
