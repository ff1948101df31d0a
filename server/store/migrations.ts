// Schema migrations, run at start. Each lives in migrations/ and is written once for both
// dialects (migrations/types.ts has the two column types that differ).
import { Migrator, sql, type Kysely, type Migration } from 'kysely';
import { partnerCore } from './migrations/001_partner_core.ts';
import { settlement } from './migrations/002_settlement.ts';
import { checkoutReferral } from './migrations/003_checkout_referral.ts';
import { brokerage } from './migrations/004_brokerage.ts';
import { oauth } from './migrations/005_oauth.ts';
import { userDomains } from './migrations/006_user_domains.ts';
import { listingIndex } from './migrations/007_listing_index.ts';
import { nonceLog } from './migrations/008_nonce_log.ts';
import { planIndexes } from './migrations/009_plan_indexes.ts';
import type { Dialect } from './migrations/types.ts';

export type { Dialect };

/**
 * Every migration, in order. A feature adds its tables in a file of its own under migrations/
 * and one line here; a migration that has run is never edited.
 */
export function migrations(dialect: Dialect): Record<string, Migration> {
  return {
    '001_partner_core': partnerCore(dialect),
    '002_settlement': settlement(dialect),
    '003_checkout_referral': checkoutReferral(dialect),
    '004_brokerage': brokerage(dialect),
    '005_oauth': oauth(dialect),
    '006_user_domains': userDomains(dialect),
    '007_listing_index': listingIndex(dialect),
    '008_nonce_log': nonceLog(dialect),
    '009_plan_indexes': planIndexes(dialect),
  };
}

/**
 * Brings the schema up to date; throws with the failing migration's name. With `schema`, the
 * migration bookkeeping lives in that schema too: unqualified, Kysely would find another
 * schema's bookkeeping table and believe this one already migrated.
 */
export async function migrate(db: Kysely<unknown>, dialect: Dialect, schema?: string): Promise<void> {
  const all = migrations(dialect);
  const migrator = new Migrator({ db: dialect === 'postgres' ? withBookkeepingLookup(db, schema) : db, provider: { getMigrations: async () => all }, ...(schema ? { migrationTableSchema: schema } : {}) });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`Migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * PostgreSQL: `db` with an introspection that answers only what the Migrator asks (do the
 * schema and its two bookkeeping tables exist?), from the catalogs alone. Kysely's own lists
 * every column of every table of every schema through functions that resolve each table by name,
 * so on a server shared with others (test runs keep schemas of their own and drop them) a schema
 * dropped meanwhile failed the migration ("schema ... does not exist") before anything of ours ran.
 */
function withBookkeepingLookup(db: Kysely<unknown>, schema: string | undefined): Kysely<unknown> {
  const introspection = {
    async getSchemas() {
      return (await sql<{ name: string }>`select nspname as name from pg_catalog.pg_namespace`.execute(db)).rows;
    },
    async getTables() {
      const { rows } = await sql<{ name: string; schema: string }>`
        select c.relname as name, n.nspname as schema from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
        where c.relname in ('kysely_migration', 'kysely_migration_lock') and n.nspname = ${schema ?? sql`current_schema()`}`.execute(db);
      return rows.map((r) => ({ ...r, isView: false, columns: [] }));
    },
    async getMetadata() {
      return { tables: await this.getTables() };
    },
  };
  // Methods run on the real instance (Kysely keeps private fields); only the introspection differs.
  return new Proxy(db, {
    get(target, property) {
      if (property === 'introspection') return introspection;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
