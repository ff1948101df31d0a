// Rows that nearly every signed request reads and that rarely change (its credential, the listing
// it asks about), kept in memory on embedded SQLite. Such a read is cheap alone but several times
// dearer between a request's other work, once per request (bench/README.md, "Figures behind design
// choices").
//
// A kept row is dropped the moment it may be stale:
// - a change this connection makes to a watched table fires a TEMP trigger (it exists for this
//   connection only, so other processes never call it), which calls back into JavaScript inside
//   the very statement that makes the change;
// - a commit by any other connection (another process on the same file) moves the connection's
//   `PRAGMA data_version` (https://sqlite.org/pragma.html#pragma_data_version), read before every
//   use; it does not move for this connection's own commits, which the triggers cover.
// Rows are kept only when read outside a transaction, so they are always committed rows: a change
// inside a transaction drops them at once, and nothing can keep new ones until it has ended.
//
// Reading the version costs about as much as a read itself, so a request may share one: given
// the mark taken when the request arrived, a read skips the version when it was read after that
// mark. Every commit that ended before the request arrived is then seen; one that ends later is
// concurrent with the request, which may come first (as it would had its read run earlier).
//
// A signed request writes anyway (its nonce and count, replay-guard.ts), and a version read inside
// that write transaction is nearly free, since the transaction holds the locks such a read would
// take (bench/README.md, "Figures behind design choices"). So its credential may be read
// `trusting` the kept rows, with no check, on the condition that the write confirms them: it
// reads the version (`observe`), and the request goes on only if the cache's `epoch` (how many
// times another connection's commit was seen) is still the one of its mark. Otherwise it reads
// again, now checked. The write comes after the request arrived, so the rule above still holds.
import type BetterSqlite3 from 'better-sqlite3';

/** A moment in this connection's sequence of version checks (`mark`). */
export interface ReadMark {
  /** Checks made before this moment. */
  readonly checks: number;
  /** Commits by other connections seen before this moment. */
  readonly epoch: number;
  /** A read given this mark serves kept rows without a check (`trusting`). */
  readonly trusting?: true;
}

/**
 * The mark, for reads that serve kept rows as they are. Whoever reads with it must confirm what
 * it read before anything depends on it: still valid while `epoch` is the mark's after a check.
 */
export const trusting = (mark: ReadMark): ReadMark => ({ checks: mark.checks, epoch: mark.epoch, trusting: true });

export interface RowCache {
  /** Now, as a mark: a read given it may rely on a version check made after this moment. */
  mark(): ReadMark;
  /**
   * A check whose version was read by the caller on this connection (`pragma data_version`,
   * inside a transaction too): drops every kept row when another connection has committed since
   * the last check. Gives the epoch after it.
   */
  observe(version: unknown): number;
  /**
   * The rows `load` gives for `key` in `table`, kept while nothing in `table` changes. `load` runs
   * the read on the connection, or gives undefined when it cannot run now (a transaction holds
   * the connection); then nothing is kept or served. Kept rows are frozen and shared. `since`:
   * the mark taken when the request arrived; without it the version is read every time.
   */
  read<R>(table: string, key: string, load: () => R[] | undefined, since?: ReadMark): R[] | undefined;
}

/** Keys kept per table (the oldest dropped first): bounds memory whatever keys requests name. */
const KEPT_PER_TABLE = 10_000;

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

export function rowCache(sqlite: BetterSqlite3.Database, tables: readonly string[]): RowCache {
  const kept = new Map<string, Map<string, readonly unknown[]>>(tables.map((t) => [t, new Map()]));
  const drop = (table: string) => kept.get(table)?.clear();
  sqlite.function('row_cache_changed', { deterministic: false }, (table: unknown) => {
    drop(String(table));
    return null;
  });
  for (const table of tables) {
    // Names go into DDL, where they cannot be bound parameters.
    if (!IDENTIFIER.test(table)) throw new TypeError(`not a table name: ${table}`);
    for (const event of ['insert', 'update', 'delete']) {
      sqlite.exec(
        `create temp trigger if not exists row_cache_${table}_${event} after ${event} on main.${table} begin select row_cache_changed('${table}'); end`,
      );
    }
  }
  const dataVersion = sqlite.prepare('pragma data_version').pluck();
  let seen: unknown = dataVersion.get();
  let checks = 0;
  let epoch = 0;
  const observe = (version: unknown) => {
    checks++;
    if (version !== seen) {
      seen = version;
      epoch++;
      for (const t of tables) drop(t);
    }
    return epoch;
  };
  return {
    mark: () => ({ checks, epoch }),
    observe,
    read<R>(table: string, key: string, load: () => R[] | undefined, since?: ReadMark): R[] | undefined {
      const rows = kept.get(table);
      if (!rows) throw new TypeError(`table ${table} is not watched`);
      if (sqlite.inTransaction) return undefined;
      if (since === undefined || (since.trusting !== true && checks <= since.checks)) observe(dataVersion.get());
      const hit = rows.get(key);
      if (hit) return hit as R[];
      const loaded = load();
      if (loaded === undefined) return undefined;
      for (const row of loaded) Object.freeze(row);
      if (rows.size >= KEPT_PER_TABLE) rows.delete(rows.keys().next().value as string);
      rows.set(key, Object.freeze(loaded));
      return loaded;
    },
  };
}
