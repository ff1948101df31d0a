// Idempotency records of POST /orders, per credential. A record is claimed (state `executing`)
// in its own short transaction before the operation runs, so a concurrent request with the same
// key sees it; the answer is stored in the same transaction as the order it describes.
import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

export type IdempotencyRecord = Database['idempotency'];

/** How long a claim may stay `executing` before it is taken as abandoned (its process died mid-way). */
export const ABANDONED_AFTER_MS = 60_000;
/** Kept at least 24 h (DECISIONS §3). */
export const RETENTION_MS = 24 * 3600 * 1000;

export function idempotencyRepository(db: Kysely<Database>) {
  return {
    async find(keyId: string, key: string): Promise<IdempotencyRecord | undefined> {
      return db.selectFrom('idempotency').selectAll().where('key_id', '=', keyId).where('idem_key', '=', key).executeTakeFirst();
    },

    /**
     * Claims the key; returns the existing record instead when there is one that is done or still
     * alive. An abandoned claim is taken over.
     */
    async claim(keyId: string, key: string, fingerprint: string, now: number): Promise<{ claimed: true } | { claimed: false; existing: IdempotencyRecord }> {
      const inserted = await db
        .insertInto('idempotency')
        .values({ key_id: keyId, idem_key: key, fingerprint, state: 'executing', status_code: null, body: null, headers: null, created_at: now, expires_at: now + RETENTION_MS })
        .onConflict((oc) =>
          oc
            .columns(['key_id', 'idem_key'])
            .doUpdateSet({ fingerprint, state: 'executing', created_at: now, expires_at: now + RETENTION_MS })
            .where((eb) =>
              eb.or([
                eb.and([eb('idempotency.state', '=', 'executing'), eb('idempotency.created_at', '<', now - ABANDONED_AFTER_MS)]),
                eb('idempotency.expires_at', '<', now),
              ]),
            ),
        )
        .returning('key_id')
        .execute();
      if (inserted.length === 1) return { claimed: true };
      const existing = await this.find(keyId, key);
      if (!existing) return this.claim(keyId, key, fingerprint, now);
      return { claimed: false, existing };
    },

    async complete(keyId: string, key: string, statusCode: number, body: string, headers: Record<string, string>): Promise<void> {
      await db
        .updateTable('idempotency')
        .set({ state: 'done', status_code: statusCode, body, headers: JSON.stringify(headers) })
        .where('key_id', '=', keyId)
        .where('idem_key', '=', key)
        .execute();
    },

    /** Forgets a claim whose operation failed with a 5xx, so a retry can succeed. */
    async release(keyId: string, key: string): Promise<void> {
      await db.deleteFrom('idempotency').where('key_id', '=', keyId).where('idem_key', '=', key).where('state', '=', 'executing').execute();
    },

    async purge(now: number): Promise<void> {
      await db.deleteFrom('idempotency').where('expires_at', '<', now).execute();
    },
  };
}

export type IdempotencyRepository = ReturnType<typeof idempotencyRepository>;
