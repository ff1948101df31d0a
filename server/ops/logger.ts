// The server's logger: pino, one JSON object per line on stdout (what log shippers read), or
// pino-pretty's coloured lines when stdout is a terminal (`npm start` by hand). The level comes
// from LOG_LEVEL (trace, debug, info, warn, error, fatal, silent; default info, or silent under
// vitest so test runs do not spam). Nothing logged carries a secret: request lines are built
// field by field (access-log.ts) and never include headers, query strings or bodies; the redact
// list below is a second net for anything passed in by mistake.
import { pino, type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';

export type { Logger };

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Fields that must never reach a log line, wherever they appear in a logged object. */
const REDACT = [
  'authorization',
  'cookie',
  'password',
  'secret',
  'token',
  'signature',
  '*.authorization',
  '*.cookie',
  '*.password',
  '*.secret',
  '*.token',
  '*.signature',
  'headers',
  '*.headers',
];

export interface LoggerOptions {
  level?: LogLevel;
  /** Coloured, human-readable lines instead of JSON. */
  pretty?: boolean;
  /** Where the lines go (default stdout); tests capture them here. */
  destination?: DestinationStream;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const level = options.level ?? 'info';
  const base = { level, base: { service: 'domain-sales' }, redact: { paths: REDACT, censor: '[redacted]' }, timestamp: pino.stdTimeFunctions.isoTime };
  if (options.destination) return pino(base, options.destination);
  // pino-pretty in the main thread (sync): a worker-thread transport would outlive a test and
  // lose the last lines of a process that exits at once.
  if (options.pretty) return pino(base, pretty({ colorize: true, sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,service' }));
  return pino(base);
}

export function logLevelOf(value: string | undefined, fallback: LogLevel): LogLevel {
  if (value === undefined || value === '') return fallback;
  const v = value.toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(v)) throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${value}"`);
  return v as LogLevel;
}

/** LOG_LEVEL (default info; silent under vitest), LOG_FORMAT=json|pretty (default: pretty on a terminal). */
export function loggerFromEnv(env: NodeJS.ProcessEnv = process.env, stdout: { isTTY?: boolean } = process.stdout): Logger {
  const level = logLevelOf(env.LOG_LEVEL, env.VITEST ? 'silent' : 'info');
  const format = env.LOG_FORMAT?.toLowerCase();
  if (format !== undefined && format !== '' && format !== 'json' && format !== 'pretty') throw new Error(`LOG_FORMAT must be json or pretty, got "${env.LOG_FORMAT}"`);
  return createLogger({ level, pretty: format === 'pretty' || (format !== 'json' && stdout.isTTY === true) });
}

/** A logger whose JSON lines go to `line` (the `log` option callers of startServer pass). */
export function loggerToLines(line: (text: string) => void, level: LogLevel = 'info'): Logger {
  return createLogger({ level, destination: { write: (text: string) => line(text.trimEnd()) } });
}

export const silentLogger: Logger = createLogger({ level: 'silent' });
