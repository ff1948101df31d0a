// Starts a complete reference server (store, sandbox inventory, webhook dispatcher, HTTP) and
// hands back its address and a stop function. `npm start`, the conformance CLI's one-command
// demo and the benchmarks all start the server through here.
import type { AddressInfo } from 'node:net';
import { createApp } from './app.ts';
import { seedUserDomains } from './bulk/seed.ts';
import { systemClock, type Clock } from './clock.ts';
import { DEFAULT_SANDBOX_USER, type Config } from './config.ts';
import type { Faults } from './faults.ts';
import { createExpressServer } from './http/express-server.ts';
import { generateInventory } from './inventory/generate.ts';
import { ensureSandboxUser } from './oauth/index.ts';
import { runScheduledSettlement } from './partner/settlement-run.ts';
import { secretBox } from './security/secret-box.ts';
import { openDatabase } from './store/database.ts';
import { createStore, type Store } from './store/index.ts';
import type { StatementListener } from './store/statements.ts';
import { createDispatcher } from './webhooks/dispatcher.ts';
import type { Resolve } from './webhooks/resolve.ts';

const MAINTENANCE_EVERY_MS = 60_000;

export interface RunningServer {
  url: string;
  store: Store;
  stop(): Promise<void>;
}

export interface StartOptions {
  config: Config;
  clock?: Clock;
  log?: (line: string) => void;
  /** Test-only (the conformance suite's proof of power). */
  faults?: Faults;
  /**
   * Test-only: resolves webhook host names, at registration and at every delivery attempt
   * (the DNS-rebinding test re-points a name through it). Default: the system resolver.
   */
  resolve?: Resolve;
  /** Hears every statement the store runs (the benchmark's statement profile). */
  onStatement?: StatementListener;
}

export async function startServer({ config, clock = systemClock, log = (l) => console.log(l), faults, resolve, onStatement }: StartOptions): Promise<RunningServer> {
  const store = createStore(
    await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, ...(config.sqliteSynchronous ? { sqliteSynchronous: config.sqliteSynchronous } : {}), ...(onStatement ? { onStatement } : {}) }),
    secretBox(config.masterKey),
  );
  const sandboxUser = await ensureSandboxUser(store, config.sandboxUser ?? DEFAULT_SANDBOX_USER, clock.now());
  // The sandbox user's own domains, for the bulk operations (server/bulk/seed.ts; added once).
  await seedUserDomains(store, sandboxUser.userId, clock.now());
  if (await store.inventory.isEmpty('sandbox')) {
    const started = Date.now();
    await store.inventory.replaceEnvironment('sandbox', generateInventory({ size: config.sandboxInventorySize, seed: 1 }));
    log(`generated ${config.sandboxInventorySize} sandbox domains in ${Date.now() - started} ms`);
  }
  const dispatcher = createDispatcher({
    store,
    clock,
    backoffScale: config.webhookBackoffScale,
    timeoutMs: config.webhookTimeoutMs,
    log: (m) => log(m),
    ...(faults ? { faults } : {}),
    ...(resolve ? { resolve } : {}),
  });
  const app = createApp({ config, store, clock, dispatcher, log: (m, err) => log(`${m}${err ? `: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}` : ''}`), ...(faults ? { faults } : {}), ...(resolve ? { resolve } : {}) });
  const server = createExpressServer(app);
  // Slow clients are cut off instead of holding sockets: 10 s to send headers, 30 s in all.
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, resolve);
  });
  dispatcher.start();
  // Tables that grew while no server ran (or under another's maintenance) get their statistics now.
  void store.refreshStatistics().catch((e: unknown) => log(`maintenance failed: ${String(e)}`));
  const maintenance = setInterval(() => {
    // The statistics after the purge, which may have deleted many rows.
    void store
      .purge(clock.now())
      .then(() => store.refreshStatistics())
      .catch((e: unknown) => log(`maintenance failed: ${String(e)}`));
    // Closes each month end that has passed; the statements are its state, so this is a no-op otherwise.
    void runScheduledSettlement({ store, clock, notifyOutbox: () => dispatcher.wake() }).catch((e: unknown) => log(`scheduled settlement failed: ${String(e)}`));
  }, MAINTENANCE_EVERY_MS);
  maintenance.unref();
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${config.host}:${port}`,
    store,
    async stop() {
      clearInterval(maintenance);
      // Stop accepting and let requests in flight finish, then stop deliveries and close the store.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await closed;
      await dispatcher.stop();
      await store.close();
    },
  };
}
