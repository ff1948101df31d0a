// Process entry: configuration and the logger from the environment, then the server. On SIGTERM
// or SIGINT the instance drains (server/ops/shutdown.ts, drain.ts: /readyz 503, DRAIN_GRACE_MS of
// service, requests and deliveries in flight finished, store closed) and exits 0.
import { configFromEnv } from './config.ts';
import { startServer } from './embedded.ts';
import { bannerText, say } from './ops/banner.ts';
import { loggerFromEnv } from './ops/logger.ts';
import { drainOnShutdown } from './ops/shutdown.ts';
import { warmValidators } from './http/validator.ts';
import { domainSearch } from './search/index.ts';

async function main(): Promise<void> {
  const logger = loggerFromEnv();
  // Refuses (throws) an https deployment's weak operator token or default sandbox password.
  const config = configFromEnv();
  if (config.weakSecrets)
    logger.warn(
      { event: 'weak_secrets', problems: config.weakSecrets },
      `weak secrets, refused once PUBLIC_BASE_URL is https: ${config.weakSecrets.join('; ')}`,
    );
  const running = await startServer({ config, logger });
  if (!config.adminToken) logger.info({ event: 'operator_api_off' }, 'operator API off: set ADMIN_TOKEN');
  // A person at a terminal gets the installed sandbox's banner (server/ops/banner.ts) after the
  // log lines so far; a log shipper (no terminal) gets the JSON lines alone.
  if (process.stdout.isTTY || process.stderr.isTTY)
    say(
      logger,
      bannerText({
        title: 'Domain Sales reference server',
        url: running.url,
        config,
        operator: config.adminToken ? { source: 'env', token: config.adminToken } : { source: 'none' },
        withStore: true,
      }),
    );
  // Build the search indexes now rather than on the first search (a few seconds at 100,000
  // names); /readyz fails its search_index check until they are built.
  const warmed = Date.now();
  const warming = Promise.all(['sandbox', 'live'].map((env) => domainSearch(running.store).warm(env)));
  running.readiness.trackSearchIndex(warming);
  warming.then(
    () => logger.info({ event: 'search_index_ready', ms: Date.now() - warmed }, 'search index ready'),
    (err: unknown) => logger.error({ event: 'search_index_failed', err }, 'search index warm-up failed'),
  );
  // Build every operation's validator now, one operation per turn of the event loop, rather than
  // on each operation's first request (the validator's set-up: bench/README.md). /readyz does not
  // wait for it: a cold validator answers correctly, only slower; the warm-up ends within seconds
  // of listening; and a check of its own would widen the `failed` enum of the public document's
  // Readiness schema, a breaking change for its readers.
  const validatorsStarted = Date.now();
  warmValidators().then(
    (built) =>
      logger.info({ event: 'validators_ready', built, ms: Date.now() - validatorsStarted }, 'request validators built'),
    (err: unknown) => logger.error({ event: 'validators_warm_up_failed', err }, 'validator warm-up failed'),
  );
  drainOnShutdown({ drain: () => running.drain(), logger });
}

main().catch((err: unknown) => {
  // The logger may not exist yet (a bad LOG_LEVEL): the one line that stays on stderr.
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
