// 003: hosted checkout sessions, referral links and clicks, attributed sales, the commission
// ledger and referral payouts (reference server part 2, checkout and referral).
import type { Kysely, Migration } from 'kysely';
import { columnTypes, type Dialect } from './types.ts';

export function checkoutReferral(dialect: Dialect): Migration {
  const { big, serial } = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('checkout_sessions')
        .addColumn('session_id', 'text', (c) => c.primaryKey())
        .addColumn('partner_id', 'text', (c) => c.notNull())
        .addColumn('environment', 'text', (c) => c.notNull())
        .addColumn('domain', 'text', (c) => c.notNull())
        .addColumn('price_cents', big, (c) => c.notNull())
        .addColumn('currency', 'text', (c) => c.notNull())
        .addColumn('buyer_email', 'text', (c) => c.notNull())
        .addColumn('buyer_country', 'text')
        .addColumn('buyer_account', 'text')
        .addColumn('return_url', 'text', (c) => c.notNull())
        .addColumn('cancel_url', 'text', (c) => c.notNull())
        .addColumn('quote_id', 'text')
        .addColumn('click_id', 'text')
        .addColumn('link_id', 'text')
        .addColumn('referred_at', big)
        .addColumn('order_id', 'text')
        .addColumn('paid_at', big)
        .addColumn('created_at', big, (c) => c.notNull())
        .addColumn('expires_at', big, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('checkout_sessions_link')
        .on('checkout_sessions')
        .columns(['partner_id', 'link_id', 'referred_at'])
        .execute();
      await db.schema
        .createTable('referral_links')
        .addColumn('link_id', 'text', (c) => c.primaryKey())
        .addColumn('code', 'text', (c) => c.notNull().unique())
        .addColumn('partner_id', 'text', (c) => c.notNull())
        .addColumn('environment', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('domain', 'text')
        .addColumn('product', 'text')
        .addColumn('created_at', big, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('referral_links_partner')
        .on('referral_links')
        .columns(['partner_id', 'created_at', 'link_id'])
        .execute();
      await db.schema
        .createTable('referral_clicks')
        .addColumn('click_id', 'text', (c) => c.primaryKey())
        .addColumn('link_id', 'text', (c) => c.notNull())
        .addColumn('partner_id', 'text', (c) => c.notNull())
        .addColumn('created_at', big, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('referral_clicks_partner')
        .on('referral_clicks')
        .columns(['partner_id', 'created_at'])
        .execute();
      await db.schema
        .createTable('referral_sales')
        .addColumn('public_id', 'text', (c) => c.primaryKey())
        .addColumn('partner_id', 'text', (c) => c.notNull())
        .addColumn('link_id', 'text', (c) => c.notNull())
        .addColumn('click_id', 'text', (c) => c.notNull())
        .addColumn('domain', 'text', (c) => c.notNull())
        .addColumn('buyer_email', 'text', (c) => c.notNull())
        .addColumn('buyer_country', 'text')
        .addColumn('amount_cents', big, (c) => c.notNull())
        .addColumn('commission_cents', big, (c) => c.notNull())
        .addColumn('currency', 'text', (c) => c.notNull())
        .addColumn('sold_at', big, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('referral_sales_partner')
        .on('referral_sales')
        .columns(['partner_id', 'sold_at', 'public_id'])
        .execute();
      await db.schema
        .createTable('commission_ledger')
        .addColumn('seq', serial.type, serial.column)
        .addColumn('entry_id', 'text', (c) => c.notNull().unique())
        .addColumn('partner_id', 'text', (c) => c.notNull())
        .addColumn('public_id', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('amount_cents', big, (c) => c.notNull())
        .addColumn('currency', 'text', (c) => c.notNull())
        .addColumn('payout_id', 'text')
        .addColumn('created_at', big, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('commission_ledger_partner')
        .on('commission_ledger')
        .columns(['partner_id', 'seq'])
        .execute();
    },
    async down(db: Kysely<unknown>) {
      for (const table of [
        'commission_ledger',
        'referral_sales',
        'referral_clicks',
        'referral_links',
        'checkout_sessions',
      ]) {
        await db.schema.dropTable(table).ifExists().execute();
      }
    },
  };
}
