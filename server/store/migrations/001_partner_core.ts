// 001: partners, credentials, nonces, rate limits, inventory, quotes, orders, events, outbox,
// webhook endpoints and idempotency records (reference server part 1).
import type { Kysely, Migration } from 'kysely';
import { columnTypes, type Dialect } from './types.ts';

export function partnerCore(dialect: Dialect): Migration {
  const { big, serial } = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('partners')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('environment', 'text', (c) => c.notNull())
        .addColumn('clock_offset_ms', big, (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', big, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('credentials')
        .addColumn('key_id', 'text', (c) => c.primaryKey())
        .addColumn('partner_id', 'text', (c) => c.notNull().references('partners.id'))
        .addColumn('environment', 'text', (c) => c.notNull())
        .addColumn('secret_enc', 'text', (c) => c.notNull())
        .addColumn('scopes', 'text', (c) => c.notNull())
        .addColumn('affiliate', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('approved', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('rate_limits', 'text', (c) => c.notNull().defaultTo('{}'))
        .addColumn('created_at', big, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('nonces')
        .addColumn('key_id', 'text', (c) => c.notNull())
        .addColumn('nonce', 'text', (c) => c.notNull())
        .addColumn('expires_at', big, (c) => c.notNull())
        .addPrimaryKeyConstraint('nonces_pk', ['key_id', 'nonce'])
        .execute();
      await db.schema.createIndex('nonces_expiry').on('nonces').column('expires_at').execute();
      await db.schema
        .createTable('rate_counters')
        .addColumn('bucket', 'text', (c) => c.primaryKey())
        .addColumn('count', 'integer', (c) => c.notNull())
        .addColumn('window_start', big, (c) => c.notNull())
        .addColumn('expires_at', big, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('rate_counters_expiry').on('rate_counters').column('expires_at').execute();
      await db.schema
        .createTable('inventory')
        .addColumn('environment', 'text', (c) => c.notNull())
        .addColumn('domain', 'text', (c) => c.notNull())
        .addColumn('label', 'text', (c) => c.notNull())
        .addColumn('tld', 'text', (c) => c.notNull())
        .addColumn('price_cents', big, (c) => c.notNull())
        .addColumn('floor_cents', big, (c) => c.notNull())
        .addColumn('currency', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('category', 'text', (c) => c.notNull())
        .addColumn('keywords', 'text', (c) => c.notNull())
        .addColumn('listed_at', big, (c) => c.notNull())
        .addPrimaryKeyConstraint('inventory_pk', ['environment', 'domain'])
        .execute();
      await db.schema
        .createTable('quotes')
        .addColumn('quote_id', 'text', (c) => c.primaryKey())
        .addColumn('partner_id', 'text', (c) => c.notNull())
        .addColumn('environment', 'text', (c) => c.notNull())
        .addColumn('domain', 'text', (c) => c.notNull())
        .addColumn('price_cents', big, (c) => c.notNull())
        .addColumn('expires_at', big, (c) => c.notNull())
        .addColumn('created_at', big, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('quotes_domain')
        .on('quotes')
        .columns(['environment', 'domain', 'expires_at'])
        .execute();
      await db.schema
        .createTable('orders')
        .addColumn('public_id', 'text', (c) => c.primaryKey())
        .addColumn('partner_id', 'text', (c) => c.notNull())
        .addColumn('environment', 'text', (c) => c.notNull())
        .addColumn('domain', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('held_from', 'text')
        .addColumn('sale_price_cents', big, (c) => c.notNull())
        .addColumn('currency', 'text', (c) => c.notNull())
        .addColumn('payment_model', 'text', (c) => c.notNull())
        .addColumn('buyer_email', 'text', (c) => c.notNull())
        .addColumn('buyer_country', 'text')
        .addColumn('buyer_account', 'text')
        .addColumn('quote_id', 'text')
        .addColumn('external_payment_ref', 'text')
        .addColumn('checkout_session_id', 'text')
        .addColumn('created_at', big, (c) => c.notNull())
        .addColumn('updated_at', big, (c) => c.notNull())
        .addColumn('transfer_completed_at', big)
        .execute();
      await db.schema
        .createIndex('orders_partner_created')
        .on('orders')
        .columns(['partner_id', 'created_at', 'public_id'])
        .execute();
      await db.schema
        .createTable('order_timeline')
        .addColumn('public_id', 'text', (c) => c.notNull())
        .addColumn('idx', 'integer', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('event_type', 'text')
        .addColumn('event_id', 'text')
        .addColumn('at', big, (c) => c.notNull())
        .addColumn('note', 'text')
        .addPrimaryKeyConstraint('order_timeline_pk', ['public_id', 'idx'])
        .execute();
      await db.schema
        .createTable('events')
        .addColumn('seq', serial.type, serial.column)
        .addColumn('id', 'text', (c) => c.notNull().unique())
        .addColumn('partner_id', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('created_at', big, (c) => c.notNull())
        .addColumn('body', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('events_partner_seq').on('events').columns(['partner_id', 'seq']).execute();
      await db.schema
        .createTable('outbox')
        .addColumn('id', serial.type, serial.column)
        .addColumn('event_id', 'text', (c) => c.notNull())
        .addColumn('partner_id', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_at', big, (c) => c.notNull())
        .addColumn('lease_until', big)
        .addColumn('last_error', 'text')
        .addColumn('delivered_at', big)
        .execute();
      await db.schema.createIndex('outbox_due').on('outbox').columns(['status', 'next_attempt_at']).execute();
      await db.schema
        .createTable('webhook_endpoints')
        .addColumn('partner_id', 'text', (c) => c.primaryKey())
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('secret_enc', 'text', (c) => c.notNull())
        .addColumn('active', 'integer', (c) => c.notNull())
        .addColumn('created_at', big, (c) => c.notNull())
        .addColumn('updated_at', big, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('idempotency')
        .addColumn('key_id', 'text', (c) => c.notNull())
        .addColumn('idem_key', 'text', (c) => c.notNull())
        .addColumn('fingerprint', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('status_code', 'integer')
        .addColumn('body', 'text')
        .addColumn('headers', 'text')
        .addColumn('created_at', big, (c) => c.notNull())
        .addColumn('expires_at', big, (c) => c.notNull())
        .addPrimaryKeyConstraint('idempotency_pk', ['key_id', 'idem_key'])
        .execute();
    },
    async down(db: Kysely<unknown>) {
      for (const table of [
        'idempotency',
        'webhook_endpoints',
        'outbox',
        'events',
        'order_timeline',
        'orders',
        'quotes',
        'inventory',
        'rate_counters',
        'nonces',
        'credentials',
        'partners',
      ]) {
        await db.schema.dropTable(table).ifExists().execute();
      }
    },
  };
}
