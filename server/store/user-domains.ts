// Domains owned by signed-in users (the accounts behind OAuth grants), managed by the bulk
// operations. The table is declared here rather than in schema.ts so this feature's storage
// stays in its own files. Every write is a compare-and-set on `version`, so a change computed
// from a stale read is refused instead of overwriting a concurrent one.
import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

export type UserDomainsTable = {
  domain: string;
  user_id: string;
  /** Epoch ms. */
  expires_at: number;
  locked: number;
  auto_renew: number;
  /** JSON array of lowercase host names. */
  nameservers: string;
  version: number;
  created_at: number;
  updated_at: number;
};

// A type alias, not an interface: withTables<T> needs T to have an index signature.
export type UserDomainTables = { user_domains: UserDomainsTable };

/** A domain's managed state as the application sees it. */
export interface ManagedDomain {
  domain: string;
  userId: string;
  expiresAt: number;
  locked: boolean;
  autoRenew: boolean;
  nameservers: string[];
  version: number;
}

export type ManagedDomainChange = Pick<ManagedDomain, 'expiresAt' | 'locked' | 'autoRenew' | 'nameservers'>;

/** Keeps each IN list well under every dialect's bound-parameter limit. */
const CHUNK = 500;

function fromRow(row: UserDomainsTable): ManagedDomain {
  return {
    domain: row.domain,
    userId: row.user_id,
    expiresAt: Number(row.expires_at),
    locked: row.locked === 1,
    autoRenew: row.auto_renew === 1,
    nameservers: JSON.parse(row.nameservers) as string[],
    version: Number(row.version),
  };
}

export function userDomainRepository(base: Kysely<Database>) {
  const db = base.withTables<UserDomainTables>();
  return {
    /** The listed domains `userId` owns, by name; names it does not own are absent. */
    async findOwned(userId: string, domains: readonly string[]): Promise<Map<string, ManagedDomain>> {
      const out = new Map<string, ManagedDomain>();
      for (let i = 0; i < domains.length; i += CHUNK) {
        const rows = await db
          .selectFrom('user_domains')
          .selectAll()
          .where('user_id', '=', userId)
          .where('domain', 'in', domains.slice(i, i + CHUNK))
          .execute();
        for (const row of rows) out.set(row.domain, fromRow(row));
      }
      return out;
    },

    async listOwned(userId: string): Promise<ManagedDomain[]> {
      const rows = await db
        .selectFrom('user_domains')
        .selectAll()
        .where('user_id', '=', userId)
        .orderBy('domain')
        .execute();
      return rows.map(fromRow);
    },

    /**
     * Writes `change` if the row is still at `expectedVersion` and still owned by `userId`;
     * false when another write got there first (the caller re-reads and recomputes).
     */
    async update(
      userId: string,
      domain: string,
      expectedVersion: number,
      change: ManagedDomainChange,
      now: number,
    ): Promise<boolean> {
      const result = await db
        .updateTable('user_domains')
        .set({
          expires_at: change.expiresAt,
          locked: change.locked ? 1 : 0,
          auto_renew: change.autoRenew ? 1 : 0,
          nameservers: JSON.stringify(change.nameservers),
          version: expectedVersion + 1,
          updated_at: now,
        })
        .where('domain', '=', domain)
        .where('user_id', '=', userId)
        .where('version', '=', expectedVersion)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /** Adds domains to `userId`'s account; a domain that already has an owner is left alone. Returns how many were added. */
    async insertIfAbsent(
      userId: string,
      domains: ReadonlyArray<{ domain: string } & ManagedDomainChange>,
      now: number,
    ): Promise<number> {
      let added = 0;
      for (let i = 0; i < domains.length; i += CHUNK) {
        const rows = domains.slice(i, i + CHUNK).map((d) => ({
          domain: d.domain,
          user_id: userId,
          expires_at: d.expiresAt,
          locked: d.locked ? 1 : 0,
          auto_renew: d.autoRenew ? 1 : 0,
          nameservers: JSON.stringify(d.nameservers),
          version: 1,
          created_at: now,
          updated_at: now,
        }));
        const inserted = await db
          .insertInto('user_domains')
          .values(rows)
          .onConflict((oc) => oc.column('domain').doNothing())
          .returning('domain')
          .execute();
        added += inserted.length;
      }
      return added;
    },
  };
}

export type UserDomainRepository = ReturnType<typeof userDomainRepository>;
