// Partners and their credentials. Secrets are sealed at rest and opened only to verify a request.
import { sql, type Kysely } from 'kysely';
import type { SecretBox } from '../security/secret-box.ts';
import type { DirectSqlite } from './direct.ts';
import { keptRead, template } from './prepared.ts';
import type { ReadMark } from './row-cache.ts';
import type { Database, Environment } from './schema.ts';
import { turnReads } from './turn-reads.ts';

export type RateLimitOverrides = Partial<Record<'search' | 'write' | 'reporting', number>>;

export interface Credential {
  keyId: string;
  partnerId: string;
  environment: Environment;
  secret: string;
  scopes: string[];
  affiliate: boolean;
  approved: boolean;
  rateLimits: RateLimitOverrides;
  createdAt: number;
}

export interface Partner {
  id: string;
  environment: Environment;
  clockOffsetMs: number;
  createdAt: number;
}

/** Bound on the opened-secret cache (oldest dropped first). */
const OPENED_SECRETS_KEPT = 10_000;
/** PostgreSQL: bound on the credential rows last read (oldest dropped first). */
const KEPT_CREDENTIALS = 10_000;

type CredentialRow = Database['credentials'];

export function credentialRepository(db: Kysely<Database>, box: SecretBox, direct?: DirectSqlite, onPostgres = false) {
  const toPartner = (row: Database['partners']): Partner => ({
    id: row.id,
    environment: row.environment,
    clockOffsetMs: row.clock_offset_ms,
    createdAt: row.created_at,
  });
  // Every signed request opens its credential's secret. A sealed value always opens to the same
  // secret, so opened secrets are kept by their ciphertext: nothing can go stale (a rotated
  // secret is a new ciphertext), and an AES-GCM decryption (a third of a lookup's cost) is saved.
  const opened = new Map<string, string>();
  const open = (sealed: string): string => {
    let secret = opened.get(sealed);
    if (secret === undefined) {
      secret = box.open(sealed);
      if (opened.size >= OPENED_SECRETS_KEPT) opened.delete(opened.keys().next().value as string);
      opened.set(sealed, secret);
    }
    return secret;
  };
  // Every signed request reads its credential and every partner route its partner; both change rarely.
  const keptCredential = keptRead(db, direct, 'credentials', 1, (q, keyId: string) =>
    q.selectFrom('credentials').selectAll().where('key_id', '=', keyId),
  );
  const keptPartner = keptRead(db, direct, 'partners', 1, (q, id: string) =>
    q.selectFrom('partners').selectAll().where('id', '=', id),
  );
  // Over the network (PostgreSQL, shared by every instance), a kept row never answers alone: the
  // admin API says a change to a credential (its approval, scopes, limits) "applies from the
  // partner's next request", on whichever instance it lands. The lookups of the requests that
  // arrive together go out as one statement (turn-reads.ts): one round trip for all of them, and
  // each still sees every commit made before its request asked; a signed request may instead use
  // the row last read if its admission confirms it (`lastRead`). Embedded SQLite keeps its rows
  // (row-cache.ts), and a transaction reads its own way.
  const batched = onPostgres && !db.isTransaction;
  // Built once (the keys are one bound array): building the query per batch cost as much as sending it.
  // Each row comes with its digest (md5 of the whole row as text), which a signed request's
  // admission later compares with the row as it then stands (`lastRead` below).
  const credentialsOf = template<[string[]], CredentialRow & { row_digest: string }>(1, (keys) =>
    db
      .selectFrom('credentials')
      .selectAll()
      .select(sql<string>`md5(credentials::text)`.as('row_digest'))
      .where('key_id', '=', sql<string>`any(${keys}::text[])`),
  );
  const partnersOf = template<[string[]], Database['partners']>(1, (ids) =>
    db
      .selectFrom('partners')
      .selectAll()
      .where('id', '=', sql<string>`any(${ids}::text[])`),
  );
  // PostgreSQL: the row last read for each key id, with its digest. Never an answer on its own: a
  // signed request may verify its signature with it only because its admission, a write it makes
  // anyway, checks in the same statement that the row still has that digest (replay-guard.ts
  // `admitQuery`); otherwise the request reads again. So a change committed before a request's
  // admission applies to it, as a change committed before its read did, and the request saves the
  // read's round trip (bench/README.md, "Figures behind design choices").
  const lastRead = new Map<string, { row: CredentialRow; digest: string }>();
  const credentialsByKeyIds = turnReads(
    async (keys: string[]) => {
      const rows = (await db.executeQuery(credentialsOf([keys]))).rows;
      for (const key of keys) lastRead.delete(key);
      for (const { row_digest: digest, ...row } of rows) {
        if (lastRead.size >= KEPT_CREDENTIALS) lastRead.delete(lastRead.keys().next().value as string);
        lastRead.set(row.key_id, { row, digest });
      }
      return rows;
    },
    (row) => row.key_id,
  );
  const partnersByIds = turnReads(
    async (ids: string[]) => (await db.executeQuery(partnersOf([ids]))).rows,
    (row) => row.id,
  );
  const credentialByKeyId = (since: ReadMark | undefined, keyId: string) =>
    batched ? credentialsByKeyIds(keyId) : keptCredential(since, keyId);
  const partnerById = (since: ReadMark | undefined, id: string) =>
    batched ? partnersByIds(id) : keptPartner(since, id);
  // A row kept in memory (row-cache.ts) is one frozen object until its table changes, so the
  // credential made from it is made once too: every signed request would otherwise parse its
  // scopes and limits again. Keyed by the row object itself, a changed row is a new key.
  const fromRow = new WeakMap<object, Credential>();
  const toCredential = (row: CredentialRow): Credential => {
    let credential = fromRow.get(row);
    if (credential === undefined) {
      credential = Object.freeze({
        keyId: row.key_id,
        partnerId: row.partner_id,
        environment: row.environment,
        secret: open(row.secret_enc),
        scopes: Object.freeze(JSON.parse(row.scopes) as string[]) as string[],
        affiliate: row.affiliate === 1,
        approved: row.approved === 1,
        rateLimits: Object.freeze(JSON.parse(row.rate_limits) as RateLimitOverrides),
        createdAt: row.created_at,
      });
      fromRow.set(row, credential);
    }
    return credential;
  };
  return {
    /** `since`: the request's mark (row-cache.ts), when it has one. The credential is frozen and shared. */
    async findCredential(keyId: string, since?: ReadMark): Promise<Credential | undefined> {
      const [row] = await credentialByKeyId(since, keyId);
      return row ? toCredential(row) : undefined;
    },

    /**
     * PostgreSQL: the credential of `keyId` as this instance last read it, with the row's digest;
     * to be used only by a request whose admission confirms that digest (replay-guard.ts `admit`).
     * Undefined elsewhere, inside a transaction, or when this instance has not read the key id.
     */
    lastRead(keyId: string): { credential: Credential; digest: string } | undefined {
      const kept = batched ? lastRead.get(keyId) : undefined;
      return kept && { credential: toCredential(kept.row), digest: kept.digest };
    },

    /** `since`: the request's mark (row-cache.ts), when it has one. */
    async findPartner(id: string, since?: ReadMark): Promise<Partner | undefined> {
      const [row] = await partnerById(since, id);
      return row ? toPartner(row) : undefined;
    },

    async createPartner(partner: Partner): Promise<void> {
      await db
        .insertInto('partners')
        .values({
          id: partner.id,
          environment: partner.environment,
          clock_offset_ms: partner.clockOffsetMs,
          created_at: partner.createdAt,
        })
        .execute();
    },

    async createCredential(c: Credential): Promise<void> {
      await db
        .insertInto('credentials')
        .values({
          key_id: c.keyId,
          partner_id: c.partnerId,
          environment: c.environment,
          secret_enc: box.seal(c.secret),
          scopes: JSON.stringify(c.scopes),
          affiliate: c.affiliate ? 1 : 0,
          approved: c.approved ? 1 : 0,
          rate_limits: JSON.stringify(c.rateLimits),
          created_at: c.createdAt,
        })
        .execute();
    },

    async updateCredential(
      keyId: string,
      patch: { scopes?: string[]; affiliate?: boolean; approved?: boolean; rateLimits?: RateLimitOverrides },
    ): Promise<void> {
      await db
        .updateTable('credentials')
        .set({
          ...(patch.scopes ? { scopes: JSON.stringify(patch.scopes) } : {}),
          ...(patch.affiliate !== undefined ? { affiliate: patch.affiliate ? 1 : 0 } : {}),
          ...(patch.approved !== undefined ? { approved: patch.approved ? 1 : 0 } : {}),
          ...(patch.rateLimits ? { rate_limits: JSON.stringify(patch.rateLimits) } : {}),
        })
        .where('key_id', '=', keyId)
        .execute();
    },

    async advanceClock(partnerId: string, ms: number): Promise<Partner | undefined> {
      await db
        .updateTable('partners')
        .set((eb) => ({ clock_offset_ms: eb('clock_offset_ms', '+', ms) }))
        .where('id', '=', partnerId)
        .execute();
      return this.findPartner(partnerId);
    },
  };
}

export type CredentialRepository = ReturnType<typeof credentialRepository>;
