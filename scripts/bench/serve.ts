// A reference server in a process of its own, for the benchmarks and the drills: configuration
// from the environment (server/config.ts), then one `READY <url>` line on stdout once it listens,
// so the parent never guesses when it is up. SIGTERM stops it gracefully; the drills use SIGKILL.
import { configFromEnv } from '../../server/config.ts';
import { startServer } from '../../server/embedded.ts';

const quiet = process.env.SERVE_QUIET === '1';
const running = await startServer({ config: configFromEnv(), log: quiet ? () => {} : (line) => console.error(line) });
process.stdout.write(`READY ${running.url}\n`);
const stop = async () => {
  await running.stop();
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
