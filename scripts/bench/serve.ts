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
import { bufferedDestination, createLogger, flushLogger, silentLogger } from '../../server/ops/logger.ts';
import { statementProfile } from '../../server/store/statements.ts';

const quiet = process.env.SERVE_QUIET === '1';
const ops = process.env.BENCH_OPS;
const profileFile = process.env.STATEMENT_PROFILE || undefined;
const profile = profileFile ? statementProfile() : undefined;
const config = configFromEnv();
const running = await startServer({
  config,
  ...(ops === 'on' || ops === 'logs'
    ? {
        logger: createLogger({ level: 'info', destination: bufferedDestination(join(config.dataDir, 'server.log')) }),
        ...(ops === 'logs' ? { metrics: null } : {}),
      }
    : ops === 'observer'
      ? {
          logger: createLogger({
            level: 'fatal',
            destination: bufferedDestination(join(config.dataDir, 'server.log')),
          }),
          metrics: null,
        }
      : ops === 'off' || ops === 'metrics'
        ? { logger: silentLogger, ...(ops === 'off' ? { metrics: null } : {}) }
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
