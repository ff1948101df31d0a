// An import at scale on PostgreSQL: `npm run inventory -- import` (the real command, in a child
// process) of a generated file of a million listings into a fresh database, timed, then imported
// again over itself (the path that keeps sold domains sold); after each, the hot inventory
// statements (a listing, the order's read and write, the listing pages in every order and after a
// cursor, the page total, the search source) are explained and judged against their intended
// plans (server/store/intended-plans.ts) and run once each for their time. Not in the default run
// (minutes): `npm run bench -- --only import [--import-rows N]`.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { generateInventory } from '../../server/inventory/generate.ts';
import { secretBox } from '../../server/security/secret-box.ts';
import { openDatabase } from '../../server/store/database.ts';
import { createStore, type Store } from '../../server/store/index.ts';
import { judgeStatements } from '../../server/store/intended-plans.ts';
import type { ListingSort } from '../../server/store/inventory.ts';
import type { Placement } from '../../server/store/order-placement.ts';
import { statementShape, type StatementEvent } from '../../server/store/statements.ts';
import { freshDatabase, postgresUrlOrSkip } from './lib/postgres.ts';
import { benchOrder } from './lib/orders.ts';
import { track } from './lib/children.ts';
import { ROOT, tempDir } from './lib/processes.ts';

export interface ImportOptions {
  rows: number;
  log: (line: string) => void;
}

export interface StatementFigure {
  intended: string;
  ok: boolean;
  /** The plan's table accesses: index (or every row) and the columns it constrains. */
  access: string;
  problems: string[];
  /** One run's time, ms (client side). */
  ms: number;
}

export interface ImportRun {
  label: string;
  seconds: number;
  /** Peak resident memory of the import process, MB. */
  peakMb: number;
  statements: StatementFigure[];
}

export interface ImportResult {
  rows: number;
  runs: ImportRun[];
}

export async function benchImport(o: ImportOptions): Promise<ImportResult | 'skipped'> {
  const url = postgresUrlOrSkip('the import benchmark (PostgreSQL only)');
  if (!url) return 'skipped';
  const dir = tempDir('bench-import');
  const file = join(dir, 'inventory.csv');
  o.log(`import: writing ${o.rows.toLocaleString('en-US')} generated listings to ${file}`);
  await writeCsv(file, o.rows);
  const fresh = await freshDatabase(url, 'bench_import');
  try {
    const runs: ImportRun[] = [];
    for (const label of ['into an empty environment', 'again, over the same listings']) {
      o.log(`import: npm run inventory -- import (${label})`);
      const { seconds, peakMb } = await importFile(fresh.url, file);
      o.log(`  ${seconds.toFixed(1)} s, peak ${Math.round(peakMb)} MB`);
      runs.push({ label, seconds, peakMb, statements: await hotInventoryStatements(fresh.url, o.log) });
    }
    return { rows: o.rows, runs };
  } finally {
    await fresh.drop();
  }
}

async function writeCsv(file: string, rows: number): Promise<void> {
  const out = createWriteStream(file);
  out.write('domain,price_cents,floor_cents\n');
  for (const r of generateInventory({ size: rows, seed: 7 })) {
    if (!out.write(`${r.domain},${r.price_cents},${r.floor_cents}\n`))
      await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
}

/** The real command in a child process; its wall time and peak memory (GNU time is not assumed). */
function importFile(databaseUrl: string, file: string): Promise<{ seconds: number; peakMb: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    // The child reports its own peak memory on exit, so no external tool is needed.
    const child = track(
      spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          '--import',
          'data:text/javascript,process.on("exit",()=>process.stderr.write(`PEAK_RSS ${process.resourceUsage().maxRSS}\\n`))',
          join(ROOT, 'scripts/inventory.ts'),
          'import',
          '--environment',
          'sandbox',
          file,
        ],
        {
          cwd: ROOT,
          env: { ...process.env, DATABASE_URL: databaseUrl },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      ),
    );
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`the import failed (${code}):\n${out.slice(-2000)}`));
      const peak = /PEAK_RSS (\d+)/.exec(out);
      resolve({ seconds: (performance.now() - started) / 1000, peakMb: peak ? Number(peak[1]) / 1024 : NaN });
    });
  });
}

/** Runs each hot inventory statement once (writes rolled back), hearing it; then judges every plan. */
async function hotInventoryStatements(databaseUrl: string, log: (line: string) => void): Promise<StatementFigure[]> {
  const heard: StatementEvent[] = [];
  let hearing = false;
  const store: Store = createStore(
    await openDatabase({ databaseUrl, poolSize: 2, onStatement: (e) => hearing && heard.push(e) }),
    secretBox(randomBytes(32)),
  );
  try {
    const [one] = await store.inventory.listings('sandbox', {}, 'domain', {
      offset: 500_000 % Math.max(1, await store.inventory.count('sandbox')),
      limit: 1,
    });
    if (!one) throw new Error('the imported inventory has no listed row');
    hearing = true;
    await store.inventory.find('sandbox', one.domain);
    await store.placement.look('sandbox', one.domain, 'ptn_bench', Date.now());
    await rolledBack(store, async (tx) => {
      await tx.inventory.markSold('sandbox', one.domain);
    });
    await rolledBack(store, async (tx) => {
      await tx.placement.place(benchPlacement(one.domain, one.price_cents));
    });
    for (const sort of ['domain', 'price_asc', 'price_desc', 'newest'] as ListingSort[]) {
      const first = await store.inventory.listings('sandbox', {}, sort, { limit: 21 });
      const last = first.at(-1);
      const after = last
        ? { domain: last.domain, value: sort === 'newest' ? last.listed_at : last.price_cents }
        : undefined;
      await store.inventory.listings('sandbox', {}, sort, { after, limit: 21 });
      await store.inventory.countListings('sandbox', {}, sort, after);
    }
    await store.inventory.listings('sandbox', { tld: 'com', minPrice: 1_000, maxPrice: 100_000_000 }, 'price_asc', {
      limit: 21,
    });
    const source = store.inventory.listedRows('sandbox');
    await source.next();
    await source.return(undefined);
    hearing = false;
    const verdicts = await judgeStatements(store.db, 'postgres', heard);
    const timeOf = new Map<string, number>();
    for (const e of heard) timeOf.set(statementShape(e.sql), Math.max(timeOf.get(statementShape(e.sql)) ?? 0, e.ms));
    const figures = verdicts
      .filter((v) => v.intended !== 'transaction control')
      .map((v) => ({
        intended: v.intended ?? 'UNCLASSIFIED',
        ok: v.ok,
        access: v.plan.accesses
          .map((a) => `${a.table} ${a.index ?? 'every row'}${a.columns.length ? ` (${a.columns.join(', ')})` : ''}`)
          .join('; '),
        problems: v.problems,
        ms: timeOf.get(v.statement) ?? NaN,
      }));
    for (const f of figures)
      log(
        `  ${f.ok ? 'ok ' : 'BAD'} ${f.intended.padEnd(40)} ${f.ms.toFixed(2).padStart(8)} ms  ${f.access}${f.problems.length ? `  <- ${f.problems.join('; ')}` : ''}`,
      );
    return figures;
  } finally {
    await store.close();
  }
}

class RolledBack extends Error {}

/** Runs `work` in a transaction that is always rolled back: a write heard, never kept. */
async function rolledBack(store: Store, work: Parameters<Store['transaction']>[0]): Promise<void> {
  try {
    await store.transaction(async (tx) => {
      await work(tx);
      throw new RolledBack();
    });
  } catch (err) {
    if (!(err instanceof RolledBack)) throw err;
  }
}

/** An order of `domain` as POST /orders writes it (never kept: placed in a rolled-back transaction). */
function benchPlacement(domain: string, price: number): Placement {
  const now = Date.now();
  return {
    order: benchOrder({
      public_id: 'ord_benchimport1',
      partner_id: 'ptn_bench',
      domain,
      sale_price_cents: price,
      created_at: now,
    }),
    events: [{ id: 'evt_benchimport1', type: 'order.recorded', body: '{}', deliver: true }],
    timeline: { event_type: 'order.recorded', event_id: 'evt_benchimport1' },
    answer: { keyId: 'pk_bench', key: 'bench-import', statusCode: 201, body: '{}' },
    now,
  };
}
