// A query on the hot path: Kysely builds its SQL once, each call binds new values and runs it,
// directly on the embedded SQLite connection when it is free (direct.ts), else through Kysely.
import { CompiledQuery, type Kysely } from 'kysely';
import type { DirectSqlite } from './direct.ts';
import type { Database } from './schema.ts';

/** Stands for argument `i` while the query is built; never a value a caller could send. */
const placeholder = (i: number) => `\u0000prepared-argument-${i}\u0000`;

export type Prepared<A extends unknown[], R> = (...args: A) => Promise<readonly R[]>;

/** A query built once: `bind` gives it with new arguments, without building it again. */
export type Template<A extends unknown[], R> = (args: A) => CompiledQuery<R>;

/**
 * `build` must put every argument into the query as a bound value (a `where` operand, a value
 * in `sql```), never into its text; that is checked when the query is built, and `arity` is
 * how many arguments it takes.
 */
export function template<A extends unknown[], R>(arity: number, build: (...args: A) => { compile(): CompiledQuery<R> }): Template<A, R> {
  const names = Array.from({ length: arity }, (_, i) => placeholder(i));
  const compiled = build(...(names as unknown as A)).compile();
  if (compiled.sql.includes('\u0000')) throw new TypeError(`prepared query puts an argument into its SQL text: ${compiled.sql}`);
  const slots = compiled.parameters.map((p) => names.indexOf(p as string));
  names.forEach((_, i) => {
    if (!slots.includes(i)) throw new TypeError(`prepared query does not bind argument ${i}: ${compiled.sql}`);
  });
  const constants = compiled.parameters;
  const text = compiled.sql;
  return (args) => CompiledQuery.raw(text, slots.map((slot, k) => (slot >= 0 ? args[slot] : constants[k]))) as CompiledQuery<R>;
}

/**
 * `keptFrom`: the one table the query reads, when its rows may be kept in memory on embedded
 * SQLite until that table changes (direct.ts `read`). Rows are then shared: callers only read them.
 */
export function prepared<A extends unknown[], R>(
  db: Kysely<Database>,
  direct: DirectSqlite | undefined,
  arity: A['length'],
  build: (db: Kysely<Database>, ...args: A) => { compile(): CompiledQuery<R> },
  options: { keptFrom?: string } = {},
): Prepared<A, R> {
  let bind: Template<A, R> | undefined;
  const table = options.keptFrom;
  return async (...args: A) => {
    bind ??= template<A, R>(arity, (...names) => build(db, ...names));
    const query = bind(args);
    return (table === undefined ? direct?.run(query) : direct?.read(table, query)) ?? (await db.executeQuery(query)).rows;
  };
}
