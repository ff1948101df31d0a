// 013: the public listings' four indexes hold listed rows only (partial: `where status = 'listed'`),
// with the status out of their keys. Every query they serve reads listed rows alone (the
// marketplace listings, the search index's source; the queries say `status = 'listed'` as a
// literal, since neither planner uses a partial index for a bound parameter), so a sold row in
// them was never read, only paid for: a sale (listed → sold) moved the row within all four (a
// second page of each dirtied, and on SQLite written with the order's commit); now it only leaves
// them, and on PostgreSQL, whose update leaves the old entries to vacuum, writes nothing to them.
// Measured on POST /orders in bench/README.md ("Issue 36, thirteenth session").
import { sql, type Kysely, type Migration } from 'kysely';

/** Name, then the key after the environment (the sort's columns, ties by domain). */
const LISTING_INDEXES: ReadonlyArray<[string, string]> = [
  ['inventory_listing_domain', 'domain'],
  ['inventory_listing_price', 'price_cents, domain'],
  ['inventory_listing_price_desc', 'price_cents desc, domain'],
  ['inventory_listing_newest', 'listed_at desc, domain'],
];

export function listedOnlyIndexes(): Migration {
  // PostgreSQL's domain column compares in byte order since 011 (collate "C"), the order the
  // queries sort in; SQLite's always did.
  const rebuild = async (db: Kysely<unknown>, partial: boolean) => {
    for (const [name, key] of LISTING_INDEXES) {
      await sql.raw(`drop index ${name}`).execute(db);
      await sql
        .raw(
          partial
            ? `create index ${name} on inventory (environment, ${key}) where status = 'listed'`
            : `create index ${name} on inventory (environment, status, ${key})`,
        )
        .execute(db);
    }
  };
  return {
    up: (db) => rebuild(db, true),
    down: (db) => rebuild(db, false),
  };
}
