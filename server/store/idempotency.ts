// Idempotency records of POST /orders, per credential. A record is claimed (state `executing`)
// on its own before the operation runs, so a concurrent request with the same key sees it; the
// answer is stored with the order it describes (order-placement.ts), or alone when no order was
// written, and then on disk before it is sent.
//
// The claim and its release do not wait for the disk (PostgreSQL's asynchronous commit, SQLite's
// deferred commit): they are visible to every instance at once, and the answer's own commit comes
// after the claim's in the same log, so it flushes the claim too. A power loss may forget only a
// claim whose request was never answered (a retry then executes it, as nothing was written), or a
// release (the key then answers 409 until the claim is taken as abandoned).
import type { Kysely, QueryCreator } from 'kysely';
import { idempotencyExpiresAt } from '../domain/idempotency.ts';
import type { DirectSqlite } from './direct.ts';
import { template } from './prepared.ts';
import type { Database } from './schema.ts';
import { runSteps, type Steps } from './steps.ts';

export type IdempotencyRecord = Database['idempotency'];

/** How long a claim may stay `executing` before it is taken as abandoned (its process died mid-way). */
export const ABANDONED_AFTER_MS = 60_000;

export type Claim = { claimed: true } | { claimed: false; existing: IdempotencyRecord };

export interface IdempotencyOptions {
  /** Embedded SQLite in a file: claims commit there, deferred (direct.ts). */
  direct?: DirectSqlite;
  /** PostgreSQL: claims commit on the pool that does not wait for the disk (database.ts). */
  relaxed?: Kysely<Database>;
}

/** The times a claim at `now` writes and compares: its expiry, and before when a claim is abandoned. */
export const claimTimes = (now: number) => ({
  expiresAt: idempotencyExpiresAt(now),
  abandonedBefore: now - ABANDONED_AFTER_MS,
});

/**
 * The claim as one statement: inserts the key as executing, or takes over a record that is
 * abandoned or expired; returns the key when it claimed. (order-placement.ts also sends it inside
 * the order's first statement on PostgreSQL.) Every value is an argument, so a prepared template
 * can bind it (store/prepared.ts).
 */
export function claimStatement(
  db: QueryCreator<Database>,
  keyId: string,
  key: string,
  fingerprint: string,
  now: number,
  expiresAt: number,
  abandonedBefore: number,
) {
  return db
    .insertInto('idempotency')
    .values({
      key_id: keyId,
      idem_key: key,
      fingerprint,
      state: 'executing',
      status_code: null,
      body: null,
      headers: null,
      created_at: now,
      expires_at: expiresAt,
    })
    .onConflict((oc) =>
      oc
        .columns(['key_id', 'idem_key'])
        .doUpdateSet({ fingerprint, state: 'executing', created_at: now, expires_at: expiresAt })
        .where((eb) =>
          eb.or([
            eb.and([eb('idempotency.state', '=', 'executing'), eb('idempotency.created_at', '<', abandonedBefore)]),
            eb('idempotency.expires_at', '<', now),
          ]),
        ),
    )
    .returning('key_id');
}

export function idempotencyRepository(db: Kysely<Database>, { direct, relaxed }: IdempotencyOptions = {}) {
  // Every order claims, reads on conflict, and completes: built once, bound per call.
  const insertClaim = template<[string, string, string, number, number, number], { key_id: string }>(6, (...args) =>
    claimStatement(db, ...args),
  );
  const findRecord = template<[string, string], IdempotencyRecord>(2, (keyId, key) =>
    db.selectFrom('idempotency').selectAll().where('key_id', '=', keyId).where('idem_key', '=', key),
  );
  const completeRecord = template<[string, string, number, string, string], never>(
    5,
    (keyId, key, statusCode, body, headers) =>
      db
        .updateTable('idempotency')
        .set({ state: 'done', status_code: statusCode, body, headers })
        .where('key_id', '=', keyId)
        .where('idem_key', '=', key),
  );
  const releaseClaim = template<[string, string], never>(2, (keyId, key) =>
    db
      .deleteFrom('idempotency')
      .where('key_id', '=', keyId)
      .where('idem_key', '=', key)
      .where('state', '=', 'executing'),
  );

  /** Claimed, or the record that stopped the claim; undefined when that record vanished meanwhile. */
  function* claimSteps(keyId: string, key: string, fingerprint: string, now: number): Steps<Claim | undefined> {
    const { expiresAt, abandonedBefore } = claimTimes(now);
    const inserted = yield insertClaim([keyId, key, fingerprint, now, expiresAt, abandonedBefore]);
    if (inserted.length === 1) return { claimed: true };
    const [existing] = (yield findRecord([keyId, key])) as IdempotencyRecord[];
    return existing ? { claimed: false, existing } : undefined;
  }
  // Inside a transaction `db` is that transaction, and its commit is the one that counts.
  const relaxedDb = db.isTransaction ? db : (relaxed ?? db);
  const relaxedDirect = db.isTransaction ? undefined : direct;

  return {
    async find(keyId: string, key: string): Promise<IdempotencyRecord | undefined> {
      const [row] = (await db.executeQuery(findRecord([keyId, key]))).rows;
      return row;
    },

    /**
     * Claims the key; returns the existing record instead when there is one that is done or still
     * alive. An abandoned claim is taken over.
     */
    async claim(keyId: string, key: string, fingerprint: string, now: number): Promise<Claim> {
      for (;;) {
        const claim = await runSteps(relaxedDb, relaxedDirect, () => claimSteps(keyId, key, fingerprint, now), {
          commit: 'deferred',
          alone: true,
        });
        if (claim) return claim;
      }
    },

    /** Stores the answer of a claimed key; on disk when this resolves. */
    async complete(
      keyId: string,
      key: string,
      statusCode: number,
      body: string,
      headers: Record<string, string>,
    ): Promise<void> {
      await db.executeQuery(completeRecord([keyId, key, statusCode, body, JSON.stringify(headers)]));
    },

    /** Forgets a claim whose operation failed with a 5xx, so a retry can succeed. */
    async release(keyId: string, key: string): Promise<void> {
      await runSteps(
        relaxedDb,
        relaxedDirect,
        function* () {
          yield releaseClaim([keyId, key]);
        },
        { commit: 'deferred', alone: true },
      );
    },

    async purge(now: number): Promise<void> {
      await db.deleteFrom('idempotency').where('expires_at', '<', now).execute();
    },
  };
}

export type IdempotencyRepository = ReturnType<typeof idempotencyRepository>;
