// 007: indexes for the public marketplace listings (GET /api/market/listings): each sort walks
// an index in its order from the cursor's row instead of sorting the environment's inventory for
// every page. Ties are broken by domain in byte order, which PostgreSQL needs spelled `collate "C"`
// to match (the queries say the same; see store/inventory.ts).
import { sql, type Kysely, type Migration } from 'kysely';
import type { Dialect } from './types.ts';

export function listingIndex(dialect: Dialect): Migration {
  const domain = dialect === 'postgres' ? sql.raw('domain collate "C"') : sql.raw('domain');
  return {
    async up(db: Kysely<unknown>) {
      await sql`create index inventory_listing_price on inventory (environment, status, price_cents, ${domain})`.execute(
        db,
      );
      await sql`create index inventory_listing_listed_at on inventory (environment, status, listed_at, ${domain})`.execute(
        db,
      );
      await sql`create index inventory_listing_domain on inventory (environment, status, ${domain})`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      for (const name of ['inventory_listing_price', 'inventory_listing_listed_at', 'inventory_listing_domain'])
        await db.schema.dropIndex(name).ifExists().execute();
    },
  };
}
