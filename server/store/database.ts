// Opens the database: embedded SQLite by default (zero setup), PostgreSQL when a URL is given
// (several instances behind a load balancer share it). Migrations run before it is handed out.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { migrate, type Dialect } from './migrations.ts';
import type { Database } from './schema.ts';

export interface OpenedDatabase {
  db: Kysely<Database>;
  dialect: Dialect;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** postgres://… — when absent, SQLite in `dataDir`. */
  databaseUrl?: string | undefined;
  dataDir?: string;
  /** SQLite only: ':memory:' for tests. */
  filename?: string;
  /** PostgreSQL pool size. */
  poolSize?: number;
}

// pg returns int8 as strings to be safe beyond 2^53; our bigints are epoch ms and cents.
const INT8_OID = 20;
const pgTypes = {
  getTypeParser: (oid: number, format?: string) =>
    oid === INT8_OID ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as 'text'),
};

export async function openDatabase(options: DatabaseOptions = {}): Promise<OpenedDatabase> {
  if (options.databaseUrl) {
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: options.poolSize ?? 10, types: pgTypes });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    await migrateWithLock(db, 'postgres');
    return { db, dialect: 'postgres', close: () => db.destroy() };
  }
  const filename = options.filename ?? join(options.dataDir ?? './data', 'service.sqlite');
  if (filename !== ':memory:') mkdirSync(options.dataDir ?? './data', { recursive: true });
  const sqlite = new BetterSqlite3(filename);
  // WAL lets readers run beside the writer; a busy timeout absorbs a second process's write lock.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  await migrate(db as unknown as Kysely<unknown>, 'sqlite');
  return { db, dialect: 'sqlite', close: () => db.destroy() };
}

/** Two instances starting together must not both run the migrations. */
async function migrateWithLock(db: Kysely<Database>, dialect: Dialect): Promise<void> {
  await db.connection().execute(async (conn) => {
    await sql`select pg_advisory_lock(734001)`.execute(conn);
    try {
      await migrate(conn as unknown as Kysely<unknown>, dialect);
    } finally {
      await sql`select pg_advisory_unlock(734001)`.execute(conn);
    }
  });
}
