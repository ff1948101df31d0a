// Process entry: configuration from the environment, then the server; a graceful stop on
// SIGTERM/SIGINT (stop accepting, drain, stop deliveries, close the store).
import { configFromEnv } from './config.ts';
import { startServer } from './embedded.ts';
import { domainSearch } from './search/index.ts';

async function main(): Promise<void> {
  const config = configFromEnv();
  const running = await startServer({ config });
  // Build the search indexes now rather than on the first search (a few seconds at 100,000 names).
  const warmed = Date.now();
  void Promise.all(['sandbox', 'live'].map((env) => domainSearch(running.store).warm(env))).then(
    () => console.log(`search index ready in ${Date.now() - warmed} ms`),
    (err: unknown) => console.error('search index warm-up failed', err),
  );
  console.log(
    `Domain Sales reference server listening on ${running.url} (${running.store.dialect}${config.adminToken ? ', operator API on' : ', operator API off: set ADMIN_TOKEN'})`,
  );
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: stopping`);
    await running.stop();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
