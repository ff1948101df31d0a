// 005: sign-in users and the OAuth 2.1 authorization server (clients, grants, codes, tokens).
import type { Kysely, Migration } from 'kysely';
import { columnTypes, type Dialect } from './types.ts';

export function oauth(dialect: Dialect): Migration {
  const { big } = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('users')
        .addColumn('id', 'text', (c) => c.primaryKey())
        // Stored lowercased, so sign-in is case-insensitive on the address.
        .addColumn('email', 'text', (c) => c.notNull().unique())
        .addColumn('password_hash', 'text', (c) => c.notNull())
        .addColumn('created_at', big, (c) => c.notNull())
        .addColumn('updated_at', big, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('oauth_clients')
        .addColumn('client_id', 'text', (c) => c.primaryKey())
        // The registered metadata as echoed at registration, JSON.
        .addColumn('metadata', 'text', (c) => c.notNull())
        .addColumn('created_at', big, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('oauth_grants')
        .addColumn('grant_id', 'text', (c) => c.primaryKey())
        .addColumn('client_id', 'text', (c) => c.notNull())
        .addColumn('user_id', 'text', (c) => c.notNull())
        .addColumn('scope', 'text', (c) => c.notNull())
        .addColumn('resource', 'text', (c) => c.notNull())
        .addColumn('created_at', big, (c) => c.notNull())
        .addColumn('revoked_at', big)
        .execute();
      await db.schema
        .createTable('oauth_codes')
        .addColumn('code_hash', 'text', (c) => c.primaryKey())
        .addColumn('grant_id', 'text', (c) => c.notNull())
        .addColumn('client_id', 'text', (c) => c.notNull())
        .addColumn('redirect_uri', 'text', (c) => c.notNull())
        .addColumn('code_challenge', 'text', (c) => c.notNull())
        .addColumn('expires_at', big, (c) => c.notNull())
        .addColumn('used_at', big)
        .addColumn('created_at', big, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('oauth_tokens')
        .addColumn('token_hash', 'text', (c) => c.primaryKey())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('grant_id', 'text', (c) => c.notNull())
        .addColumn('client_id', 'text', (c) => c.notNull())
        .addColumn('scope', 'text', (c) => c.notNull())
        .addColumn('expires_at', big, (c) => c.notNull())
        .addColumn('created_at', big, (c) => c.notNull())
        // Refresh tokens only: when it was exchanged for its successor (presenting it again is reuse).
        .addColumn('rotated_at', big)
        .execute();
      await db.schema.createIndex('oauth_tokens_grant').on('oauth_tokens').column('grant_id').execute();
      await db.schema.createIndex('oauth_tokens_expires').on('oauth_tokens').column('expires_at').execute();
      await db.schema.createIndex('oauth_codes_expires').on('oauth_codes').column('expires_at').execute();
    },
    async down(db: Kysely<unknown>) {
      for (const table of ['oauth_tokens', 'oauth_codes', 'oauth_grants', 'oauth_clients', 'users']) {
        await db.schema.dropTable(table).ifExists().execute();
      }
    },
  };
}
