// Process entry: configuration from the environment, storage, sandbox inventory, the HTTP
// server and the webhook dispatcher; a graceful stop on SIGTERM/SIGINT.
import { createServer } from 'node:http';
import { createApp } from './app.ts';
import { systemClock } from './clock.ts';
import { configFromEnv } from './config.ts';
import { generateInventory } from './inventory/generate.ts';
import { secretBox } from './security/secret-box.ts';
import { openDatabase } from './store/database.ts';
import { createStore } from './store/index.ts';
import { createDispatcher } from './webhooks/dispatcher.ts';

const MAINTENANCE_EVERY_MS = 60_000;

async function main(): Promise<void> {
  const config = configFromEnv();
  const store = createStore(await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir }), secretBox(config.masterKey));
  if (await store.inventory.isEmpty('sandbox')) {
    const started = Date.now();
    await store.inventory.replaceEnvironment('sandbox', generateInventory({ size: config.sandboxInventorySize, seed: 1 }));
    console.log(`generated ${config.sandboxInventorySize} sandbox domains in ${Date.now() - started} ms`);
  }
  const dispatcher = createDispatcher({
    store,
    clock: systemClock,
    backoffScale: config.webhookBackoffScale,
    timeoutMs: config.webhookTimeoutMs,
    log: (m) => console.warn(m),
  });
  const app = createApp({ config, store, clock: systemClock, dispatcher });
  const server = createServer(app);
  // Slow clients are cut off instead of holding sockets: 10 s to send headers, 30 s in all.
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
  dispatcher.start();
  const maintenance = setInterval(() => void store.purge(Date.now()).catch((e: unknown) => console.error('purge failed', e)), MAINTENANCE_EVERY_MS);
  maintenance.unref();
  console.log(`Domain Sales reference server listening on http://${config.host}:${config.port} (${store.dialect}${config.adminToken ? ', operator API on' : ', operator API off: set ADMIN_TOKEN'})`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: stopping`);
    clearInterval(maintenance);
    // Stop accepting, let requests in flight finish, then stop deliveries and close the store.
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    await closed;
    await dispatcher.stop();
    await store.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
