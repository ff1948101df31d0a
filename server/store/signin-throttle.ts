// Failed sign-in attempts per key (an account or a client address; oauth/signin-throttle.ts
// derives the keys). An attempt is counted *before* its password is checked, in one statement
// that refuses it instead while the key must wait: parallel attempts cannot all slip through
// before the first failure is written. A correct password then takes its count back.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { nextAttemptAt, type ThrottleRule } from '../domain/signin-throttle.ts';
import type { Database } from './schema.ts';

export type SigninFailuresTable = {
  key: string;
  failures: number;
  /** Epoch ms of the last attempt counted (a failure, or an attempt still being checked). */
  last_failure_at: number;
};

// A type alias, not an interface: withTables<T> needs T to have an index signature.
export type SigninThrottleTables = { signin_failures: SigninFailuresTable };

export type Attempt = { counted: true } | { counted: false; nextAttemptAt: number };

/** The rule's wait after `signin_failures.failures` failures, as SQL (constants of the rule only). */
function waitExpression(rule: ThrottleRule): RawBuilder<number> {
  const steps = rule.waitsMs
    .slice(0, -1)
    .map((ms, i) => sql`when signin_failures.failures = ${sql.lit(rule.free + i)} then ${sql.lit(ms)}`);
  return sql<number>`(case when signin_failures.failures < ${sql.lit(rule.free)} then 0 ${sql.join(steps, sql` `)} else ${sql.lit(rule.waitsMs.at(-1) ?? 0)} end)`;
}

export function signinThrottleRepository(base: Kysely<Database>) {
  const db = base.withTables<SigninThrottleTables>();
  return {
    /** Counts an attempt under `key`, or refuses it (counting nothing) while the key must wait. */
    async attempt(key: string, rule: ThrottleRule, now: number): Promise<Attempt> {
      const forgotten = now - rule.forgetAfterMs;
      const counted = await db
        .insertInto('signin_failures')
        .values({ key, failures: 1, last_failure_at: now })
        .onConflict((oc) =>
          oc
            .column('key')
            .doUpdateSet({
              failures: sql`case when signin_failures.last_failure_at <= ${forgotten} then 1 else signin_failures.failures + 1 end`,
              last_failure_at: now,
            })
            .where(
              sql<boolean>`signin_failures.last_failure_at <= ${forgotten} or signin_failures.last_failure_at + ${waitExpression(rule)} <= ${now}`,
            ),
        )
        .returning('failures')
        .executeTakeFirst();
      if (counted) return { counted: true };
      const row = await db
        .selectFrom('signin_failures')
        .select(['failures', 'last_failure_at'])
        .where('key', '=', key)
        .executeTakeFirst();
      const state = row ? { failures: Number(row.failures), lastFailureAt: Number(row.last_failure_at) } : undefined;
      return { counted: false, nextAttemptAt: nextAttemptAt(rule, state, now) };
    },

    /**
     * An attempt already known to be right (the operator token, server/admin/token-throttle.ts):
     * clears the key's count, or, while the key must wait, refuses it like any other attempt and
     * counts nothing, so that a right and a wrong attempt are answered alike then. Counting
     * nothing first, parallel right attempts never add up to a wait.
     */
    async clearUnlessWaiting(key: string, rule: ThrottleRule, now: number): Promise<Attempt> {
      const forgotten = now - rule.forgetAfterMs;
      await db
        .deleteFrom('signin_failures')
        .where('key', '=', key)
        .where(
          sql<boolean>`signin_failures.last_failure_at <= ${forgotten} or signin_failures.last_failure_at + ${waitExpression(rule)} <= ${now}`,
        )
        .execute();
      const row = await db
        .selectFrom('signin_failures')
        .select(['failures', 'last_failure_at'])
        .where('key', '=', key)
        .executeTakeFirst();
      const state = row ? { failures: Number(row.failures), lastFailureAt: Number(row.last_failure_at) } : undefined;
      const next = nextAttemptAt(rule, state, now);
      return next > now ? { counted: false, nextAttemptAt: next } : { counted: true };
    },

    /** Takes back the count of an attempt that succeeded; `forget` clears the key's count altogether. */
    async succeeded(key: string, forget: boolean): Promise<void> {
      if (forget) await db.deleteFrom('signin_failures').where('key', '=', key).execute();
      else
        await db
          .updateTable('signin_failures')
          .set({ failures: sql`failures - 1` })
          .where('key', '=', key)
          .where('failures', '>', 0)
          .execute();
    },

    /** Forgets counts whose last failure is older than `forgetAfterMs`. */
    async purge(now: number, forgetAfterMs: number): Promise<void> {
      await db
        .deleteFrom('signin_failures')
        .where('last_failure_at', '<=', now - forgetAfterMs)
        .execute();
    },
  };
}

export type SigninThrottleRepository = ReturnType<typeof signinThrottleRepository>;
