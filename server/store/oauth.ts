// Sign-in users and the authorization server's state. Codes and tokens are stored only as
// hashes, so a copy of the database hands out nothing usable. The races that matter (a code
// exchanged twice, a refresh token rotated twice) are settled by single conditional UPDATEs,
// which both dialects run atomically: exactly one caller sees its row change.
import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

export type UsersTable = {
  id: string;
  email: string;
  password_hash: string;
  created_at: number;
  updated_at: number;
};

export type OAuthClientsTable = {
  client_id: string;
  metadata: string;
  created_at: number;
};

export type OAuthGrantsTable = {
  grant_id: string;
  client_id: string;
  user_id: string;
  scope: string;
  resource: string;
  created_at: number;
  revoked_at: number | null;
};

export type OAuthCodesTable = {
  code_hash: string;
  grant_id: string;
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  expires_at: number;
  used_at: number | null;
  created_at: number;
};

export type OAuthTokensTable = {
  token_hash: string;
  kind: 'access' | 'refresh';
  grant_id: string;
  client_id: string;
  scope: string;
  expires_at: number;
  created_at: number;
  rotated_at: number | null;
};

// A type alias, not an interface: withTables<T> needs T to have an index signature.
const CODE_MEMORY_MS = 24 * 3600 * 1000;

export type OAuthTables = {
  users: UsersTable;
  oauth_clients: OAuthClientsTable;
  oauth_grants: OAuthGrantsTable;
  oauth_codes: OAuthCodesTable;
  oauth_tokens: OAuthTokensTable;
};

export type UserRow = UsersTable;
export type ClientRow = OAuthClientsTable;
export type GrantRow = OAuthGrantsTable;
export type CodeRow = OAuthCodesTable;
export type TokenRow = OAuthTokensTable;

/** An access token with what its grant adds (user, audience, revocation). */
export type AccessTokenRow = Pick<TokenRow, 'client_id' | 'grant_id' | 'scope' | 'expires_at'> &
  Pick<GrantRow, 'user_id' | 'resource'>;

export function oauthRepository(base: Kysely<Database>) {
  const db = base.withTables<OAuthTables>();
  return {
    async findUserByEmail(email: string): Promise<UserRow | undefined> {
      return db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
    },

    /** Inserts the user, or sets the password of the one already holding the address; returns its id. */
    async upsertUser(row: UserRow): Promise<string> {
      const saved = await db
        .insertInto('users')
        .values(row)
        .onConflict((oc) =>
          oc.column('email').doUpdateSet({ password_hash: row.password_hash, updated_at: row.updated_at }),
        )
        .returning('id')
        .executeTakeFirstOrThrow();
      return saved.id;
    },

    async insertClient(row: ClientRow): Promise<void> {
      await db.insertInto('oauth_clients').values(row).execute();
    },

    async findClient(clientId: string): Promise<ClientRow | undefined> {
      return db.selectFrom('oauth_clients').selectAll().where('client_id', '=', clientId).executeTakeFirst();
    },

    async insertGrant(row: GrantRow): Promise<void> {
      await db.insertInto('oauth_grants').values(row).execute();
    },

    async findGrant(grantId: string): Promise<GrantRow | undefined> {
      return db.selectFrom('oauth_grants').selectAll().where('grant_id', '=', grantId).executeTakeFirst();
    },

    /** Revokes a grant and with it every token descended from it; idempotent. */
    async revokeGrant(grantId: string, now: number): Promise<void> {
      await db
        .updateTable('oauth_grants')
        .set({ revoked_at: now })
        .where('grant_id', '=', grantId)
        .where('revoked_at', 'is', null)
        .execute();
    },

    async insertCode(row: CodeRow): Promise<void> {
      await db.insertInto('oauth_codes').values(row).execute();
    },

    async findCode(codeHash: string): Promise<CodeRow | undefined> {
      return db.selectFrom('oauth_codes').selectAll().where('code_hash', '=', codeHash).executeTakeFirst();
    },

    /** Marks a code used; false when another exchange used it first. */
    async claimCode(codeHash: string, now: number): Promise<boolean> {
      const result = await db
        .updateTable('oauth_codes')
        .set({ used_at: now })
        .where('code_hash', '=', codeHash)
        .where('used_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    async insertToken(row: TokenRow): Promise<void> {
      await db.insertInto('oauth_tokens').values(row).execute();
    },

    async findRefreshToken(tokenHash: string): Promise<TokenRow | undefined> {
      return db
        .selectFrom('oauth_tokens')
        .selectAll()
        .where('token_hash', '=', tokenHash)
        .where('kind', '=', 'refresh')
        .executeTakeFirst();
    },

    /** Marks a refresh token rotated; false when a parallel refresh rotated it first. */
    async rotateRefreshToken(tokenHash: string, now: number): Promise<boolean> {
      const result = await db
        .updateTable('oauth_tokens')
        .set({ rotated_at: now })
        .where('token_hash', '=', tokenHash)
        .where('kind', '=', 'refresh')
        .where('rotated_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /** A live access token: unexpired, and its grant unrevoked. */
    async findLiveAccessToken(tokenHash: string, now: number): Promise<AccessTokenRow | undefined> {
      return db
        .selectFrom('oauth_tokens as t')
        .innerJoin('oauth_grants as g', 'g.grant_id', 't.grant_id')
        .select(['t.client_id', 't.grant_id', 't.scope', 't.expires_at', 'g.user_id', 'g.resource'])
        .where('t.token_hash', '=', tokenHash)
        .where('t.kind', '=', 'access')
        .where('t.expires_at', '>', now)
        .where('g.revoked_at', 'is', null)
        .executeTakeFirst();
    },

    /**
     * Forgets codes and tokens past their life. Codes stay a day longer, so a replay of a used
     * code is still recognised (and its tokens revoked) well after its 60 s; a rotated refresh
     * token stays until its own expiry, so its reuse is recognised for as long as it could work.
     */
    async purge(now: number): Promise<void> {
      await db
        .deleteFrom('oauth_codes')
        .where('expires_at', '<', now - CODE_MEMORY_MS)
        .execute();
      await db.deleteFrom('oauth_tokens').where('expires_at', '<', now).execute();
    },
  };
}

export type OAuthRepository = ReturnType<typeof oauthRepository>;
