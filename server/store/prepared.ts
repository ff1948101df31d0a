// A query on the hot path: Kysely builds its SQL once, each call binds new values and runs it,
// directly on the embedded SQLite connection when it is free (direct.ts), else through Kysely.
import { CompiledQuery, type Kysely } from 'kysely';
import type { DirectSqlite } from './direct.ts';
import type { Database } from './schema.ts';

/** Stands for argument `i` while the query is built; never a value a caller could send. */
const placeholder = (i: number) => `\u0000prepared-argument-${i}\u0000`;

export type Prepared<A extends unknown[], R> = (...args: A) => Promise<R[]>;

/**
 * `build` must put every argument into the query as a bound value (a `where` operand, a value
 * in `sql```), never into its text; that is checked when the query is first built, and
 * `arity` is how many arguments it takes.
 */
export function prepared<A extends unknown[], R>(
  db: Kysely<Database>,
  direct: DirectSqlite | undefined,
  arity: A['length'],
  build: (db: Kysely<Database>, ...args: A) => { compile(): CompiledQuery<R> },
): Prepared<A, R> {
  let template: { sql: string; bind: (args: A) => unknown[] } | undefined;
  const compile = () => {
    const names = Array.from({ length: arity }, (_, i) => placeholder(i));
    const compiled = build(db, ...(names as unknown as A)).compile();
    if (compiled.sql.includes('\u0000')) throw new TypeError(`prepared query puts an argument into its SQL text: ${compiled.sql}`);
    const slots = compiled.parameters.map((p) => names.indexOf(p as string));
    names.forEach((_, i) => {
      if (!slots.includes(i)) throw new TypeError(`prepared query does not bind argument ${i}: ${compiled.sql}`);
    });
    const constants = compiled.parameters;
    return { sql: compiled.sql, bind: (args: A) => slots.map((slot, k) => (slot >= 0 ? args[slot] : constants[k])) };
  };
  return async (...args: A) => {
    template ??= compile();
    const query = CompiledQuery.raw(template.sql, template.bind(args)) as CompiledQuery<R>;
    return direct?.run(query) ?? (await db.executeQuery(query)).rows;
  };
}
