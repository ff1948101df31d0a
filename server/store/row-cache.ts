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
import type BetterSqlite3 from 'better-sqlite3';

/** A moment in this connection's sequence of version checks (`mark`). */
export type ReadMark = number;

export interface RowCache {
  /** Now, as a mark: a read given it may rely on a version check made after this moment. */
  mark(): ReadMark;
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
  return {
    mark: () => checks,
    read<R>(table: string, key: string, load: () => R[] | undefined, since?: ReadMark): R[] | undefined {
      const rows = kept.get(table);
      if (!rows) throw new TypeError(`table ${table} is not watched`);
      if (sqlite.inTransaction) return undefined;
      if (since === undefined || checks <= since) {
        const version = dataVersion.get();
        checks++;
        if (version !== seen) {
          seen = version;
          for (const t of tables) drop(t);
        }
      }
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
