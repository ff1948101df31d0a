// 006: domains that signed-in users own and manage through the bulk operations.
import type { Kysely, Migration } from 'kysely';
import { columnTypes, type Dialect } from './types.ts';

export function userDomains(dialect: Dialect): Migration {
  const { big } = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('user_domains')
        // A domain has one registrant account, so the domain alone is the key.
        .addColumn('domain', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull())
        .addColumn('expires_at', big, (c) => c.notNull())
        .addColumn('locked', 'integer', (c) => c.notNull())
        .addColumn('auto_renew', 'integer', (c) => c.notNull())
        .addColumn('nameservers', 'text', (c) => c.notNull())
        // Bumped by every write: an update made from a stale read changes nothing (compare-and-set).
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('created_at', big, (c) => c.notNull())
        .addColumn('updated_at', big, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('user_domains_user').on('user_domains').columns(['user_id', 'domain']).execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('user_domains').ifExists().execute();
    },
  };
}
