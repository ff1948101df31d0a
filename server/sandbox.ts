#!/usr/bin/env node
// `npx @domain-sales/sandbox` (bin `domain-sales-sandbox`): the reference server as a sandbox one
// command away. The same server as `npm start` (server/main.ts, configured by the same
// environment variables), with what a first run needs said on the console: where its data lives,
// where it listens, the operator token and the call that mints a partner credential. It stops as
// `npm start` does (server/ops/shutdown.ts): SIGTERM or SIGINT drains, a second one stops at once.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { configFromEnv } from './config.ts';
import { startServer } from './embedded.ts';
import { bannerText, say, storeLine } from './ops/banner.ts';
import { operatorToken } from './ops/operator-token.ts';
import { drainOnShutdown } from './ops/shutdown.ts';
import { domainSearch } from './search/index.ts';

const USAGE = `domain-sales-sandbox [--data-dir DIR] [--port N] [--host H]

  --data-dir DIR   embedded SQLite database, master key and operator token (DATA_DIR;
                   default ./domain-sales-sandbox-data). With DATABASE_URL the data is in
                   PostgreSQL and DIR keeps only the keys.
  --port N         PORT (default 8080; 0 picks a free port)
  --host H         HOST (default 127.0.0.1)

Every variable of the reference server applies (README: DATABASE_URL, ADMIN_TOKEN, MASTER_KEY,
PUBLIC_BASE_URL, SANDBOX_INVENTORY_SIZE, …).`;

/**
 * How often the launcher is looked at (server/ops/launcher.ts): how long at most a server whose
 * npx was stopped keeps serving before its drain begins. One getppid and one kill(pid, 0) each
 * time, so it costs nothing measurable; well inside the 10 s a container runtime waits after its
 * SIGTERM.
 */
const LAUNCHER_CHECK_MS = 500;

async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      'data-dir': { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const dataDir = resolve(values['data-dir'] ?? process.env.DATA_DIR ?? 'domain-sales-sandbox-data');
  const operator = operatorToken(process.env, dataDir);
  const env = {
    ...process.env,
    DATA_DIR: dataDir,
    ADMIN_TOKEN: operator.token,
    ...(values.port !== undefined ? { PORT: values.port } : {}),
    ...(values.host !== undefined ? { HOST: values.host } : {}),
  };
  const config = configFromEnv(env);
  say(undefined, storeLine(config));
  const running = await startServer({ config });
  const warmed = Date.now();
  void Promise.all(['sandbox', 'live'].map((e) => domainSearch(running.store).warm(e))).then(
    () => say(running.logger, `search index ready in ${Date.now() - warmed} ms`),
    (err: unknown) => console.error('search index warm-up failed', err),
  );
  // After the logger's lines so far (store opened, listening): the console keeps their order.
  say(running.logger, bannerText({ title: 'Domain Sales sandbox', url: running.url, config, operator }));
  // Stopped like `npm start`: a drain, then exit 0. Under npx a shell sits between npx and this
  // process and dies of the SIGTERM npx forwards, so the launcher's end drains it too.
  drainOnShutdown({
    drain: () => running.drain(),
    logger: running.logger,
    say: (text) => say(running.logger, text),
    launcherCheckMs: LAUNCHER_CHECK_MS,
  });
}

main(process.argv.slice(2)).catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
