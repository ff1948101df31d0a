// A reference server in a process of its own, for the benchmarks and the drills: configuration
// from the environment (server/config.ts), then one `READY <url>` line on stdout once it listens,
// so the parent never guesses when it is up. SIGTERM stops it gracefully; the drills use SIGKILL.
// With STATEMENT_PROFILE=<file>, every statement the store runs is timed (statements.ts): SIGUSR2
// starts the profile afresh (after the warm-up), and it is written to the file on SIGTERM.
// BENCH_OPS (the ops leg, scripts/bench/ops.ts): `on` writes every request's log line at info to
// DATA_DIR/server.log, buffered as the server writes stdout in production, with metrics counted;
// `off` logs nothing and counts nothing; `logs` and `metrics` only one of the two, and `observer`
// neither but with the request observer mounted and its logger at fatal (to tell the costs
// apart). Unset: quiet (SERVE_QUIET=1) or stderr logs, metrics on.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { configFromEnv } from '../../server/config.ts';
import { startServer } from '../../server/embedded.ts';
import { watchLauncher } from '../../server/ops/launcher.ts';
import { bufferedDestination, createLogger, flushLogger, silentLogger } from '../../server/ops/logger.ts';
import { statementProfile } from '../../server/store/statements.ts';

const quiet = process.env.SERVE_QUIET === '1';
const profileFile = process.env.STATEMENT_PROFILE || undefined;
const profile = profileFile ? statementProfile() : undefined;
const config = configFromEnv();

/** What each BENCH_OPS mode logs (the request lines' level, or nothing) and whether it counts metrics. */
const OPS_MODES: Record<string, { log: 'info' | 'fatal' | null; metrics: boolean }> = {
  on: { log: 'info', metrics: true },
  logs: { log: 'info', metrics: false },
  metrics: { log: null, metrics: true },
  observer: { log: 'fatal', metrics: false },
  off: { log: null, metrics: false },
};
const opsMode = process.env.BENCH_OPS ? OPS_MODES[process.env.BENCH_OPS] : undefined;
if (process.env.BENCH_OPS && !opsMode)
  throw new Error(`BENCH_OPS must be one of ${Object.keys(OPS_MODES).join(', ')}, got "${process.env.BENCH_OPS}"`);

const running = await startServer({
  config,
  ...(opsMode
    ? {
        logger: opsMode.log
          ? createLogger({ level: opsMode.log, destination: bufferedDestination(join(config.dataDir, 'server.log')) })
          : silentLogger,
        ...(opsMode.metrics ? {} : { metrics: null }),
      }
    : {
        log: quiet ? () => {} : (line: string) => console.error(line),
        ...(quiet ? { logger: silentLogger } : {}),
      }),
  ...(profile ? { onStatement: profile.listener } : {}),
});
process.stdout.write(`READY ${running.url}\n`);
if (profile) process.on('SIGUSR2', () => profile.reset());
const stop = async () => {
  await running.stop();
  flushLogger(running.logger);
  if (profile && profileFile) writeFileSync(profileFile, `${JSON.stringify(profile.stats(), null, 2)}\n`);
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
// The bench or drill that started this process was killed (SIGKILL cannot be caught there): stop too.
watchLauncher(() => void stop(), 500);
