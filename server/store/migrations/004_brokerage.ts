// 004: brokerage cases and their timelines (reference server part 2, brokerage).
import type { Kysely, Migration } from 'kysely';
import { columnTypes, type Dialect } from './types.ts';

export function brokerage(dialect: Dialect): Migration {
  const { big } = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('brokerage_cases')
        .addColumn('case_id', 'text', (c) => c.primaryKey())
        .addColumn('partner_id', 'text', (c) => c.notNull())
        .addColumn('environment', 'text', (c) => c.notNull())
        .addColumn('domain', 'text', (c) => c.notNull())
        // The domain while the case is open, null once final: the unique index below lets one
        // open case per domain exist even under concurrent opens (NULLs never collide).
        .addColumn('open_domain', 'text')
        .addColumn('tier', 'text', (c) => c.notNull())
        .addColumn('buyer_email', 'text', (c) => c.notNull())
        .addColumn('budget_cents', big, (c) => c.notNull())
        .addColumn('currency', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('final_price_cents', big)
        .addColumn('progress_token', 'text', (c) => c.notNull().unique())
        .addColumn('created_at', big, (c) => c.notNull())
        .addColumn('updated_at', big, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('brokerage_cases_open_domain')
        .unique()
        .on('brokerage_cases')
        .columns(['environment', 'open_domain'])
        .execute();
      await db.schema
        .createIndex('brokerage_cases_partner_created')
        .on('brokerage_cases')
        .columns(['partner_id', 'created_at', 'case_id'])
        .execute();
      await db.schema
        .createTable('brokerage_timeline')
        .addColumn('case_id', 'text', (c) => c.notNull())
        .addColumn('idx', 'integer', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('event_id', 'text')
        .addColumn('at', big, (c) => c.notNull())
        .addColumn('note', 'text')
        .addPrimaryKeyConstraint('brokerage_timeline_pk', ['case_id', 'idx'])
        .execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('brokerage_timeline').ifExists().execute();
      await db.schema.dropTable('brokerage_cases').ifExists().execute();
    },
  };
}
