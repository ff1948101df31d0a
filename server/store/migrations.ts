// Schema migrations, run at start. Each lives in migrations/ and is written once for both
// dialects (migrations/types.ts has the two column types that differ).
import { sql, type Kysely, type Migration } from 'kysely';
import { partnerCore } from './migrations/001_partner_core.ts';
import { settlement } from './migrations/002_settlement.ts';
import { checkoutReferral } from './migrations/003_checkout_referral.ts';
import { brokerage } from './migrations/004_brokerage.ts';
import { oauth } from './migrations/005_oauth.ts';
import { userDomains } from './migrations/006_user_domains.ts';
import { listingIndex } from './migrations/007_listing_index.ts';
import { nonceLog } from './migrations/008_nonce_log.ts';
import { outboxByPartner } from './migrations/009_outbox_by_partner.ts';
import { signinThrottle } from './migrations/010_signin_throttle.ts';
import { planIndexes } from './migrations/011_plan_indexes.ts';
import { listingReservation } from './migrations/012_listing_reservation.ts';
import { listedOnlyIndexes } from './migrations/013_listed_only_indexes.ts';
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
    '009_outbox_by_partner': outboxByPartner(),
    '010_signin_throttle': signinThrottle(dialect),
    '011_plan_indexes': planIndexes(dialect),
    '012_listing_reservation': listingReservation(dialect),
    '013_listed_only_indexes': listedOnlyIndexes(),
  };
}

/**
 * Brings the schema up to date; throws with the failing migration's name. Each pending migration
 * runs in its own transaction with its bookkeeping row, so a failure leaves no half-applied one.
 *
 * The bookkeeping is Kysely's own table (`kysely_migration`: name, timestamp), so databases
 * migrated before keep working, but Kysely's Migrator is not used: it looks for its table by
 * introspecting every schema of the database, which fails ("schema … does not exist") whenever
 * another client drops a schema at that moment, as parallel test files and other tenants of a
 * shared PostgreSQL do. Here the table is named in this schema only. With `schema`, the
 * bookkeeping lives in that schema; the caller holds the lock that keeps two instances from
 * migrating at once.
 */
export async function migrate(db: Kysely<unknown>, dialect: Dialect, schema?: string): Promise<void> {
  const table = schema ? `"${schema}"."kysely_migration"` : '"kysely_migration"';
  await sql
    .raw(
      `create table if not exists ${table} (name varchar(255) not null primary key, timestamp varchar(255) not null)`,
    )
    .execute(db);
  const { rows } = await sql.raw<{ name: string }>(`select name from ${table} order by name`).execute(db);
  const all = migrations(dialect);
  const names = Object.keys(all);
  const applied = rows.map((r) => r.name);
  const unknown = applied.filter((name) => !(name in all));
  if (unknown.length > 0) {
    throw new Error(
      `The database has migrations this server does not know (${unknown.join(', ')}): it was migrated by a newer version`,
    );
  }
  // Applied migrations are always the first ones in order; anything else means the list was edited.
  if (applied.some((name, i) => names[i] !== name))
    throw new Error(`Applied migrations (${applied.join(', ')}) are not a prefix of ${names.join(', ')}`);
  for (const name of names.slice(applied.length)) {
    const migration = all[name] as Migration;
    try {
      await db.transaction().execute(async (trx) => {
        await migration.up(trx);
        await sql
          .raw(`insert into ${table} (name, timestamp) values ('${name}', '${new Date().toISOString()}')`)
          .execute(trx);
      });
    } catch (error) {
      throw new Error(`Migration ${name} failed: ${error instanceof Error ? error.message : String(error)}`, {
        cause: error,
      });
    }
  }
}
