// The benchmark's per-statement profile: where a run's database time went, statement by statement,
// so the next slow statement is named rather than guessed. PostgreSQL's pg_stat_statements when the
// server has it loaded (its own execution times); otherwise the server's client-side timings
// (server/store/statements.ts: from sending a statement to its last row, queueing included).
import pg from 'pg';
import { statementShape, type StatementStats } from '../../../server/store/statements.ts';

export interface ProfileLine {
  statement: string;
  calls: number;
  /** Calls per unit of work (per order). */
  perUnit: number;
  meanMs: number;
  /** Share of the profile's total time. */
  share: number;
}

export interface StatementProfileResult {
  source: 'pg_stat_statements' | 'client timings';
  /** Statements per unit of work, all of them (BEGIN and COMMIT included). */
  statementsPerUnit: number;
  lines: ProfileLine[];
}

/** Sums `stats` over `units` (orders), the most total time first. */
export function profileOf(
  source: StatementProfileResult['source'],
  stats: readonly StatementStats[],
  units: number,
  top = 10,
): StatementProfileResult {
  const total = stats.reduce((n, s) => n + s.totalMs, 0);
  const calls = stats.reduce((n, s) => n + s.calls, 0);
  return {
    source,
    statementsPerUnit: units > 0 ? calls / units : NaN,
    lines: [...stats]
      .sort((a, b) => b.totalMs - a.totalMs)
      .slice(0, top)
      .map((s) => ({
        statement: s.statement,
        calls: s.calls,
        perUnit: units > 0 ? s.calls / units : NaN,
        meanMs: s.meanMs,
        share: total > 0 ? s.totalMs / total : NaN,
      })),
  };
}

export interface PgStatStatements {
  /** Why not, when the extension cannot be used here. */
  unavailable?: string;
  reset(): Promise<void>;
  /** This database's statements since the reset. */
  read(): Promise<StatementStats[]>;
}

/**
 * pg_stat_statements in the database of `url`, when the server has it loaded
 * (shared_preload_libraries; the benchmark never restarts a server to load it).
 */
export async function pgStatStatements(url: string): Promise<PgStatStatements> {
  const query = async <R>(text: string): Promise<R[]> => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query(text)).rows as R[];
    } finally {
      await client.end();
    }
  };
  try {
    await query('create extension if not exists pg_stat_statements');
    await query('select pg_stat_statements_reset()');
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    return { unavailable: reason, reset: async () => {}, read: async () => [] };
  }
  return {
    reset: async () => void (await query('select pg_stat_statements_reset()')),
    async read() {
      const rows = await query<{ query: string; calls: string; total: number; mean: number; max: number }>(
        `select query, calls, total_exec_time as total, mean_exec_time as mean, max_exec_time as max from pg_stat_statements where dbid = (select oid from pg_database where datname = current_database())`,
      );
      return rows.map((r) => ({
        statement: statementShape(r.query),
        calls: Number(r.calls),
        totalMs: Number(r.total),
        meanMs: Number(r.mean),
        maxMs: Number(r.max),
        failed: 0,
      }));
    },
  };
}
