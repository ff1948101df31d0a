// Every statement the store sends, as the client saw it: its SQL, its values and how long it took
// from sending to the last row (network and the pool's queue included). The benchmark's statement
// profile and the plan check listen; nothing in production does unless asked.
import type { LogEvent } from 'kysely';

export interface StatementEvent {
  sql: string;
  parameters: readonly unknown[];
  /** Milliseconds, as the client measured them. */
  ms: number;
  failed: boolean;
}

export type StatementListener = (event: StatementEvent) => void;

/** Kysely's `log` option telling `listener` of every query it runs (BEGIN and COMMIT included). */
export function kyselyLog(listener: StatementListener): (event: LogEvent) => void {
  return (event) =>
    listener({
      sql: event.query.sql,
      parameters: event.query.parameters,
      ms: event.queryDurationMillis,
      failed: event.level === 'error',
    });
}

/**
 * One line per statement shape: whitespace collapsed, and a multi-row VALUES list written as its
 * first row, so a batch of 3 and a batch of 30 nonces count as one statement.
 */
export function statementShape(sql: string): string {
  return sql
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/(\((?:\$\d+|\?)(?:, (?:\$\d+|\?))*\))(?:, \((?:\$\d+|\?)(?:, (?:\$\d+|\?))*\))+/g, '$1, …');
}

export interface StatementStats {
  statement: string;
  calls: number;
  totalMs: number;
  meanMs: number;
  maxMs: number;
  failed: number;
}

export interface StatementProfile {
  listener: StatementListener;
  /** Forgets everything heard so far. */
  reset(): void;
  /** Every statement shape heard, the most total time first. */
  stats(): StatementStats[];
}

export function statementProfile(): StatementProfile {
  let byShape = new Map<string, { calls: number; totalMs: number; maxMs: number; failed: number }>();
  // The same SQL text comes again and again: its shape is computed once.
  const shapes = new Map<string, string>();
  return {
    listener(event) {
      let shape = shapes.get(event.sql);
      if (shape === undefined) {
        shape = statementShape(event.sql);
        if (shapes.size < 10_000) shapes.set(event.sql, shape);
      }
      const s = byShape.get(shape) ?? { calls: 0, totalMs: 0, maxMs: 0, failed: 0 };
      s.calls++;
      s.totalMs += event.ms;
      s.maxMs = Math.max(s.maxMs, event.ms);
      if (event.failed) s.failed++;
      byShape.set(shape, s);
    },
    reset() {
      byShape = new Map();
    },
    stats() {
      return [...byShape]
        .map(([statement, s]) => ({
          statement,
          calls: s.calls,
          totalMs: s.totalMs,
          meanMs: s.totalMs / s.calls,
          maxMs: s.maxMs,
          failed: s.failed,
        }))
        .sort((a, b) => b.totalMs - a.totalMs);
    },
  };
}
