// Starts the reference server in-process on an ephemeral port, on a fresh database, with a
// clock the test controls. The PostgreSQL leg uses its own schema so test files never collide.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../server/app.ts';
import { manualClock } from '../../server/clock.ts';
import { generateInventory } from '../../server/inventory/generate.ts';
import { secretBox } from '../../server/security/secret-box.ts';
import { openDatabase } from '../../server/store/database.ts';
import { createStore, type Store } from '../../server/store/index.ts';
import { createDispatcher, type Dispatcher } from '../../server/webhooks/dispatcher.ts';

export const ADMIN_TOKEN = 'admin-test-token-0123456789';

export interface Harness {
  baseUrl: string;
  store: Store;
  clock: ReturnType<typeof manualClock>;
  dispatcher: Dispatcher;
  masterKey: Buffer;
  admin(path: string, body?: unknown, method?: string): Promise<Response>;
  mint(body?: Record<string, unknown>): Promise<{ key_id: string; secret: string; partner_id: string }>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  databaseUrl?: string | undefined;
  /** Share another harness's database (a second instance). */
  shareWith?: Harness;
  inventorySize?: number;
  realClock?: boolean;
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const masterKey = options.shareWith?.masterKey ?? randomBytes(32);
  const schema = options.databaseUrl && !options.shareWith ? `t_${randomBytes(6).toString('hex')}` : undefined;
  const opened = options.shareWith
    ? undefined
    : await openDatabase(options.databaseUrl ? { databaseUrl: options.databaseUrl, ...(schema ? { schema } : {}) } : { filename: ':memory:' });
  const store = options.shareWith ? options.shareWith.store : createStore(opened!, secretBox(masterKey));
  if (!options.shareWith) await store.inventory.replaceEnvironment('sandbox', generateInventory({ size: options.inventorySize ?? 2000, seed: 1 }));
  const clock = options.shareWith?.clock ?? manualClock(options.realClock ? Date.now() : Date.now());
  const dispatcher = createDispatcher({ store, clock, backoffScale: 0.001, timeoutMs: 2000, pollMs: 20 });
  const app = createApp({ config: { adminToken: ADMIN_TOKEN, masterKey, validateResponses: true }, store, clock, dispatcher, resolve: async () => ['127.0.0.1'], log: () => {} });
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const admin = (path: string, body?: unknown, method = 'POST') =>
    fetch(`${baseUrl}/api/admin/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  return {
    baseUrl,
    store,
    clock,
    dispatcher,
    masterKey,
    admin,
    async mint(body = {}) {
      const res = await admin('/credentials', { environment: 'sandbox', scopes: ['search', 'buy', 'webhook'], ...body });
      if (res.status !== 201) throw new Error(`minting failed: ${res.status} ${await res.text()}`);
      return (await res.json()) as { key_id: string; secret: string; partner_id: string };
    },
    async close() {
      await dispatcher.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (!options.shareWith) await store.close();
    },
  };
}

/** The PostgreSQL URL when the leg should run; warns loudly once when it is skipped. */
export function postgresUrl(): string | undefined {
  const url = process.env.DATABASE_URL;
  if (!url) console.warn('\n*** DATABASE_URL is not set: the PostgreSQL leg of these tests is SKIPPED ***\n');
  return url;
}
