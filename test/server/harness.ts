// Starts the reference server in-process on an ephemeral port, on a fresh database, with a
// clock the test controls. The PostgreSQL leg uses its own schema so test files never collide.
import { randomBytes } from 'node:crypto';
import type { Server, ServerOptions } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../server/app.ts';
import { Contract, GENERATED_DIR } from '../../server/contract/index.ts';
import { createExpressServer } from '../../server/http/express-server.ts';
import { answerProtocolRefusals } from '../../server/http/protocol-refusals.ts';
import { loggerFromEnv, type Logger } from '../../server/ops/logger.ts';
import type { Metrics } from '../../server/ops/metrics.ts';
import type { Faults } from '../../server/faults.ts';
import { manualClock } from '../../server/clock.ts';
import { generateInventory } from '../../server/inventory/generate.ts';
import { secretBox } from '../../server/security/secret-box.ts';
import { openDatabase } from '../../server/store/database.ts';
import { createStore, type Store } from '../../server/store/index.ts';
import type { StatementListener } from '../../server/store/statements.ts';
import { createDispatcher, type Dispatcher } from '../../server/webhooks/dispatcher.ts';
import type { Resolve } from '../../server/webhooks/resolve.ts';

export const ADMIN_TOKEN = 'admin-test-token-0123456789';

/** Where a harness keeps its data, so a second instance (or a restart) can open the same database. */
export interface DatabaseLocation {
  databaseUrl?: string | undefined;
  /** PostgreSQL schema of this harness. */
  schema?: string | undefined;
  /** SQLite file (':memory:' cannot be shared). */
  sqliteFile?: string | undefined;
}

export interface Harness {
  baseUrl: string;
  store: Store;
  clock: ReturnType<typeof manualClock>;
  dispatcher: Dispatcher;
  masterKey: Buffer;
  database: DatabaseLocation;
  admin(path: string, body?: unknown, method?: string): Promise<Response>;
  mint(body?: Record<string, unknown>): Promise<{ key_id: string; secret: string; partner_id: string }>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  databaseUrl?: string | undefined;
  /** Share another harness's database (a second instance). */
  shareWith?: Harness;
  /**
   * A second instance (or a restart) on the same database as `h`, through a store of its own
   * (its own SQLite connection or PostgreSQL pool), with the same master key and clock.
   * `h` may already be closed.
   */
  sameDatabaseAs?: Harness;
  /** SQLite: keep the database in this file instead of in memory. */
  sqliteFile?: string;
  inventorySize?: number;
  realClock?: boolean;
  /** Start the webhook dispatcher (default true). */
  dispatch?: boolean;
  /** Resolves webhook host names for registration and delivery (default: every name is 127.0.0.1). */
  resolve?: Resolve;
  /** MCP_ALLOWED_ORIGINS of the server. */
  mcpAllowedOrigins?: string[];
  /** Hears every statement of the harness's own store (store/statements.ts). */
  onStatement?: StatementListener;
  /** Counts requests and delivery attempts into these metrics (server/ops/metrics.ts). */
  metrics?: Metrics;
  /** Logs requests here (server/ops/logger.ts); default: silent under vitest. */
  logger?: Logger;
  /** Test-only breakage of the contract (server/faults.ts). */
  faults?: Faults;
  /** Options of the HTTP server itself (its timeouts, say). */
  serverOptions?: ServerOptions;
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const reuse = options.sameDatabaseAs;
  const masterKey = options.shareWith?.masterKey ?? reuse?.masterKey ?? randomBytes(32);
  let database: DatabaseLocation;
  if (options.shareWith) database = options.shareWith.database;
  else if (reuse) {
    if (!reuse.database.databaseUrl && (!reuse.database.sqliteFile || reuse.database.sqliteFile === ':memory:')) {
      throw new Error('sameDatabaseAs needs a harness on PostgreSQL or on a SQLite file');
    }
    database = reuse.database;
  } else if (options.databaseUrl)
    database = { databaseUrl: options.databaseUrl, schema: `t_${randomBytes(6).toString('hex')}` };
  else database = { sqliteFile: options.sqliteFile ?? ':memory:' };

  let store: Store;
  if (options.shareWith) store = options.shareWith.store;
  else {
    const listen = options.onStatement;
    const counted = options.metrics;
    const heard =
      listen || counted
        ? { onStatement: ((e) => (counted?.storeQuery(e.ms / 1000, e.failed), listen?.(e))) as StatementListener }
        : {};
    const opened = database.databaseUrl
      ? await openDatabase({
          databaseUrl: database.databaseUrl,
          ...(database.schema ? { schema: database.schema } : {}),
          ...heard,
        })
      : await openDatabase({
          filename: database.sqliteFile ?? ':memory:',
          ...(database.sqliteFile && database.sqliteFile !== ':memory:' ? { dataDir: dirOf(database.sqliteFile) } : {}),
          ...heard,
        });
    store = createStore(opened, secretBox(masterKey));
    if (await store.inventory.isEmpty('sandbox')) {
      await store.inventory.replaceEnvironment(
        'sandbox',
        generateInventory({ size: options.inventorySize ?? 2000, seed: 1 }),
      );
    }
  }
  const clock = options.shareWith?.clock ?? reuse?.clock ?? manualClock(Date.now());
  // Every name is 127.0.0.1, at registration and at each delivery attempt, unless a test says otherwise.
  const resolve = options.resolve ?? (async () => ['127.0.0.1']);
  const metrics = options.metrics;
  const dispatcher = createDispatcher({
    store,
    clock,
    backoffScale: 0.001,
    timeoutMs: 2000,
    pollMs: 20,
    resolve,
    ...(metrics ? { onAttempt: (outcome) => metrics.deliveryAttempt(outcome) } : {}),
  });
  const app = createApp({
    config: {
      adminToken: ADMIN_TOKEN,
      masterKey,
      validateResponses: true,
      ...(options.mcpAllowedOrigins ? { mcpAllowedOrigins: options.mcpAllowedOrigins } : {}),
    },
    store,
    clock,
    dispatcher,
    resolve,
    log: () => {},
    ...(options.metrics ? { metrics: options.metrics } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.faults ? { faults: options.faults } : {}),
  });
  // The server as startServer builds it (server/embedded.ts), Node's own answers taken over.
  const server: Server = createExpressServer(app, options.serverOptions);
  answerProtocolRefusals(server, {
    contract: Contract.load(GENERATED_DIR),
    logger: options.logger ?? loggerFromEnv(),
    metrics: options.metrics,
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  if (options.dispatch !== false) dispatcher.start();
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
    database,
    admin,
    async mint(body = {}) {
      const res = await admin('/credentials', {
        environment: 'sandbox',
        scopes: ['search', 'buy', 'webhook'],
        ...body,
      });
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

function dirOf(file: string): string {
  const i = file.lastIndexOf('/');
  return i <= 0 ? '.' : file.slice(0, i);
}

/** The PostgreSQL URL when the leg should run; warns loudly once when it is skipped. */
export function postgresUrl(): string | undefined {
  const url = process.env.DATABASE_URL;
  if (!url) console.warn('\n*** DATABASE_URL is not set: the PostgreSQL leg of these tests is SKIPPED ***\n');
  return url;
}
