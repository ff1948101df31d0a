// Schema migrations, run at start. Each lives in migrations/ and is written once for both
// dialects (migrations/types.ts has the two column types that differ).
import { Migrator, type Kysely, type Migration } from 'kysely';
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
  const migrator = new Migrator({ db, provider: { getMigrations: async () => all }, ...(schema ? { migrationTableSchema: schema } : {}) });
  for (let attempt = 1; ; attempt++) {
    const { error, results } = await migrator.migrateToLatest();
    if (!error) return;
    // Kysely looks for its bookkeeping tables by listing every table of every schema; on a
    // PostgreSQL shared with others (test runs in schemas of their own), a schema dropped during
    // that listing fails it before anything of ours ran. Nothing was migrated then: try again.
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    const message = error instanceof Error ? error.message : String(error);
    if (failed === undefined && attempt < 5 && /^schema "[^"]+" does not exist$/.test(message) && !message.includes(`"${schema}"`)) continue;
    throw new Error(`Migration ${failed ?? 'unknown'} failed: ${message}`);
  }
}
