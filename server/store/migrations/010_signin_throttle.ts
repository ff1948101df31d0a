// 009: failed sign-in attempts, counted per account and per client address (the sign-in form's
// x-signin-throttle; store/signin-throttle.ts). Keys are derived, never an email as typed.
import type { Kysely, Migration } from 'kysely';
import { columnTypes, type Dialect } from './types.ts';

export function signinThrottle(dialect: Dialect): Migration {
  const { big } = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('signin_failures')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('failures', 'integer', (c) => c.notNull())
        .addColumn('last_failure_at', big, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('signin_failures_last').on('signin_failures').column('last_failure_at').execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('signin_failures').ifExists().execute();
    },
  };
}
