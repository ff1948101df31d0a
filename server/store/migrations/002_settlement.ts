// 002: settlement statements and the orders each settled, payouts, and per-partner commission
// rates (reference server part 2, settlement and reporting).
import type { Kysely, Migration } from 'kysely';
import { columnTypes, type Dialect } from './types.ts';

export function settlement(dialect: Dialect): Migration {
  const { big } = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('statements')
        .addColumn('statement_id', 'text', (c) => c.primaryKey())
        .addColumn('partner_id', 'text', (c) => c.notNull())
        .addColumn('period_start', big, (c) => c.notNull())
        .addColumn('period_end', big, (c) => c.notNull())
        .addColumn('gross_sold_cents', big, (c) => c.notNull())
        .addColumn('commission_retained_cents', big, (c) => c.notNull())
        .addColumn('amount_owed_cents', big, (c) => c.notNull())
        .addColumn('service_collected_gross_cents', big, (c) => c.notNull())
        .addColumn('commission_payable_cents', big, (c) => c.notNull())
        .addColumn('currency', 'text', (c) => c.notNull())
        .addColumn('order_count', 'integer', (c) => c.notNull())
        .addColumn('created_at', big, (c) => c.notNull())
        // Two concurrent runs both start the partner's next period where the previous one ended:
        // this makes the second one's insert fail, so a period is never written twice.
        .addUniqueConstraint('statements_partner_start', ['partner_id', 'period_start'])
        .execute();
      await db.schema
        .createIndex('statements_partner_end')
        .on('statements')
        .columns(['partner_id', 'period_end', 'statement_id'])
        .execute();
      await db.schema
        .createTable('statement_orders')
        // One row per order, ever: an order is settled by exactly one statement.
        .addColumn('public_id', 'text', (c) => c.primaryKey())
        .addColumn('statement_id', 'text', (c) => c.notNull())
        .addColumn('partner_id', 'text', (c) => c.notNull())
        .addColumn('payment_model', 'text', (c) => c.notNull())
        .addColumn('sale_price_cents', big, (c) => c.notNull())
        .addColumn('commission_cents', big, (c) => c.notNull())
        .addColumn('settled_at', big, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('statement_orders_statement')
        .on('statement_orders')
        .columns(['statement_id', 'public_id'])
        .execute();
      await db.schema
        .createTable('payouts')
        .addColumn('payout_id', 'text', (c) => c.primaryKey())
        .addColumn('partner_id', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('amount_cents', big, (c) => c.notNull())
        .addColumn('currency', 'text', (c) => c.notNull())
        .addColumn('paid_at', big, (c) => c.notNull())
        .addColumn('created_at', big, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('payouts_partner_paid')
        .on('payouts')
        .columns(['partner_id', 'paid_at', 'payout_id'])
        .execute();
      await db.schema
        .createTable('partner_commission_rates')
        .addColumn('partner_id', 'text', (c) => c.primaryKey())
        .addColumn('partner_collected_bps', 'integer', (c) => c.notNull())
        .addColumn('service_collected_bps', 'integer', (c) => c.notNull())
        .addColumn('referral_bps', 'integer', (c) => c.notNull())
        .addColumn('brokerage_bps', 'integer', (c) => c.notNull())
        .addColumn('updated_at', big, (c) => c.notNull())
        .execute();
    },
    async down(db: Kysely<unknown>) {
      for (const table of ['partner_commission_rates', 'payouts', 'statement_orders', 'statements']) {
        await db.schema.dropTable(table).ifExists().execute();
      }
    },
  };
}
