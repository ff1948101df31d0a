// GET /orders page cost at depth 1 and at depth 10,000: keyset pagination must keep a deep page
// as cheap as the first (within 1.5x), on SQLite and on PostgreSQL (a fresh database). The orders
// are seeded straight into the store; the deep cursor is reached by walking the API, as a partner
// would.
import { sql } from 'kysely';
import { benchOrder } from './lib/orders.ts';
import { mint, signFor, signedRequest } from './lib/partner.ts';
import { runLoad, type LoadResult } from './lib/load.ts';
import { freshDatabase, postgresUrlOrSkip } from './lib/postgres.ts';
import { newMasterKey, spawnServer, tempDir } from './lib/processes.ts';
import { openServerStore } from './lib/store.ts';
import { median } from './lib/table.ts';

export interface PagesOptions {
  duration: number;
  rounds: number;
  connections: number;
  depth: number;
  log: (line: string) => void;
}

export interface PagesResult {
  dialect: 'sqlite' | 'postgres';
  orders: number;
  depth: number;
  pageSize: number;
  first: PageFigures;
  deep: PageFigures;
  /** rps at depth 1 over rps at depth N, median of the rounds (1 = no cost of depth). */
  costRatio: number;
  /** Server CPU per answer at depth N over depth 1 (robust to the machine's load). */
  cpuCostRatio: number;
  unexpected: number;
}

interface PageFigures {
  runs: LoadResult[];
  rps: number;
  p50: number;
  p99: number;
  cpuMicrosPerRequest: number;
}

const PATH = '/api/partner/v1/orders';
const PAGE = 50;
const WALK = 200;

export async function benchPages(o: PagesOptions): Promise<{ sqlite: PagesResult; postgres: PagesResult | 'skipped' }> {
  const sqlite = await benchPagesOn('sqlite', undefined, o);
  const pgUrl = postgresUrlOrSkip('the PostgreSQL leg of the GET /orders page-cost benchmark');
  if (!pgUrl) return { sqlite, postgres: 'skipped' };
  const fresh = await freshDatabase(pgUrl, 'bench_pages');
  try {
    return { sqlite, postgres: await benchPagesOn('postgres', fresh.url, o) };
  } finally {
    await fresh.drop();
  }
}

async function benchPagesOn(
  dialect: 'sqlite' | 'postgres',
  databaseUrl: string | undefined,
  o: PagesOptions,
): Promise<PagesResult> {
  const dataDir = tempDir('bench-pages');
  const masterKey = newMasterKey();
  const server = await spawnServer({
    dataDir,
    masterKey,
    validateResponses: false,
    ...(databaseUrl ? { databaseUrl } : {}),
  });
  const store = await openServerStore({ dataDir, databaseUrl, masterKey });
  try {
    const credential = await mint(server.url);
    // As many orders after the deep page as before it: a plan that reads every row after the
    // cursor (an OR the index cannot serve) is then as slow as it would be in a real history.
    const total = 2 * o.depth + PAGE;
    o.log(`pages (${dialect}): seeding ${total.toLocaleString('en-US')} orders through the store`);
    const base = Date.now() - total * 1000;
    await store.transaction(async (tx) => {
      for (let i = 0; i < total; i++) {
        const at = base + i * 1000;
        const order = benchOrder({
          public_id: `ord_bench${String(i).padStart(11, '0')}`,
          partner_id: credential.partnerId,
          domain: `bench-${i}.com`,
          created_at: at,
        });
        await tx.orders.insertOrder(order);
      }
    });
    // 20,050 orders in one go: on PostgreSQL the server's maintenance analyses the table within a
    // minute (store/statistics.ts); until then its plans see an empty table (a bitmap scan and a
    // sort of all the partner's orders for each page: bench/README.md). Done now, as it would be.
    if (databaseUrl) await sql`analyze orders`.execute(store.db);
    // Walk to depth N with the largest pages, then keep that page's cursor.
    let cursor: string | null = null;
    let seen = 0;
    while (seen < o.depth) {
      const res = await signedRequest(
        server.url,
        credential,
        'GET',
        `${PATH}?limit=${Math.min(WALK, o.depth - seen)}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      if (res.status !== 200)
        throw new Error(`walking the orders failed at ${seen}: ${res.status} ${res.text.slice(0, 300)}`);
      const page = res.json() as { data: unknown[]; next_cursor: string | null };
      seen += page.data.length;
      cursor = page.next_cursor;
      if (!cursor) throw new Error(`the walk ended at ${seen} orders`);
    }
    const firstTarget = `${PATH}?limit=${PAGE}`;
    const deepTarget = `${PATH}?limit=${PAGE}&cursor=${encodeURIComponent(cursor as string)}`;
    // The deep page is the (depth+1)th newest order onwards: seeded with index total-1-depth.
    const check = (await signedRequest(server.url, credential, 'GET', deepTarget)).json() as {
      data: Array<{ public_id: string }>;
    };
    const expected = `ord_bench${String(total - 1 - o.depth).padStart(11, '0')}`;
    if (check.data[0]?.public_id !== expected)
      throw new Error(`the deep page starts at ${check.data[0]?.public_id}, expected ${expected}`);
    const run = (t: string, duration: number) =>
      runLoad({
        pid: server.child.pid,
        url: server.url,
        connections: o.connections,
        duration,
        path: t,
        build: () => ({ headers: signFor(credential, 'GET', t) }),
      });
    await run(firstTarget, 2);
    await run(deepTarget, 2);
    const first: LoadResult[] = [];
    const deep: LoadResult[] = [];
    for (let round = 0; round < o.rounds; round++) {
      const pair = round % 2 === 0 ? (['first', 'deep'] as const) : (['deep', 'first'] as const);
      for (const which of pair) {
        const r = await run(which === 'first' ? firstTarget : deepTarget, o.duration);
        (which === 'first' ? first : deep).push(r);
        o.log(
          `  pages (${dialect}) round ${round + 1}/${o.rounds} ${which.padEnd(5)} ${Math.round(r.rps)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms  ${JSON.stringify(r.statuses)}`,
        );
      }
    }
    const sum = (rs: LoadResult[]): PageFigures => ({
      runs: rs,
      rps: median(rs.map((r) => r.rps)),
      p50: median(rs.map((r) => r.p50)),
      p99: median(rs.map((r) => r.p99)),
      cpuMicrosPerRequest: median(rs.map((r) => r.cpuMicrosPerRequest)),
    });
    const unexpected = [...first, ...deep].reduce(
      (n, r) =>
        n +
        r.errors +
        r.timeouts +
        Object.entries(r.statuses).reduce((m, [code, c]) => m + (code === '200' ? 0 : c), 0),
      0,
    );
    return {
      dialect,
      orders: total,
      depth: o.depth,
      pageSize: PAGE,
      first: sum(first),
      deep: sum(deep),
      costRatio: median(first.map((r, i) => r.rps / (deep[i]?.rps ?? NaN))),
      cpuCostRatio: median(deep.map((r, i) => r.cpuMicrosPerRequest / (first[i]?.cpuMicrosPerRequest ?? NaN))),
      unexpected,
    };
  } finally {
    await store.close();
    await server.stop();
  }
}
