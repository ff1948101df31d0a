// Nonces and rate-limit counters: small, hot, shared through the database so that every
// instance behind a load balancer sees the same replays and the same counts.
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.ts';

export function replayGuardRepository(db: Kysely<Database>) {
  return {
    /**
     * Records a nonce for a key id; false when it is already tracked (a replay). A row whose
     * retention has passed is reclaimed, since such a request already fails the timestamp check.
     */
    async recordNonce(keyId: string, nonce: string, expiresAt: number, now: number): Promise<boolean> {
      const rows = await db
        .insertInto('nonces')
        .values({ key_id: keyId, nonce, expires_at: expiresAt })
        .onConflict((oc) => oc.columns(['key_id', 'nonce']).doUpdateSet({ expires_at: expiresAt }).where('nonces.expires_at', '<', now))
        .returning('nonce')
        .execute();
      return rows.length === 1;
    },

    /**
     * Counts one request in the caller's current window, opening a new window when the stored one
     * has ended, in one statement (atomic on both dialects). Returns the count including this
     * request and the window's start.
     */
    async hit(bucket: string, now: number, windowMs: number): Promise<{ count: number; windowStart: number }> {
      const ended = sql<boolean>`rate_counters.window_start + ${windowMs} <= ${now}`;
      const row = await db
        .insertInto('rate_counters')
        .values({ bucket, count: 1, window_start: now, expires_at: now + windowMs })
        .onConflict((oc) =>
          oc.column('bucket').doUpdateSet({
            count: sql<number>`CASE WHEN ${ended} THEN 1 ELSE rate_counters.count + 1 END`,
            window_start: sql<number>`CASE WHEN ${ended} THEN ${now} ELSE rate_counters.window_start END`,
            expires_at: sql<number>`CASE WHEN ${ended} THEN ${now + windowMs} ELSE rate_counters.expires_at END`,
          }),
        )
        .returning(['count', 'window_start'])
        .executeTakeFirstOrThrow();
      return { count: row.count, windowStart: row.window_start };
    },

    /** Forgets what can no longer matter; keeps both tables bounded under steady load. */
    async purge(now: number): Promise<void> {
      await db.deleteFrom('nonces').where('expires_at', '<', now).execute();
      await db.deleteFrom('rate_counters').where('expires_at', '<', now).execute();
    },
  };
}

export type ReplayGuardRepository = ReturnType<typeof replayGuardRepository>;
