// 009: indexes that leave the planner one right choice for every hot statement (the plan check,
// test/server/plans.test.ts, holds them to it).
// - A new order asks whether its domain already has a live order: without an index on the
//   domain, that read scanned every order ever taken, on both dialects.
// - PostgreSQL: the inventory's domain column takes byte order ("C"), the order its listing
//   indexes and queries already used, and SQLite's. Before, the primary key compared domains in
//   the database's collation and the listing indexes in "C": a lookup by domain could not use the
//   listing index's domain column, and on a table without statistics the planner could (and did)
//   pick that index by environment and status alone, reading every listed row to update one.
//   Domains are lowercase ASCII (the import checks), so no existing row changes its place.
import { sql, type Kysely, type Migration } from 'kysely';
import type { Dialect } from './types.ts';

export function planIndexes(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.createIndex('orders_domain').on('orders').columns(['environment', 'domain']).execute();
      if (dialect === 'postgres') {
        // Rebuilds the primary key and the listing indexes on the column, and drops the column's
        // statistics, which are taken again at once.
        await sql`alter table inventory alter column domain type text collate "C"`.execute(db);
        await sql`analyze inventory`.execute(db);
      }
    },
    async down(db: Kysely<unknown>) {
      if (dialect === 'postgres') await sql`alter table inventory alter column domain type text collate "default"`.execute(db);
      await db.schema.dropIndex('orders_domain').ifExists().execute();
    },
  };
}
