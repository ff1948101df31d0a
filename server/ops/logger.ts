// The server's logger: pino, one JSON object per line on stdout (what log shippers read), or
// pino-pretty's lines when stdout is a terminal (`npm start` by hand) or LOG_FORMAT=pretty,
// coloured on a terminal only (colourWanted: NO_COLOR, FORCE_COLOR). The level comes
// from LOG_LEVEL (trace, debug, info, warn, error, fatal, silent; default info, or silent under
// vitest so test runs do not spam). Nothing logged carries a secret: request lines are built
// field by field (access-log.ts) and never include headers, query strings or bodies; the redact
// list below is a second net for anything passed in by mistake.
import { pino, type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';

export type { Logger };

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * Fields that must never reach a log line, as top-level keys of a logged object. Top-level only:
 * wildcard paths (`*.token`) made every line cost about twice as much (18 µs against 9 µs on the
 * shared 2-core machine, pino 10), and nothing logs nested request data anyway.
 */
const REDACT = ['authorization', 'cookie', 'password', 'secret', 'token', 'signature', 'headers'];

export interface LoggerOptions {
  level?: LogLevel;
  /** Human-readable lines instead of JSON. */
  pretty?: boolean;
  /** ANSI colours in the pretty lines (default true; loggerFromEnv: colourWanted). */
  colour?: boolean;
  /** Where the lines go (default stdout, buffered: bufferedDestination); tests capture them here. */
  destination?: DestinationStream;
}

/** How long a buffered line may wait before it is written, at the latest. */
const FLUSH_EVERY_MS = 1000;
/** Characters gathered before they are written: one write(2) per dozen request lines instead of one each. */
const BATCH_CHARS = 4096;

export type BufferedDestination = DestinationStream & { flushSync(): void; flush(cb?: (err?: Error) => void): void };

/**
 * Lines to a file descriptor (or file), gathered and written when 4 KiB wait and at least every
 * second. The writing is sonic-boom's (pino.destination: partial writes, EAGAIN on a full pipe,
 * EPIPE), synchronous, on the event loop: handing each write to libuv's thread pool (its
 * asynchronous mode) cost more than the write itself, 8.4 to 10.8 µs a line against 3.5 to 6.2 µs
 * (200,000 request lines into a file, three runs each). The gathering is ours: sonic-boom's own
 * (minLength) measures the whole waiting text's UTF-8 length again at every line, up to 4 KiB
 * each time, which the ops leg's profile showed as 1.2 µs a request line (bench/README.md); here
 * the lines wait in an array and are joined once. `flushSync()` before the process exits
 * (main.ts) so the last lines are not lost.
 */
export function bufferedDestination(dest: number | string = 1): BufferedDestination {
  const boom = pino.destination({ dest, sync: true });
  let waiting: string[] = [];
  let chars = 0;
  const drain = () => {
    if (chars === 0) return;
    const text = waiting.length === 1 ? (waiting[0] as string) : waiting.join('');
    waiting = [];
    chars = 0;
    boom.write(text);
  };
  const timer = setInterval(drain, FLUSH_EVERY_MS);
  timer.unref();
  boom.on('close', () => clearInterval(timer));
  return {
    write(line: string) {
      waiting.push(line);
      chars += line.length;
      if (chars >= BATCH_CHARS) drain();
    },
    flushSync() {
      drain();
      boom.flushSync();
    },
    flush(cb) {
      drain();
      boom.flush(cb);
    },
  };
}

/**
 * pino's `"time"` field as an ISO 8601 UTC instant with milliseconds, the same text as
 * `new Date(ms).toISOString()`. The part up to the second is formatted once a second, the
 * milliseconds appended: formatting a Date for every line showed in the ops leg's profile.
 */
export function isoTimestamp(now: () => number = Date.now): () => string {
  let second = Number.NaN;
  let prefix = '';
  return () => {
    const ms = Math.floor(now());
    const s = Math.floor(ms / 1000);
    if (s !== second) {
      second = s;
      // "2026-11-26T05:27:48." from "2026-11-26T05:27:48.000Z" (and "+010000-…" past the year 9999).
      prefix = `,"time":"${new Date(s * 1000).toISOString().slice(0, -4)}`;
    }
    const frac = ms - s * 1000;
    return `${prefix}${frac < 10 ? '00' : frac < 100 ? '0' : ''}${frac}Z"`;
  };
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const level = options.level ?? 'info';
  const base = {
    level,
    base: { service: 'domain-sales' },
    redact: { paths: REDACT, censor: '[redacted]' },
    timestamp: isoTimestamp(),
  };
  if (options.destination) return pino(base, options.destination);
  // pino-pretty in the main thread (sync): a worker-thread transport would outlive a test and
  // lose the last lines of a process that exits at once.
  if (options.pretty)
    return pino(
      base,
      pretty({
        colorize: options.colour ?? true,
        sync: true,
        singleLine: true,
        translateTime: 'SYS:HH:MM:ss.l',
        ignore: 'pid,hostname,service',
      }),
    );
  return pino(base, bufferedDestination(1));
}

/** Writes what a logger has buffered, synchronously (before process.exit). */
export function flushLogger(logger: Logger): void {
  try {
    (logger as Logger & { [pino.symbols.streamSym]?: { flushSync?: () => void } })[
      pino.symbols.streamSym
    ]?.flushSync?.();
  } catch {
    // Nothing buffered, or the stream is not open: nothing to lose.
  }
}

export function logLevelOf(value: string | undefined, fallback: LogLevel): LogLevel {
  if (value === undefined || value === '') return fallback;
  const v = value.toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(v))
    throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${value}"`);
  return v as LogLevel;
}

/**
 * Whether text for `stream` may carry ANSI colours, by the conventions Node's own terminal code
 * follows (tty.WriteStream#getColorDepth): FORCE_COLOR set to anything but `0`/`false` forces them
 * (even into a file or a pipe), else NO_COLOR set to anything non-empty (no-color.org) turns them
 * off, else only a terminal gets them: a file or a pipe must not fill up with escape codes.
 */
export function colourWanted(env: NodeJS.ProcessEnv, stream: { isTTY?: boolean }): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== '') return force !== '0' && force.toLowerCase() !== 'false';
  if (force === '') return true;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return stream.isTTY === true;
}

/**
 * LOG_LEVEL (default info; silent under vitest), LOG_FORMAT=json|pretty (default: pretty on a
 * terminal); pretty lines are coloured only where colourWanted says so.
 */
export function loggerFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  stdout: { isTTY?: boolean } = process.stdout,
): Logger {
  const level = logLevelOf(env.LOG_LEVEL, env.VITEST ? 'silent' : 'info');
  const format = env.LOG_FORMAT?.toLowerCase();
  if (format !== undefined && format !== '' && format !== 'json' && format !== 'pretty')
    throw new Error(`LOG_FORMAT must be json or pretty, got "${env.LOG_FORMAT}"`);
  return createLogger({
    level,
    pretty: format === 'pretty' || (format !== 'json' && stdout.isTTY === true),
    colour: colourWanted(env, stdout),
  });
}

/** A logger whose JSON lines go to `line` (the `log` option callers of startServer pass); LOG_LEVEL, silent under vitest. */
export function loggerToLines(
  line: (text: string) => void,
  level: LogLevel = logLevelOf(process.env.LOG_LEVEL, process.env.VITEST ? 'silent' : 'info'),
): Logger {
  return createLogger({ level, destination: { write: (text: string) => line(text.trimEnd()) } });
}

export const silentLogger: Logger = createLogger({ level: 'silent' });
