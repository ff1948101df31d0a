// POST /orders with a fresh idempotency key and a fresh listed domain per request: writes per
// second on SQLite and on PostgreSQL (a fresh database), production profile. Afterwards the
// store must hold exactly as many orders as there were 201 answers.
import { randomUUID } from 'node:crypto';
import { mint, signFor } from './lib/partner.ts';
import { runLoad, type LoadResult } from './lib/load.ts';
import { freshDatabase, postgresUrlOrSkip, type FreshDatabase } from './lib/postgres.ts';
import { newMasterKey, spawnServer, tempDir, type Child } from './lib/processes.ts';
import { listedInventory, openServerStore } from './lib/store.ts';
import { median } from './lib/table.ts';

export interface WritesOptions {
  duration: number;
  rounds: number;
  connections: number;
  log: (line: string) => void;
}

export interface WriteFigures {
  dialect: 'sqlite' | 'postgres';
  runs: LoadResult[];
  writesPerSecond: number;
  p50: number;
  p99: number;
  cpuMicrosPerRequest: number;
  created: number;
  ordersInStore: number;
  unexpected: number;
}

const PATH = '/api/partner/v1/orders';
/** Generous: each order takes one domain off the market. */
const INVENTORY = 60_000;

export async function benchWrites(o: WritesOptions): Promise<{ sqlite: WriteFigures; postgres: WriteFigures | 'skipped' }> {
  const sqlite = await benchOne('sqlite', undefined, o);
  const pgUrl = postgresUrlOrSkip('the PostgreSQL leg of the POST /orders benchmark');
  if (!pgUrl) return { sqlite, postgres: 'skipped' };
  const fresh: FreshDatabase = await freshDatabase(pgUrl, 'bench_orders');
  try {
    return { sqlite, postgres: await benchOne('postgres', fresh.url, o) };
  } finally {
    await fresh.drop();
  }
}

async function benchOne(dialect: 'sqlite' | 'postgres', databaseUrl: string | undefined, o: WritesOptions): Promise<WriteFigures> {
  const dataDir = tempDir('bench-orders');
  const masterKey = newMasterKey();
  o.log(`orders (${dialect}): starting a server with ${INVENTORY.toLocaleString('en-US')} sandbox domains`);
  const server: Child = await spawnServer({ dataDir, masterKey, validateResponses: false, inventorySize: INVENTORY, ...(databaseUrl ? { databaseUrl } : {}) });
  const store = await openServerStore({ dataDir, databaseUrl, masterKey });
  try {
    const credential = await mint(server.url);
    const domains = await listedInventory(store, INVENTORY);
    let next = 0;
    const build = () => {
      const listing = domains[next++ % domains.length];
      if (!listing) throw new Error('no inventory');
      const body = JSON.stringify({ domain: listing.domain, expected_price: listing.price_cents, currency: listing.currency, buyer: { email: 'bench@example.org' } });
      return { headers: { 'content-type': 'application/json', ...signFor(credential, 'POST', PATH, body, randomUUID()) }, body };
    };
    const warm = await runLoad({ pid: server.child.pid, url: server.url, connections: o.connections, duration: 2, method: 'POST', path: PATH, build });
    const runs: LoadResult[] = [];
    for (let round = 0; round < o.rounds; round++) {
      const r = await runLoad({ pid: server.child.pid, url: server.url, connections: o.connections, duration: o.duration, method: 'POST', path: PATH, build });
      runs.push(r);
      o.log(`  ${dialect} round ${round + 1}/${o.rounds}: ${Math.round((r.statuses['201'] ?? 0) / o.duration)} writes/s  p50 ${r.p50} ms  p99 ${r.p99} ms  ${JSON.stringify(r.statuses)}`);
    }
    if (next > domains.length) o.log(`  warning: ${dialect} ran out of inventory (${next} requests for ${domains.length} domains); later answers are 404`);
    const created = runs.reduce((n, r) => n + (r.statuses['201'] ?? 0), 0);
    const count = await store.db.selectFrom('orders').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return {
      dialect,
      runs,
      writesPerSecond: median(runs.map((r) => (r.statuses['201'] ?? 0) / o.duration)),
      p50: median(runs.map((r) => r.p50)),
      p99: median(runs.map((r) => r.p99)),
      cpuMicrosPerRequest: median(runs.map((r) => r.cpuMicrosPerRequest)),
      // The warm-up's orders are in the store too.
      created: created + (warm.statuses['201'] ?? 0),
      ordersInStore: Number(count.n),
      unexpected: runs.reduce((n, r) => n + r.errors + r.timeouts + Object.entries(r.statuses).reduce((m, [code, c]) => m + (code === '201' ? 0 : c), 0), 0),
    };
  } finally {
    await store.close();
    await server.stop();
  }
}
