// PostgreSQL: every statement with parameters is sent as a named prepared statement, so each
// pooled connection parses and analyses its text once and PostgreSQL may reuse its plan, instead
// of doing both for every execution (what pg does for an unnamed statement). Measured on POST
// /orders: PostgreSQL's own CPU per order fell from 1,106 to 438 µs (bench/README.md, "Figures
// behind design choices").
//
// Kysely sends its statements through the pool given to its dialect; this wraps that pool and
// names a statement by its text (the same text, the same name, on every connection of the pool).
// What stays unnamed:
// - a statement without parameters (BEGIN, COMMIT, SET, DDL, several statements in one text: the
//   extended protocol that names need accepts one statement only);
// - every statement inside an explicit transaction: a prepared statement can fail where its text
//   would not (below), and inside a transaction that failure would abort the whole transaction;
// - texts beyond the first MAX_NAMED of the pool, so memory stays bounded on both sides whatever
//   statements are built (a batch's statement differs with its row count).
// A prepared statement whose result columns changed since it was prepared (another instance ran a
// migration that added a column to a `select *`) fails with "cached plan must not change result
// type" on every execution; such a statement is run again unnamed, and its text stays unnamed.
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';

/** Distinct texts named per pool; later ones run unnamed. */
export const MAX_NAMED = 1_000;

/** The pg client's call that names a statement (pg's QueryConfig). */
interface NamedQuery {
  name: string;
  text: string;
  values: unknown[];
}

/** The part of pg's pool and client this needs. */
export interface PgPool {
  connect(): Promise<PgClient>;
  end(): Promise<void>;
}
export interface PgClient {
  query(textOrConfig: unknown, values?: unknown[]): unknown;
  release(err?: Error | boolean): void;
}

const OPENS = /^\s*(begin|start\s+transaction)\b/i;
// ROLLBACK TO SAVEPOINT stays inside the transaction.
const ENDS = /^\s*(commit|end|abort|rollback(?!\s+(work\s+|transaction\s+)?to\b))\b/i;

/** PostgreSQL's SQLSTATE feature_not_supported, raised when a prepared plan's result type changed. */
const stalePlan = (err: unknown) =>
  typeof err === 'object' &&
  err !== null &&
  (err as { code?: unknown }).code === '0A000' &&
  /cached plan must not change result type/.test(String((err as { message?: unknown }).message));

export function namedStatements(pool: PgPool, maxNamed = MAX_NAMED): PostgresPool {
  // The text's name, or null once it must run unnamed.
  const names = new Map<string, string | null>();
  const nameOf = (text: string): string | null => {
    const known = names.get(text);
    if (known !== undefined) return known;
    if (names.size >= maxNamed) return null;
    const name = `ds_${names.size}`;
    names.set(text, name);
    return name;
  };
  // One wrapper per pooled client, kept with it: Kysely keeps its own connection object per client
  // it is given, so a new wrapper per checkout would cost it a new one every time.
  const wrappers = new WeakMap<PgClient, { client: PostgresPoolClient; checkedOut(): void }>();
  const wrap = (client: PgClient) => {
    let inTransaction = false;
    const query = async (text: string, parameters: ReadonlyArray<unknown>) => {
      const values = [...parameters];
      const name = inTransaction || values.length === 0 ? null : nameOf(text);
      if (OPENS.test(text)) inTransaction = true;
      else if (ENDS.test(text)) inTransaction = false;
      if (name === null) return (await client.query(text, values)) as PostgresQueryResult<unknown>;
      try {
        return (await client.query({ name, text, values } satisfies NamedQuery)) as PostgresQueryResult<unknown>;
      } catch (err) {
        if (!stalePlan(err)) throw err;
        names.set(text, null);
        return (await client.query(text, values)) as PostgresQueryResult<unknown>;
      }
    };
    return {
      client: {
        query: ((textOrCursor: unknown, parameters?: ReadonlyArray<unknown>) =>
          typeof textOrCursor === 'string'
            ? query(textOrCursor, parameters ?? [])
            : client.query(textOrCursor)) as PostgresPoolClient['query'],
        release: () => client.release(),
      },
      // A checkout never starts inside a transaction: one left open would be the pool's bug.
      checkedOut: () => void (inTransaction = false),
    };
  };
  return {
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect();
      let wrapped = wrappers.get(client);
      if (!wrapped) wrappers.set(client, (wrapped = wrap(client)));
      wrapped.checkedOut();
      return wrapped.client;
    },
    end: () => pool.end(),
  };
}
