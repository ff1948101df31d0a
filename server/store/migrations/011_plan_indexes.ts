// 011: indexes that leave the planner one right way to run every hot statement (the plan check,
// test/server/plans.test.ts, holds them to server/store/intended-plans.ts).
// - A new order asks whether its domain already has a live order, and GET /orders filters by
//   domain: without an index on the domain, both read every order ever taken (SQLite: SCAN orders).
//   The index is in the list's order too, or SQLite prefers walking all of the partner's orders.
// - GET /orders?status= read all of the partner's orders and sorted them: one index per partner
//   and status, in the list's order.
// - Due webhook deliveries and a partner's events: see below.
// - The public listings sorted by price descending and by newest walked an ascending index and
//   sorted each page's ties by domain (PostgreSQL: Incremental Sort; SQLite: a temporary B-tree):
//   their indexes are now in their orders (the old listed_at one served nothing else).
// - PostgreSQL: the inventory's domain column takes byte order ("C"), the order its listing
//   indexes and queries already used, and SQLite's. Before, the primary key compared domains in
//   the database's collation and the listing indexes in "C": a lookup by domain could not use a
//   listing index's domain column, and on a table without statistics the planner picked
//   inventory_listing_domain by environment and status alone, reading every listed row to update
//   one (issue #20). Domains are lowercase ASCII (the import checks), so no row changes its place.
import { sql, type Kysely, type Migration } from 'kysely';
import type { Dialect } from './types.ts';

export function planIndexes(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      if (dialect === 'postgres') {
        // Rebuilds the primary key and the listing indexes on the column, and drops the column's
        // statistics, which are taken again below.
        await sql`alter table inventory alter column domain type text collate "C"`.execute(db);
      }
      await db.schema
        .createIndex('orders_domain')
        .on('orders')
        .columns(['domain', 'partner_id', 'created_at', 'public_id'])
        .execute();
      await db.schema
        .createIndex('orders_partner_status')
        .on('orders')
        .columns(['partner_id', 'status', 'created_at', 'public_id'])
        .execute();
      // Due deliveries are taken in the order they fell due: the index gives that order, so no
      // plan walks the whole outbox by id looking for pending rows among the delivered ones.
      await db.schema.dropIndex('outbox_due').execute();
      await db.schema.createIndex('outbox_due').on('outbox').columns(['status', 'next_attempt_at', 'id']).execute();
      if (dialect === 'postgres') {
        // GET /events walks one partner's events in sequence. A primary key on the sequence alone
        // offered a second walk in the same order (every partner's events, filtered), which the
        // planner took when one partner held many of them: from a poller's position near the end,
        // it read every later event of every partner. The key is now the partner's walk itself.
        // (SQLite's sequence is its rowid, and without statistics it always takes the partner's index.)
        await sql`alter table events drop constraint events_pkey`.execute(db);
        await db.schema.dropIndex('events_partner_seq').execute();
        await sql`alter table events add constraint events_pkey primary key (partner_id, seq)`.execute(db);
      }
      await db.schema.dropIndex('inventory_listing_listed_at').execute();
      await sql`create index inventory_listing_newest on inventory (environment, status, listed_at desc, domain)`.execute(
        db,
      );
      await sql`create index inventory_listing_price_desc on inventory (environment, status, price_cents desc, domain)`.execute(
        db,
      );
      if (dialect === 'postgres') await sql`analyze inventory`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      for (const name of [
        'inventory_listing_price_desc',
        'inventory_listing_newest',
        'orders_partner_status',
        'orders_domain',
        'outbox_due',
      ])
        await db.schema.dropIndex(name).ifExists().execute();
      await db.schema.createIndex('outbox_due').on('outbox').columns(['status', 'next_attempt_at']).execute();
      if (dialect === 'postgres') {
        await sql`alter table events drop constraint events_pkey`.execute(db);
        await sql`alter table events add constraint events_pkey primary key (seq)`.execute(db);
        await db.schema.createIndex('events_partner_seq').on('events').columns(['partner_id', 'seq']).execute();
      }
      const domain = dialect === 'postgres' ? sql.raw('domain collate "C"') : sql.raw('domain');
      await sql`create index inventory_listing_listed_at on inventory (environment, status, listed_at, ${domain})`.execute(
        db,
      );
      if (dialect === 'postgres')
        await sql`alter table inventory alter column domain type text collate "default"`.execute(db);
    },
  };
}
