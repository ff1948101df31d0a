// The two column types that differ between the dialects; everything else is written once.
import type { ColumnDefinitionBuilder } from 'kysely';

export type Dialect = 'sqlite' | 'postgres';

export function columnTypes(dialect: Dialect) {
  return {
    /** 64-bit integers: epoch ms and cents. */
    big: dialect === 'postgres' ? ('bigint' as const) : ('integer' as const),
    /** An auto-incrementing primary key. */
    serial: {
      type: dialect === 'postgres' ? ('bigserial' as const) : ('integer' as const),
      column: (c: ColumnDefinitionBuilder) =>
        dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
    },
  };
}
