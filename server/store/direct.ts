// Synchronous access to the embedded SQLite connection beside Kysely, for the few statements that
// every signed request runs (the credential, the nonce, the rate counter, the listing) and for the
// orders' group commit. Kysely still writes all SQL; this only runs it without Kysely's per-query
// connection hand-over, and flushes the log to disk off the event loop, in the thread pool: within
// DEFERRED_FLUSH_MS for the nonce and rate-limit writes, which are answered before it, and at once
// for orders, which wait for it (`onDisk`). PostgreSQL has none of this: its driver is
// asynchronous already, and the nonces use its asynchronous commit (replay-guard.ts).
import { closeSync, fdatasync, fdatasyncSync, openSync } from 'node:fs';
import type BetterSqlite3 from 'better-sqlite3';
import type { CompiledQuery } from 'kysely';
import { rowCache, type ReadMark } from './row-cache.ts';
import type { StatementListener } from './statements.ts';

/**
 * The longest a deferred commit waits for its flush to disk: the most a power loss can take back
 * (a process crash takes back nothing: the commit is in the operating system's cache already).
 * PostgreSQL's asynchronous commit has the same kind of bound (three times wal_writer_delay).
 */
export const DEFERRED_FLUSH_MS = 100;

export interface DirectSqlite {
  /**
   * Runs one statement now and gives its rows. `undefined` when a transaction holds the
   * connection: a statement run then would join that transaction, so the caller goes through
   * Kysely instead, which waits for the connection.
   */
  run<R>(query: CompiledQuery<R>): R[] | undefined;
  /**
   * `run` for a read of `table` (one of `watched`), answered from memory while nothing in the
   * table has changed (row-cache.ts). Its rows are frozen and shared: read them, never change them.
   */
  read<R>(table: string, query: CompiledQuery<R>, since?: ReadMark): readonly R[] | undefined;
  /** Now, as a mark for `read` (row-cache.ts). */
  mark(): ReadMark;
  /**
   * Tells the kept rows the version read on this connection by a transaction (its
   * `pragma data_version`; row-cache.ts `observe`); gives their epoch after.
   */
  observe(version: unknown): number;
  /**
   * Runs `work` in one transaction; `work` runs its statements through `exec`, synchronously, so
   * nothing else can use the connection meanwhile. A `deferred` commit (the default) is visible
   * to every connection and survives a crash of this process at once, and is flushed to disk
   * within DEFERRED_FLUSH_MS (with synchronous = FULL; NORMAL flushes only at checkpoints, as
   * SQLite does): for writes that may be lost to a power loss, such as the nonces and rate-limit
   * counts, never orders. A `durable` commit is on disk when this returns (with synchronous =
   * FULL), and so is every deferred commit before it: they share the log.
   * `{ ran: false }` when a transaction holds the connection (as for `run`).
   */
  transaction<T>(
    work: (exec: (query: CompiledQuery) => unknown[]) => T,
    commit?: 'deferred' | 'durable',
  ): { ran: true; result: T } | { ran: false };
  /**
   * Group commit: runs `units` in one transaction, with one commit (one flush to disk when
   * durable) for all; one that throws is undone alone (it then runs again in a savepoint) and
   * settles with its error while the others commit together. Undefined when a transaction holds
   * the connection (as for `run`).
   */
  batch<T>(
    units: ReadonlyArray<(exec: (query: CompiledQuery) => unknown[]) => T>,
    commit?: 'deferred' | 'durable',
  ): Array<Settled<T>> | undefined;
  /**
   * Resolves once every commit made so far is on disk: at once if none waits for a flush,
   * otherwise with the flush that covers the last of them, started now if none will (a
   * deferred commit followed by `onDisk` is a durable commit that leaves the event loop free while
   * the disk works). Rejects if that flush fails.
   */
  onDisk(): Promise<void>;
  /** Flushes any deferred commit to disk now, synchronously, then lets the connection go. */
  close(): void;
}

/** How one unit of a batch ended. */
export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

export interface DirectOptions {
  /** The database file; its write-ahead log is `<filename>-wal`. */
  filename: string;
  /** The connection's durability: `full` flushes every commit to disk before it counts. */
  synchronous: 'full' | 'normal';
  /** Tables whose reads `read` may answer from memory. */
  watched?: readonly string[];
  /** Flushes a file to disk (default: fdatasync in libuv's thread pool). Tests inject one. */
  flush?: (fd: number) => Promise<void>;
  /** Told when a deferred flush fails (default: the error log); nobody waits for it to answer. */
  onFlushError?: (err: unknown) => void;
  /** Hears every statement run here, as Kysely's log hears its own (database.ts). */
  onStatement?: StatementListener;
}

const fdatasyncAsync = (fd: number) =>
  new Promise<void>((resolve, reject) => fdatasync(fd, (err) => (err ? reject(err) : resolve())));

/**
 * `prepare` is the connection's statement cache (database.ts), shared with Kysely so a statement
 * is prepared once whichever way it runs. The connection must be in WAL mode.
 */
export function directSqlite(
  sqlite: BetterSqlite3.Database,
  prepare: (sql: string) => BetterSqlite3.Statement,
  options: DirectOptions,
): DirectSqlite {
  const flush = options.flush ?? fdatasyncAsync;
  const runStatement = (query: CompiledQuery): unknown[] => {
    const statement = prepare(query.sql);
    const parameters = query.parameters as unknown[];
    if (statement.reader) return statement.all(parameters);
    statement.run(parameters);
    return [];
  };
  const heard = options.onStatement;
  const exec = heard
    ? (query: CompiledQuery): unknown[] => {
        const started = performance.now();
        let failed = true;
        try {
          const rows = runStatement(query);
          failed = false;
          return rows;
        } finally {
          heard({ sql: query.sql, parameters: query.parameters, ms: performance.now() - started, failed });
        }
      }
    : runStatement;
  // In WAL mode a commit appends to the log and, with synchronous=FULL, then flushes the log to
  // disk, blocking the only thread, and the answer waits for the disk. A commit made with
  // synchronous=NORMAL skips that flush; an fdatasync of the log from the thread pool, at most
  // DEFERRED_FLUSH_MS later, then makes it as durable (SQLite syncs the log itself before every
  // checkpoint in that mode, and a later FULL commit of the same log flushes it too). Run as text
  // each time: SQLite applies this pragma when it compiles the statement, so a kept prepared
  // statement would not switch it reliably.
  const relaxed = () => sqlite.exec('PRAGMA synchronous = NORMAL');
  const strict = () => sqlite.exec('PRAGMA synchronous = FULL');
  // IMMEDIATE: the work may read before it writes (replay-guard.ts), so it holds the write lock
  // from the start; nothing another process commits can slip in between. Built once: better-sqlite3
  // passes the call's argument through.
  const inOneTransaction = sqlite.transaction((work: (run: typeof exec) => unknown) => work(exec)).immediate;
  // Called inside a transaction, a better-sqlite3 transaction function is a savepoint: a throw
  // inside rolls back to it and rethrows.
  const inSavepoint = sqlite.transaction((unit: (run: typeof exec) => unknown) => unit(exec));
  // The commit (its flush to disk, when durable) is the largest part of a write; the profile hears
  // it as a statement of its own.
  const committing = heard
    ? <T>(work: (run: typeof exec) => T, how: 'deferred' | 'durable'): T => {
        let worked = 0;
        const result = inOneTransaction((run: typeof exec) => {
          const value = work(run);
          worked = performance.now();
          return value;
        }) as T;
        heard({
          sql: how === 'durable' ? 'commit' : 'commit -- deferred',
          parameters: [],
          ms: performance.now() - worked,
          failed: false,
        });
        return result;
      }
    : <T>(work: (run: typeof exec) => T): T => inOneTransaction(work) as T;
  const onFlushError =
    options.onFlushError ??
    ((err: unknown) => console.error('SQLite: a deferred flush of the write-ahead log failed', err));
  let wal: number | undefined;
  // The log exists once anything has been committed; the connection keeps it (same inode) until
  // it closes, so the descriptor is opened once.
  const walFd = () => (wal ??= openSync(`${options.filename}-wal`, 'r'));
  // One flush at a time, each covering every commit made before it started. `dirty`: a commit not
  // yet covered by a flush that has started. `running`: the flush under way (settled either way);
  // `queued`: the flush asked for while it ran, which starts when it ends and serves every ask
  // made meanwhile (a group commit: the orders committed during one flush share the next).
  let dirty = false;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let queued: Promise<void> | undefined;
  let flushing: Promise<void> = Promise.resolve();
  const startFlush = (): Promise<void> => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    // close() flushed synchronously what was committed before it.
    if (closed) return Promise.resolve();
    dirty = false;
    flushing = flush(walFd());
    const ended = () => {
      running = undefined;
      if (dirty && !queued) flushSoon();
    };
    running = flushing.then(ended, ended);
    return flushing;
  };
  const flushNow = (): Promise<void> => {
    if (queued) return queued;
    if (!running) return startFlush();
    queued = running.then(() => {
      queued = undefined;
      return startFlush();
    });
    return queued;
  };
  function flushSoon() {
    if (timer || running || queued) return;
    timer = setTimeout(() => void startFlush().catch(onFlushError), DEFERRED_FLUSH_MS);
  }
  const onDisk = (): Promise<void> => (dirty ? flushNow() : (queued ?? (running ? flushing : Promise.resolve())));
  const rows = rowCache(sqlite, options.watched ?? []);
  const run = <R>(query: CompiledQuery<R>): R[] | undefined =>
    sqlite.inTransaction ? undefined : (exec(query) as R[]);
  function transaction<T>(
    work: (exec: (query: CompiledQuery) => unknown[]) => T,
    commit: 'deferred' | 'durable' = 'deferred',
  ): { ran: true; result: T } | { ran: false } {
    if (sqlite.inTransaction) return { ran: false };
    if (options.synchronous === 'normal' || commit === 'durable')
      return { ran: true, result: committing(work, commit) };
    relaxed();
    let result: T;
    try {
      result = committing(work, commit);
    } finally {
      strict();
    }
    dirty = true;
    flushSoon();
    return { ran: true, result };
  }
  return {
    run,
    read: (table, query, since) =>
      rows.read(table, `${query.sql}\u0000${JSON.stringify(query.parameters)}`, () => run(query), since),
    mark: () => rows.mark(),
    observe: (version) => rows.observe(version),
    transaction,
    batch<T>(
      units: ReadonlyArray<(exec: (query: CompiledQuery) => unknown[]) => T>,
      commit: 'deferred' | 'durable' = 'deferred',
    ) {
      // First all of them straight through, with no savepoint: a savepoint makes SQLite copy every
      // page a unit changes again into a statement journal, a temporary file (twice the bytes
      // written per order: bench/README.md). Should one throw, the transaction is rolled back
      // whole and the batch runs again, each unit in a savepoint: the same statements on the same
      // rows, since nothing else ran on the connection in between.
      let outcome: { ran: true; result: Array<Settled<T>> } | { ran: false };
      try {
        outcome = transaction(() => units.map((unit): Settled<T> => ({ ok: true, value: unit(exec) })), commit);
      } catch {
        outcome = transaction(
          () =>
            units.map((unit): Settled<T> => {
              try {
                return { ok: true, value: inSavepoint(unit) as T };
              } catch (error) {
                return { ok: false, error };
              }
            }),
          commit,
        );
      }
      return outcome.ran ? outcome.result : undefined;
    },
    onDisk,
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      // A clean stop loses nothing: what a deferred flush would have written is written now.
      if (dirty) fdatasyncSync(walFd());
      dirty = false;
      const fd = wal;
      wal = undefined;
      // A flush still running in the thread pool keeps its descriptor until it ends.
      if (fd === undefined) return;
      if (running) void running.finally(() => closeSync(fd));
      else closeSync(fd);
    },
  };
}
