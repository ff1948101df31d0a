// A unit of statements that must land together, written once as a generator: each `yield` sends
// one statement and receives its rows, so a later statement can depend on an earlier one's outcome.
// The same steps run synchronously on the embedded SQLite connection (direct.ts), with nothing
// else on the connection meanwhile, or awaiting each statement through Kysely in a transaction
// (PostgreSQL, SQLite in memory, or while another transaction holds the SQLite connection).
import { sql, type CompiledQuery, type Kysely } from 'kysely';
import type { DirectSqlite } from './direct.ts';
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
