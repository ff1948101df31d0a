// How the database runs a statement, reduced to what a plan check needs: each table it reads, and
// whether through an index (which one, constraining which columns) or by reading every row; and
// whether it sorts. Both dialects: PostgreSQL's EXPLAIN (FORMAT JSON) and SQLite's EXPLAIN QUERY
// PLAN. Plans are taken with the statement's own values, as the server's statements are planned
// (node-postgres sends them unnamed, so each is planned for its values). EXPLAIN without ANALYZE
// runs nothing, writes included. The intended plans are in intended-plans.ts; the test holding the
// store to them is test/server/plans.test.ts, and `npm run bench -- --only import` checks them
// after a large import.
import { CompiledQuery, sql, type Kysely } from 'kysely';
import type { Dialect } from './migrations.ts';
import type { Database } from './schema.ts';

/** One way the plan reaches a table. */
export interface TableAccess {
  table: string;
  /** Null: every row is read (a sequential scan, or a full scan of an index in SQLite). */
  index: string | null;
  /** Columns of the table the index condition constrains. */
  columns: string[];
}

export interface Plan {
  accesses: TableAccess[];
  /** The plan sorts rows itself (an ORDER BY the indexes do not give). */
  sorts: boolean;
  /** The plan as the database prints it, for failure messages. */
  text: string;
}

/** The columns of every table, to tell a column from a literal in an index condition. */
export interface TableColumns {
  columns: Map<string, Set<string>>;
  /** SQLite: the column that is the table's rowid (an INTEGER PRIMARY KEY), by table. */
  rowids: Map<string, string>;
}

export async function tableColumns(db: Kysely<Database>, dialect: Dialect): Promise<TableColumns> {
  const rows =
    dialect === 'postgres'
      ? (
          await sql<{
            table: string;
            column: string;
            rowid: number;
          }>`select table_name as "table", column_name as "column", 0 as rowid from information_schema.columns where table_schema = current_schema()`.execute(
            db,
          )
        ).rows
      : (
          await sql<{
            table: string;
            column: string;
            rowid: number;
          }>`select m.name as "table", p.name as "column", (p.pk = 1 and upper(p.type) = 'INTEGER') as rowid from sqlite_master m join pragma_table_info(m.name) p where m.type = 'table'`.execute(
            db,
          )
        ).rows;
  const columns = new Map<string, Set<string>>();
  const rowids = new Map<string, string>();
  for (const r of rows) {
    columns.set(r.table, (columns.get(r.table) ?? new Set()).add(r.column));
    if (Number(r.rowid) === 1) rowids.set(r.table, r.column);
  }
  return { columns, rowids };
}

/** Words of `text` outside its quoted literals that are columns of `table`. */
function columnsIn(text: string, table: string, schema: TableColumns): string[] {
  const known = schema.columns.get(table) ?? new Set<string>();
  const bare = text.replace(/'(?:[^']|'')*'/g, "''");
  return [...new Set([...bare.matchAll(/[a-z_][a-z0-9_]*/g)].map((m) => m[0]).filter((w) => known.has(w)))];
}

interface PgNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Filter?: string;
  Plans?: PgNode[];
}

/** One line per node, indented by depth: the node, its table and index, its condition and filter. */
function pgText(node: PgNode, depth = 0): string {
  const parts = [
    node['Node Type'],
    node['Relation Name'] ? `on ${node['Relation Name']}` : '',
    node['Index Name'] ? `using ${node['Index Name']}` : '',
    node['Index Cond'] ? `cond ${node['Index Cond']}` : '',
    node.Filter ? `filter ${node.Filter}` : '',
  ].filter(Boolean);
  return [
    `${'  '.repeat(depth)}${parts.join(' ')}`,
    ...(node.Plans ?? []).map((child) => pgText(child, depth + 1)),
  ].join('\n');
}

/** The plan of `query` as it would run now, with its own values. */
export async function explain(
  db: Kysely<Database>,
  dialect: Dialect,
  query: { sql: string; parameters: readonly unknown[] },
  schema: TableColumns,
): Promise<Plan> {
  if (dialect === 'postgres') {
    const [row] = (
      await db.executeQuery(CompiledQuery.raw(`explain (format json, costs false) ${query.sql}`, [...query.parameters]))
    ).rows as Array<{ 'QUERY PLAN': Array<{ Plan: PgNode }> }>;
    const root = row?.['QUERY PLAN'][0]?.Plan;
    if (!root) throw new Error(`no plan for ${query.sql}`);
    const accesses: TableAccess[] = [];
    let sorts = false;
    const visit = (node: PgNode, parent?: PgNode) => {
      const type = node['Node Type'];
      if (type === 'Sort' || type === 'Incremental Sort') sorts = true;
      const table = node['Relation Name'] ?? (type === 'Bitmap Index Scan' ? parent?.['Relation Name'] : undefined);
      if (table && type !== 'ModifyTable' && type !== 'Bitmap Heap Scan') {
        const index = node['Index Name'] ?? null;
        const cond = node['Index Cond'] ?? '';
        accesses.push({ table, index: type === 'Seq Scan' ? null : index, columns: columnsIn(cond, table, schema) });
      }
      for (const child of node.Plans ?? []) visit(child, node);
    };
    visit(root);
    return { accesses, sorts, text: pgText(root) };
  }
  const rows = (await db.executeQuery(CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters])))
    .rows as Array<{ detail: string }>;
  const accesses: TableAccess[] = [];
  let sorts = false;
  for (const { detail } of rows) {
    if (/^USE TEMP B-TREE FOR (ORDER BY|RIGHT PART OF ORDER BY|LAST TERM OF ORDER BY)/.test(detail)) sorts = true;
    const m =
      /^(SCAN|SEARCH) (\S+)(?: USING (?:COVERING )?(?:INDEX (\S+)|(INTEGER PRIMARY KEY)|PRIMARY KEY))?(?: \((.*)\))?/.exec(
        detail,
      );
    if (!m || !schema.columns.has(m[2] as string)) continue;
    const table = m[2] as string;
    if (m[1] === 'SCAN') {
      accesses.push({ table, index: null, columns: [] });
      continue;
    }
    // A search by rowid names it `rowid`: the table's INTEGER PRIMARY KEY column.
    const rowid = schema.rowids.get(table);
    const cond = m[4] && rowid ? (m[5] ?? '').replace(/\browid\b/g, rowid) : (m[5] ?? '');
    accesses.push({
      table,
      index: m[3] ?? (m[4] ? 'INTEGER PRIMARY KEY' : null),
      columns: columnsIn(cond, table, schema),
    });
  }
  return { accesses, sorts, text: rows.map((r) => r.detail).join('\n') };
}
