// The operability settings read from the environment: LOG_LEVEL, LOG_FORMAT (server/ops/logger.ts)
// and METRICS_PORT, METRICS_HOST, DRAIN_GRACE_MS (server/config.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { configFromEnv } from '../../server/config.ts';
import { createLogger, loggerFromEnv, logLevelOf } from '../../server/ops/logger.ts';

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
