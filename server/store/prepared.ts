// A query on the hot path: Kysely builds its SQL once, each call binds new values and runs it,
// directly on the embedded SQLite connection when it is free (direct.ts), else through Kysely.
import { CompiledQuery, type Kysely } from 'kysely';
import type { DirectSqlite } from './direct.ts';
import type { ReadMark } from './row-cache.ts';
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
export function template<A extends unknown[], R>(
  arity: number,
  build: (...args: A) => { compile(): CompiledQuery<R> },
): Template<A, R> {
  const names = Array.from({ length: arity }, (_, i) => placeholder(i));
  const compiled = build(...(names as unknown as A)).compile();
  if (compiled.sql.includes('\u0000'))
    throw new TypeError(`prepared query puts an argument into its SQL text: ${compiled.sql}`);
  const slots = compiled.parameters.map((p) => names.indexOf(p as string));
  names.forEach((_, i) => {
    if (!slots.includes(i)) throw new TypeError(`prepared query does not bind argument ${i}: ${compiled.sql}`);
  });
  const constants = compiled.parameters;
  const text = compiled.sql;
  return (args) =>
    CompiledQuery.raw(
      text,
      slots.map((slot, k) => (slot >= 0 ? args[slot] : constants[k])),
    );
}

type Build<A extends unknown[], R> = (db: Kysely<Database>, ...args: A) => { compile(): CompiledQuery<R> };

/** The query with the call's arguments, built by Kysely on the first call only. */
function binder<A extends unknown[], R>(db: Kysely<Database>, arity: A['length'], build: Build<A, R>): Template<A, R> {
  let bind: Template<A, R> | undefined;
  return (args) => (bind ??= template<A, R>(arity, (...names) => build(db, ...names)))(args);
}

export function prepared<A extends unknown[], R>(
  db: Kysely<Database>,
  direct: DirectSqlite | undefined,
  arity: A['length'],
  build: Build<A, R>,
): Prepared<A, R> {
  const bind = binder(db, arity, build);
  return async (...args: A) => {
    const query = bind(args);
    return direct?.run(query) ?? (await db.executeQuery(query)).rows;
  };
}

/** A prepared read whose rows may come from memory; `since` is the request's mark (row-cache.ts). */
export type KeptRead<A extends unknown[], R> = (since: ReadMark | undefined, ...args: A) => Promise<readonly R[]>;

/**
 * `prepared` for a query of one table whose rows, on embedded SQLite, are kept in memory until
 * that table changes (direct.ts `read`). Rows are then shared: callers only read them.
 */
export function keptRead<A extends unknown[], R>(
  db: Kysely<Database>,
  direct: DirectSqlite | undefined,
  table: string,
  arity: A['length'],
  build: Build<A, R>,
): KeptRead<A, R> {
  const bind = binder(db, arity, build);
  return async (since, ...args) => {
    const query = bind(args);
    return direct?.read(table, query, since) ?? (await db.executeQuery(query)).rows;
  };
}
