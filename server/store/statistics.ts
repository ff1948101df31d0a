// PostgreSQL plans every statement from its statistics of the tables. Autovacuum keeps them up to
// date where it runs, but a deployment may run without it (this machine's server does) or let it
// lag, and then the planner chooses for tables as they were: empty, or a tenth of their size. The
// server therefore does the analyse half of autovacuum itself, for the tables of its own schema,
// with autovacuum's default threshold: a table is analysed once the rows changed since its last
// analysis exceed 50 plus a tenth of its rows. The inventory's bulk replacements analyse it
// themselves, before they commit (inventory.ts); this catches everything that grows row by row.
// SQLite keeps no statistics: its planner chooses by the indexes alone.
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.ts';

/** Analyses the tables whose statistics are stale; gives their names. */
export async function refreshStatistics(db: Kysely<Database>): Promise<string[]> {
  const { rows } = await sql<{ table: string }>`
    select s.relname as "table" from pg_stat_user_tables s join pg_class c on c.oid = s.relid
    where s.schemaname = current_schema() and s.n_mod_since_analyze > 50 + 0.1 * greatest(c.reltuples, 0)
    order by s.relname`.execute(db);
  for (const { table } of rows) await sql`analyze ${sql.id(table)}`.execute(db);
  return rows.map((r) => r.table);
}
