// Starts a complete reference server (store, sandbox inventory, webhook dispatcher, HTTP) and
// hands back its address and a stop function. `npm start`, the conformance CLI's one-command
// demo and the benchmarks all start the server through here.
import type { AddressInfo } from 'node:net';
import { createApp } from './app.ts';
import { seedUserDomains } from './bulk/seed.ts';
import { systemClock, type Clock } from './clock.ts';
import { DEFAULT_SANDBOX_USER, type Config } from './config.ts';
import type { Faults } from './faults.ts';
import { Contract, GENERATED_DIR } from './contract/index.ts';
import { createExpressServer } from './http/express-server.ts';
import { answerProtocolRefusals } from './http/protocol-refusals.ts';
import { generateInventory } from './inventory/generate.ts';
import { ensureSandboxUser } from './oauth/index.ts';
import { runScheduledSettlement } from './partner/settlement-run.ts';
import { secretBox } from './security/secret-box.ts';
import { openDatabase } from './store/database.ts';
import { createStore, type Store } from './store/index.ts';
import type { StatementEvent, StatementListener } from './store/statements.ts';
import { drain } from './ops/drain.ts';
import { createReadiness, type Readiness } from './ops/health.ts';
import { loggerFromEnv, loggerToLines, type Logger } from './ops/logger.ts';
import { createMetrics, type DeliveryOutcome, type Metrics } from './ops/metrics.ts';
import { startMetricsServer } from './ops/metrics-server.ts';
import { outboxProbe } from './ops/outbox-probe.ts';
import { migrations } from './store/migrations.ts';
import { createDispatcher } from './webhooks/dispatcher.ts';
import type { Resolve } from './webhooks/resolve.ts';

const MAINTENANCE_EVERY_MS = 60_000;

export interface RunningServer {
  url: string;
  store: Store;
  logger: Logger;
  /** Absent only when started with `metrics: null`. */
  metrics?: Metrics;
  readiness: Readiness;
  /** GET /metrics on METRICS_PORT, when configured. */
  metricsUrl?: string;
  /** Stops at once: no grace period (tests, the benchmark). */
  stop(): Promise<void>;
  /** SIGTERM: /readyz 503 first, requests served for config.drainGraceMs, then stop() (server/ops/drain.ts). */
  drain(): Promise<void>;
}

export interface StartOptions {
  config: Config;
  clock?: Clock;
  /** Where log lines go, one JSON object each (tests pass () => {} to silence them); see `logger`. */
  log?: (line: string) => void;
  /** The structured logger (main.ts: LOG_LEVEL, pretty on a terminal); default: `log`'s lines, else loggerFromEnv(). */
  logger?: Logger;
  /** The metrics (server/ops/metrics.ts); default: a registry of the server's own; null: none (the benchmark's baseline). */
  metrics?: Metrics | null;
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

export async function startServer(options: StartOptions): Promise<RunningServer> {
  const { config, clock = systemClock, faults, resolve, onStatement } = options;
  const logger = options.logger ?? (options.log ? loggerToLines(options.log) : loggerFromEnv());
  const metrics = options.metrics === null ? undefined : (options.metrics ?? createMetrics());
  const store = createStore(
    await openDatabase({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      ...(config.sqliteSynchronous ? { sqliteSynchronous: config.sqliteSynchronous } : {}),
      ...(metrics || onStatement
        ? {
            onStatement: (event: StatementEvent) => {
              metrics?.storeQuery(event.ms / 1000, event.failed);
              onStatement?.(event);
            },
          }
        : {}),
      onFlushError: (err) =>
        logger.error({ event: 'flush_failed', err }, 'SQLite: a deferred flush of the write-ahead log failed'),
      onPoolError: (err) =>
        logger.warn(
          { event: 'pool_connection_failed', err },
          'PostgreSQL: an idle connection failed and was discarded',
        ),
    }),
    secretBox(config.masterKey),
  );
  logger.info(
    { event: 'store_opened', dialect: store.dialect, migrations: Object.keys(migrations(store.dialect)).length },
    'store opened, migrations current',
  );
  const readiness = createReadiness(store);
  metrics?.watchOutbox(outboxProbe(store, clock));
  const sandboxUser = await ensureSandboxUser(store, config.sandboxUser ?? DEFAULT_SANDBOX_USER, clock.now());
  // The sandbox user's own domains, for the bulk operations (server/bulk/seed.ts; added once).
  await seedUserDomains(store, sandboxUser.userId, clock.now());
  if (await store.inventory.isEmpty('sandbox')) {
    const started = Date.now();
    await store.inventory.replaceEnvironment(
      'sandbox',
      generateInventory({ size: config.sandboxInventorySize, seed: 1 }),
    );
    logger.info(
      { event: 'inventory_generated', size: config.sandboxInventorySize, ms: Date.now() - started },
      'sandbox inventory generated',
    );
  }
  // Before the server listens, so that its first signed requests do not wait for it (seconds at
  // a steady load's size; store/replay-guard.ts).
  const learning = Date.now();
  const nonces = await store.replayGuard.learnLog();
  if (nonces > 0) logger.info({ event: 'nonce_log_learned', nonces, ms: Date.now() - learning }, 'nonce log learned');
  const dispatcher = createDispatcher({
    store,
    clock,
    backoffScale: config.webhookBackoffScale,
    timeoutMs: config.webhookTimeoutMs,
    destinations: { sandboxLoopback: config.sandboxWebhookLoopback },
    logger,
    ...(metrics ? { onAttempt: (outcome: DeliveryOutcome) => metrics.deliveryAttempt(outcome) } : {}),
    ...(faults ? { faults } : {}),
    ...(resolve ? { resolve } : {}),
  });
  const app = createApp({
    config,
    store,
    clock,
    dispatcher,
    logger,
    ...(metrics ? { metrics } : {}),
    readiness,
    ...(faults ? { faults } : {}),
    ...(resolve ? { resolve } : {}),
  });
  const server = createExpressServer(app);
  // What Node would answer by itself (parser refusals, CONNECT, Expect) gets the contract's answers.
  answerProtocolRefusals(server, {
    contract: Contract.load(GENERATED_DIR),
    publicBaseUrl: config.publicBaseUrl,
    logger,
    metrics,
  });
  // Slow clients are cut off instead of holding sockets: 10 s to send headers, 30 s in all.
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, resolve);
  });
  dispatcher.start();
  const metricsServer =
    config.metricsPort === undefined || !metrics
      ? undefined
      : await startMetricsServer(metrics, {
          port: config.metricsPort,
          host: config.metricsHost ?? '127.0.0.1',
          logger,
        });
  // Tables that grew while no server ran (or under another's maintenance) get their statistics now.
  const failed = (event: string, message: string) => (err: unknown) => logger.error({ event, err }, message);
  void store.refreshStatistics().catch(failed('maintenance_failed', 'maintenance failed'));
  const maintenance = setInterval(() => {
    // The statistics after the purge, which may have deleted many rows.
    void store
      .purge(clock.now())
      .then(() => store.refreshStatistics())
      .catch(failed('maintenance_failed', 'maintenance failed'));
    // Closes each month end that has passed; the statements are its state, so this is a no-op otherwise.
    void runScheduledSettlement({ store, clock, notifyOutbox: () => dispatcher.wake() }).catch(
      failed('settlement_failed', 'scheduled settlement failed'),
    );
  }, MAINTENANCE_EVERY_MS);
  maintenance.unref();
  const { port } = server.address() as AddressInfo;
  const url = `http://${config.host}:${port}`;
  logger.info(
    {
      event: 'listening',
      url,
      dialect: store.dialect,
      operator_api: Boolean(config.adminToken),
      ...(metricsServer ? { metrics: metricsServer.url } : {}),
    },
    `Domain Sales reference server listening on ${url}`,
  );
  // Stop accepting and let requests in flight finish (idle keep-alive sockets are closed now, busy
  // ones after their answer), then stop deliveries and close the store.
  const steps = {
    closeListener: async () => {
      clearInterval(maintenance);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await closed;
      await metricsServer?.close();
    },
    stopDeliveries: () => dispatcher.stop(),
    closeStore: () => store.close(),
  };
  let stopping: Promise<void> | undefined;
  return {
    url,
    store,
    logger,
    ...(metrics ? { metrics } : {}),
    readiness,
    ...(metricsServer ? { metricsUrl: metricsServer.url } : {}),
    stop() {
      stopping ??= drain({ readiness, graceMs: 0, logger, ...steps });
      return stopping;
    },
    drain() {
      stopping ??= drain({ readiness, graceMs: config.drainGraceMs ?? 0, logger, ...steps });
      return stopping;
    },
  };
}
