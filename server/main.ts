// Process entry: configuration from the environment, then the server; a graceful stop on
// SIGTERM/SIGINT (stop accepting, drain, stop deliveries, close the store).
import { configFromEnv } from './config.ts';
import { startServer } from './embedded.ts';

async function main(): Promise<void> {
  const config = configFromEnv();
  const running = await startServer({ config });
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
