// The operability settings read from the environment: LOG_LEVEL, LOG_FORMAT (server/ops/logger.ts)
// and METRICS_PORT, METRICS_HOST, DRAIN_GRACE_MS (server/config.ts).
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { configFromEnv } from '../../server/config.ts';
import { colourWanted, createLogger, loggerFromEnv, logLevelOf } from '../../server/ops/logger.ts';
import { ROOT, measureStartup } from '../support/startup.ts';

const startup = await measureStartup();

describe('log settings', () => {
  it('takes LOG_LEVEL, info by default outside tests and silent under vitest', () => {
    expect(loggerFromEnv({ LOG_LEVEL: 'debug', LOG_FORMAT: 'json' }).level).toBe('debug');
    expect(loggerFromEnv({ LOG_FORMAT: 'json' }).level).toBe('info');
    expect(loggerFromEnv({ VITEST: 'true', LOG_FORMAT: 'json' }).level).toBe('silent');
    expect(loggerFromEnv({ VITEST: 'true', LOG_LEVEL: 'WARN', LOG_FORMAT: 'json' }).level).toBe('warn');
  });

  it('refuses a LOG_LEVEL or LOG_FORMAT it does not know, naming the allowed values', () => {
    expect(() => logLevelOf('verbose', 'info')).toThrow(
      /LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent/,
    );
    expect(() => loggerFromEnv({ LOG_FORMAT: 'xml' })).toThrow(/LOG_FORMAT must be json or pretty/);
  });

  it('colours only a terminal, unless FORCE_COLOR or NO_COLOR says otherwise', () => {
    const tty = { isTTY: true };
    const file = { isTTY: false };
    expect(colourWanted({}, tty)).toBe(true);
    expect(colourWanted({}, file)).toBe(false);
    expect(colourWanted({ NO_COLOR: '1' }, tty)).toBe(false);
    expect(colourWanted({ NO_COLOR: '' }, tty)).toBe(true);
    expect(colourWanted({ FORCE_COLOR: '1' }, file)).toBe(true);
    expect(colourWanted({ FORCE_COLOR: '' }, file)).toBe(true);
    expect(colourWanted({ FORCE_COLOR: '0' }, tty)).toBe(false);
    expect(colourWanted({ FORCE_COLOR: 'false' }, tty)).toBe(false);
    // Node's order: FORCE_COLOR before NO_COLOR.
    expect(colourWanted({ FORCE_COLOR: '1', NO_COLOR: '1' }, file)).toBe(true);
  });

  it.each([
    ['no escape codes', {}, false],
    ['colours with FORCE_COLOR=1', { FORCE_COLOR: '1' }, true],
  ])(
    'LOG_FORMAT=pretty with stdout in a file (a real process) writes %s',
    async (_name, extra, coloured) => {
      const dir = mkdtempSync(join(tmpdir(), 'pretty-log-'));
      const path = join(dir, 'server.log');
      const fd = openSync(path, 'w');
      try {
        const env: NodeJS.ProcessEnv = { ...process.env, LOG_FORMAT: 'pretty', LOG_LEVEL: 'info', ...extra };
        if (!('FORCE_COLOR' in extra)) delete env.FORCE_COLOR;
        delete env.NO_COLOR;
        const code = await new Promise<number | null>((resolve, reject) => {
          const child = spawn(
            process.execPath,
            [
              '--import',
              'tsx',
              '--input-type=module',
              '-e',
              "import { flushLogger, loggerFromEnv } from './server/ops/logger.ts'; const log = loggerFromEnv(); log.info({ event: 'listening' }, 'hello file'); flushLogger(log);",
            ],
            { cwd: ROOT, env, stdio: ['ignore', fd, 'inherit'] },
          );
          child.once('error', reject);
          child.once('close', resolve);
        });
        expect(code).toBe(0);
        const text = readFileSync(path, 'utf8');
        expect(text).toMatch(/INFO.*hello file/);
        // ESC [ … m: an ANSI colour sequence.
        expect(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`).test(text), JSON.stringify(text)).toBe(coloured);
      } finally {
        closeSync(fd);
        rmSync(dir, { recursive: true, force: true });
      }
    },
    startup.timeout(10),
  );

  it('censors secret-named fields passed to the logger by mistake', () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'info', destination: { write: (s: string) => void lines.push(s) } });
    logger.info(
      {
        authorization: 'Bearer abc123secret',
        password: 'hunter2secret',
        headers: { cookie: 'sid=s3cret' },
        token: 'tok_secret',
      },
      'oops',
    );
    expect(lines.join('')).not.toMatch(/abc123secret|hunter2secret|s3cret|tok_secret/);
    expect(JSON.parse(lines[0] as string)).toMatchObject({
      authorization: '[redacted]',
      password: '[redacted]',
      headers: '[redacted]',
      token: '[redacted]',
      msg: 'oops',
    });
  });
});

describe('metrics and drain settings', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'ops-settings-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('has no metrics listener unless METRICS_PORT is set; loopback by default; a 5 s grace', () => {
    const plain = configFromEnv({ DATA_DIR: dataDir });
    expect(plain.metricsPort).toBeUndefined();
    expect(plain.metricsHost).toBe('127.0.0.1');
    expect(plain.drainGraceMs).toBe(5000);
    const set = configFromEnv({
      DATA_DIR: dataDir,
      METRICS_PORT: '9464',
      METRICS_HOST: '0.0.0.0',
      DRAIN_GRACE_MS: '250',
    });
    expect(set).toMatchObject({ metricsPort: 9464, metricsHost: '0.0.0.0', drainGraceMs: 250 });
    expect(() => configFromEnv({ DATA_DIR: dataDir, DRAIN_GRACE_MS: '-1' })).toThrow(/DRAIN_GRACE_MS/);
    expect(() => configFromEnv({ DATA_DIR: dataDir, METRICS_PORT: 'x' })).toThrow(/METRICS_PORT/);
  });
});
