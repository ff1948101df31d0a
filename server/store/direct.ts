// Synchronous access to the embedded SQLite connection beside Kysely, for the few statements that
// every signed request runs (the credential, the nonce, the rate counter, the listing). Kysely
// still writes all SQL; this only runs it without Kysely's per-query connection hand-over, and
// group-commits the nonce and rate-limit writes without holding the event loop during the flush
// to disk. PostgreSQL has none of this: its driver is asynchronous already.
import { closeSync, fdatasync, openSync } from 'node:fs';
import type BetterSqlite3 from 'better-sqlite3';
import type { CompiledQuery } from 'kysely';
import { rowCache, type ReadMark } from './row-cache.ts';

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
   * Runs `work` in one transaction; `work` runs its statements through `exec`, synchronously, so
   * nothing else can use the connection meanwhile. The commit does not wait for the disk:
   * `durable` settles once it is on disk, so a caller answers only after that, exactly as with a
   * synchronous commit, while the event loop goes on serving other requests during the flush.
   * `undefined` when a transaction holds the connection (as for `run`).
   */
  transaction<T>(work: (exec: (query: CompiledQuery) => unknown[]) => T): { result: T; durable: Promise<void> } | undefined;
  /**
   * The flush to disk now running, if any. A commit made before it ends is durable only after the
   * next flush, so a caller with writes to make may as well wait for it and commit them together.
   */
  flushing(): Promise<void> | undefined;
  close(): void;
}

export interface DirectOptions {
  /** The database file; its write-ahead log is `<filename>-wal`. */
  filename: string;
  /** The connection's durability: `full` flushes every commit to disk before it counts. */
  synchronous: 'full' | 'normal';
  /** Tables whose reads `read` may answer from memory. */
  watched?: readonly string[];
  /** Flushes a file to disk (default: fdatasync in libuv's thread pool). Tests inject one. */
  flush?: (fd: number) => Promise<void>;
}

const fdatasyncAsync = (fd: number) => new Promise<void>((resolve, reject) => fdatasync(fd, (err) => (err ? reject(err) : resolve())));

/**
 * `prepare` is the connection's statement cache (database.ts), shared with Kysely so a statement
 * is prepared once whichever way it runs. The connection must be in WAL mode.
 */
export function directSqlite(sqlite: BetterSqlite3.Database, prepare: (sql: string) => BetterSqlite3.Statement, options: DirectOptions): DirectSqlite {
  const flush = options.flush ?? fdatasyncAsync;
  const exec = (query: CompiledQuery): unknown[] => {
    const statement = prepare(query.sql);
    const parameters = query.parameters as unknown[];
    if (statement.reader) return statement.all(parameters);
    statement.run(parameters);
    return [];
  };
  // In WAL mode a commit appends to the log and, with synchronous=FULL, then flushes the log to
  // disk (about 0.3 ms here), blocking the only thread. A commit made with synchronous=NORMAL
  // skips that flush, and an fdatasync of the log from the thread pool then makes it exactly as
  // durable, without blocking (SQLite syncs the log itself before every checkpoint in that mode).
  // Run as text each time: SQLite applies this pragma when it compiles the statement, so a kept
  // prepared statement would not switch it reliably.
  const relaxed = () => sqlite.exec('PRAGMA synchronous = NORMAL');
  const strict = () => sqlite.exec('PRAGMA synchronous = FULL');
  // IMMEDIATE: the work may read before it writes (replay-guard.ts), so it holds the write lock
  // from the start; nothing another process commits can slip in between. Built once: better-sqlite3
  // passes the call's argument through.
  const inOneTransaction = sqlite.transaction((work: (run: typeof exec) => unknown) => work(exec)).immediate;
  let wal: number | undefined;
  // One flush at a time, each covering every commit made before it started: a commit made while
  // a flush runs waits for the next one, which it shares with every other commit made meanwhile.
  // Flushing per commit instead had several fdatasyncs of one file queued in the thread pool,
  // where they serialise anyway and each costs CPU the answers need.
  let running: Promise<void> | undefined;
  let queued: Promise<void> | undefined;
  const startFlush = (): Promise<void> => {
    // The log exists once anything has been committed; the connection keeps it (same inode)
    // until it closes, so the descriptor is opened once.
    wal ??= openSync(`${options.filename}-wal`, 'r');
    const flushing = flush(wal).finally(() => {
      if (running === flushing) running = undefined;
    });
    running = flushing;
    return flushing;
  };
  const flushed = (): Promise<void> => {
    if (queued) return queued;
    if (!running) return startFlush();
    queued = running
      .catch(() => undefined)
      .then(() => {
        queued = undefined;
        return startFlush();
      });
    return queued;
  };
  const rows = rowCache(sqlite, options.watched ?? []);
  const run = <R>(query: CompiledQuery<R>): R[] | undefined => (sqlite.inTransaction ? undefined : (exec(query) as R[]));
  return {
    run,
    read: (table, query, since) => rows.read(table, `${query.sql}\u0000${JSON.stringify(query.parameters)}`, () => run(query), since),
    mark: () => rows.mark(),
    transaction<T>(work: (exec: (query: CompiledQuery) => unknown[]) => T) {
      if (sqlite.inTransaction) return undefined;
      if (options.synchronous === 'normal') return { result: inOneTransaction(work) as T, durable: Promise.resolve() };
      relaxed();
      let result: T;
      try {
        result = inOneTransaction(work) as T;
      } finally {
        strict();
      }
      return { result, durable: flushed() };
    },
    flushing: () => running,
    close() {
      if (wal !== undefined) closeSync(wal);
      wal = undefined;
    },
  };
}
