// Opens the database: embedded SQLite by default (zero setup), PostgreSQL when a URL is given
// (several instances behind a load balancer share it). Migrations run before it is handed out.
import { chmodSync, closeSync, existsSync, openSync } from 'node:fs';
import { makeDataDir } from './data-dir.ts';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { directSqlite, type DirectSqlite } from './direct.ts';
import { inlineLimits } from './inline-limits.ts';
import { migrate, type Dialect } from './migrations.ts';
import { namedStatements } from './named-statements.ts';
import type { Database } from './schema.ts';
import { kyselyLog, type StatementListener } from './statements.ts';

export interface OpenedDatabase {
  db: Kysely<Database>;
  dialect: Dialect;
  /** Embedded SQLite in a file: the hot path's synchronous access beside Kysely (direct.ts). */
  direct?: DirectSqlite;
  /**
   * PostgreSQL: a second, smaller pool whose commits do not wait for the disk (asynchronous
   * commit): visible to every session at once, on disk within three times wal_writer_delay. For
   * the writes whose loss to a power cut costs nothing answered: nonces and rate-limit counts,
   * and an idempotency key's claim (the order's own commit, after it, flushes the claim too).
   */
  relaxed?: Kysely<Database>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** postgres://… — when absent, SQLite in `dataDir`. */
  databaseUrl?: string | undefined;
  dataDir?: string;
  /** SQLite only: ':memory:' for tests. */
  filename?: string;
  /** SQLite only: `full` (default) survives power loss (the deferred commits of `direct` once flushed); `normal` only process crashes. */
  sqliteSynchronous?: 'full' | 'normal';
  /** SQLite only: how the deferred commits of `direct` are flushed to disk (tests observe it). */
  flush?: (fd: number) => Promise<void>;
  /** SQLite only: told when a deferred flush fails (default: the error log). */
  onFlushError?: (err: unknown) => void;
  /** PostgreSQL pool size. */
  poolSize?: number;
  /**
   * PostgreSQL only: keep every table in this schema (created when missing) instead of `public`,
   * so test files sharing one database never see each other's rows.
   */
  schema?: string;
  /** Hears every statement once it has run (the benchmark's statement profile, the plan check, the metrics). */
  onStatement?: StatementListener;
  /** PostgreSQL only: told when an idle pooled connection fails and is discarded (default: the error log). */
  onPoolError?: (err: Error) => void;
}

// pg returns int8 as strings to be safe beyond 2^53; our bigints are epoch ms and cents.
const INT8_OID = 20;
const pgTypes = {
  getTypeParser: (oid: number, format?: string) =>
    oid === INT8_OID ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as 'text'),
};

export async function openDatabase(options: DatabaseOptions = {}): Promise<OpenedDatabase> {
  if (options.databaseUrl) {
    const schema = options.schema;
    // The name goes into DDL and a connection option, where it cannot be a bound parameter.
    if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema))
      throw new Error(`schema must be a lowercase SQL identifier, got "${schema}"`);
    const size = options.poolSize ?? 10;
    const kysely = (max: number, settings: string[]) => {
      const pool = new pg.Pool({
        connectionString: options.databaseUrl,
        max,
        types: pgTypes,
        ...(settings.length > 0 ? { options: settings.join(' ') } : {}),
      });
      // An idle connection that the server drops (a restart, a failover, an administrator) must not
      // take the process down: pg emits it on the pool, and an unheard 'error' event is fatal. The
      // pool discards that client and connects afresh on the next query.
      pool.on(
        'error',
        options.onPoolError ??
          ((err) => console.error(`PostgreSQL: an idle connection failed and was discarded: ${err.message}`)),
      );
      return new Kysely<Database>({
        // Statements are prepared once per connection (named-statements.ts).
        dialect: new PostgresDialect({ pool: namedStatements(pool) }),
        ...(options.onStatement ? { log: kyselyLog(options.onStatement) } : {}),
      });
    };
    const path = schema ? [`-c search_path=${schema}`] : [];
    const db = kysely(size, path);
    const relaxed = kysely(Math.max(2, Math.ceil(size / 2)), [...path, '-c synchronous_commit=off']);
    try {
      if (schema) await sql.raw(`create schema if not exists "${schema}"`).execute(db);
      await migrateWithLock(db, 'postgres', schema);
    } catch (err) {
      await Promise.all([db.destroy(), relaxed.destroy()]);
      throw err;
    }
    return {
      db,
      dialect: 'postgres',
      relaxed,
      close: async () => void (await Promise.all([db.destroy(), relaxed.destroy()])),
    };
  }
  const filename = options.filename ?? join(options.dataDir ?? './data', 'service.sqlite');
  if (filename !== ':memory:') {
    makeDataDir(options.dataDir ?? './data');
    ownerOnly(filename);
  }
  const sqlite = new BetterSqlite3(filename);
  // WAL lets readers run beside the writer; a busy timeout absorbs a second process's write lock.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  // FULL (SQLite's default) syncs every commit to disk, so an answered order survives a power
  // loss; NORMAL is safe against process crashes only, and measurably faster (bench/README.md).
  const synchronous = options.sqliteSynchronous ?? 'full';
  sqlite.pragma(`synchronous = ${synchronous === 'normal' ? 'NORMAL' : 'FULL'}`);
  // A checkpoint (the log copied into the database file, both flushed to disk) runs on the
  // connection that commits, on the event loop's thread. Every WAL_AUTOCHECKPOINT_PAGES pages of
  // log rather than SQLite's 1,000, it runs a third as often and copies a page changed many times
  // once; the log grows to about 12 MB between checkpoints (bench/README.md).
  sqlite.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
  const cached = withStatementCache(sqlite);
  const db = new Kysely<Database>({
    dialect: new SqliteDialect({ database: cached }),
    plugins: [inlineLimits],
    ...(options.onStatement ? { log: kyselyLog(options.onStatement) } : {}),
  });
  await migrate(db as unknown as Kysely<unknown>, 'sqlite');
  // An in-memory database has no log to flush and is only for tests: it keeps the plain path.
  const direct =
    filename === ':memory:'
      ? undefined
      : directSqlite(sqlite, cached.prepare, {
          filename,
          synchronous,
          watched: KEPT_TABLES,
          ...(options.flush ? { flush: options.flush } : {}),
          ...(options.onFlushError ? { onFlushError: options.onFlushError } : {}),
          ...(options.onStatement ? { onStatement: options.onStatement } : {}),
        });
  return {
    db,
    dialect: 'sqlite',
    ...(direct ? { direct } : {}),
    async close() {
      direct?.close();
      await db.destroy();
    },
  };
}

/** Pages of write-ahead log (4 KiB each) after which a commit checkpoints it into the database. */
export const WAL_AUTOCHECKPOINT_PAGES = 3_000;

/** Two instances starting together must not both run the migrations. */
async function migrateWithLock(db: Kysely<Database>, dialect: Dialect, schema?: string): Promise<void> {
  await db.connection().execute(async (conn) => {
    await sql`select pg_advisory_lock(734001)`.execute(conn);
    try {
      await migrate(conn as unknown as Kysely<unknown>, dialect, schema);
    } finally {
      await sql`select pg_advisory_unlock(734001)`.execute(conn);
    }
  });
}

/** Tables whose hot reads are kept in memory until they change (row-cache.ts). */
const KEPT_TABLES = ['credentials', 'partners', 'inventory'];

/** Distinct SQL texts kept prepared; multi-row inserts vary with their row count, so it is bounded. */
const STATEMENT_CACHE_SIZE = 500;

/**
 * The database holds sealed secrets, partners' orders and customers' e-mail addresses: it is
 * readable by the server's user only (0600), like the master key beside it. SQLite creates a
 * file with 0644 less the umask, and gives its -wal and -shm files the database file's mode; so
 * the file is created 0600 before SQLite opens it, and files left by an older version are
 * tightened.
 */
function ownerOnly(filename: string): void {
  closeSync(openSync(filename, 'a', 0o600));
  for (const file of [filename, `${filename}-wal`, `${filename}-shm`]) if (existsSync(file)) chmodSync(file, 0o600);
}

/**
 * Kysely prepares every query afresh; with better-sqlite3 preparing costs about a fifth of a
 * signed request's CPU. Statements are reusable (queries run to completion, nothing streams), so
 * they are kept by SQL text; the oldest is dropped when the cache is full.
 */
function withStatementCache(sqlite: BetterSqlite3.Database): {
  close(): void;
  prepare(sql: string): BetterSqlite3.Statement;
} {
  const cache = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(sql: string) {
      let statement = cache.get(sql);
      if (!statement) {
        statement = sqlite.prepare(sql);
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
        cache.set(sql, statement);
      }
      return statement;
    },
  };
}
