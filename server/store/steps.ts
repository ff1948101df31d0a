// A unit of statements that must land together, written once as a generator: each `yield` sends
// one statement and receives its rows, so a later statement can depend on an earlier one's outcome.
// The same steps run synchronously on the embedded SQLite connection (direct.ts), with nothing
// else on the connection meanwhile, or awaiting each statement through Kysely in a transaction
// (PostgreSQL, SQLite in memory, or while another transaction holds the SQLite connection).
import { sql, type CompiledQuery, type Kysely } from 'kysely';
import type { DirectSqlite, Settled } from './direct.ts';
import type { Database } from './schema.ts';

export type Steps<T> = Generator<CompiledQuery, T, unknown[]>;

export interface StepsOptions {
  /** On the embedded connection: `deferred` commits do not wait for the disk (direct.ts). */
  commit: 'deferred' | 'durable';
  /**
   * SQLite through Kysely: take the write lock at BEGIN, for steps that read before they write
   * (otherwise another process could commit between the read and the write).
   */
  immediate?: boolean;
  /**
   * Off the embedded connection, each statement commits on its own: no BEGIN and COMMIT round
   * trips. Only for steps whose statements are each whole alone (a claim, then a read of what
   * stopped it).
   */
  alone?: boolean;
}

/** Runs `steps` in one transaction (inside the caller's, when `db` is one) and gives their result. */
export async function runSteps<T>(
  db: Kysely<Database>,
  direct: DirectSqlite | undefined,
  steps: () => Steps<T>,
  options: StepsOptions,
): Promise<T> {
  const ran = direct?.transaction((exec) => stepThrough(steps(), exec), options.commit);
  if (ran?.ran) return ran.result;
  if (db.isTransaction || options.alone) return awaiting(db, steps());
  if (!options.immediate) return db.transaction().execute((trx) => awaiting(trx, steps()));
  return db.connection().execute(async (connection) => {
    await sql`begin immediate`.execute(connection);
    try {
      const result = await awaiting(connection, steps());
      await sql`commit`.execute(connection);
      return result;
    } catch (err) {
      await sql`rollback`.execute(connection).catch(() => undefined);
      throw err;
    }
  });
}

/** Runs the steps synchronously, each statement through `exec` (the embedded connection's). */
export function stepThrough<T>(it: Steps<T>, exec: (query: CompiledQuery) => unknown[]): T {
  let step = it.next();
  while (!step.done) step = it.next(exec(step.value));
  return step.value;
}

async function awaiting<T>(executor: Kysely<Database>, it: Steps<T>): Promise<T> {
  let step = it.next();
  while (!step.done) step = it.next((await executor.executeQuery(step.value)).rows);
  return step.value;
}

/**
 * Group commit on the embedded connection: the steps handed over within one turn of the event
 * loop run in one transaction (direct.ts `batch`); one that throws is undone alone and settles
 * with its error while the others share one commit. A
 * `durable` batch commits without flushing on the event loop's thread and settles once the flush
 * that covers it has ended (direct.ts `onDisk`): the batches committed while one flush runs share
 * the next. While another transaction holds the connection, each runs alone through Kysely.
 */
export function stepsTogether(
  db: Kysely<Database>,
  direct: DirectSqlite,
  options: StepsOptions,
): <T>(steps: () => Steps<T>) => Promise<T> {
  type Job = { steps: () => Steps<unknown>; resolve(value: unknown): void; reject(err: unknown): void };
  let queued: Job[] = [];
  const settle = (batch: Job[], settled: ReadonlyArray<Settled<unknown>>) =>
    batch.forEach((job, i) => {
      const outcome = settled[i];
      if (outcome?.ok) job.resolve(outcome.value);
      else job.reject(outcome ? outcome.error : new Error('steps not run'));
    });
  const runQueued = () => {
    const batch = queued;
    queued = [];
    let settled: Array<Settled<unknown>> | undefined;
    try {
      settled = direct.batch(
        batch.map(
          ({ steps }) =>
            (exec: (query: CompiledQuery) => unknown[]) =>
              stepThrough(steps(), exec),
        ),
        'deferred',
      );
    } catch (err) {
      // The commit itself failed: nothing of the batch was written.
      for (const job of batch) job.reject(err);
      return;
    }
    if (!settled) {
      for (const job of batch) runSteps(db, undefined, job.steps, options).then(job.resolve, job.reject);
      return;
    }
    if (options.commit === 'deferred') return settle(batch, settled);
    const outcomes = settled;
    direct.onDisk().then(
      () => settle(batch, outcomes),
      // The flush failed: whether the batch reached the disk is unknown, so none of it is
      // answered as written.
      (err: unknown) => {
        for (const job of batch) job.reject(err);
      },
    );
  };
  return <T>(steps: () => Steps<T>) =>
    new Promise<T>((resolve, reject) => {
      if (queued.length === 0) setImmediate(runQueued);
      queued.push({ steps, resolve, reject });
    });
}
