// 008 (SQLite only): nonces move from a table keyed by the nonce to an append-only log indexed in
// memory (store/nonce-ledger.ts says why). Live nonces are carried over, so an upgrade opens no
// window for replays. PostgreSQL keeps its nonces table: its instances decide through the unique
// key, and its commit costs no page per nonce the way SQLite's does.
import { sql, type Kysely, type Migration } from 'kysely';
import type { Dialect } from './types.ts';

export function nonceLog(dialect: Dialect): Migration {
  if (dialect === 'postgres') return { async up() {} };
  return {
    async up(db: Kysely<unknown>) {
      // `seq` is the rowid: each row gets a higher one than every row before it, as long as the
      // newest row is never deleted (the purge keeps it; replay-guard.ts).
      await sql`create table nonce_log (seq integer primary key, key_id text not null, nonce text not null, expires_at integer not null)`.execute(
        db,
      );
      await sql`create index nonce_log_expiry on nonce_log (expires_at)`.execute(db);
      await sql`insert into nonce_log (key_id, nonce, expires_at) select key_id, nonce, expires_at from nonces order by expires_at`.execute(
        db,
      );
      await db.schema.dropTable('nonces').execute();
    },
    async down(db: Kysely<unknown>) {
      await sql`create table nonces (key_id text not null, nonce text not null, expires_at integer not null, constraint nonces_pk primary key (key_id, nonce))`.execute(
        db,
      );
      await sql`create index nonces_expiry on nonces (expires_at)`.execute(db);
      await sql`insert or replace into nonces (key_id, nonce, expires_at) select key_id, nonce, max(expires_at) from nonce_log group by key_id, nonce`.execute(
        db,
      );
      await db.schema.dropTable('nonce_log').execute();
    },
  };
}
