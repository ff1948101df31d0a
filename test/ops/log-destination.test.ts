// The production log destination (server/ops/logger.ts bufferedDestination): lines wait in a
// 4 KiB buffer, so a quiet server's line must still reach the file within the flush interval
// (1 s), a full buffer is written at once, and flushSync() writes the rest before an exit.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bufferedDestination, createLogger } from '../../server/ops/logger.ts';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

function logFile() {
  const dir = mkdtempSync(join(tmpdir(), 'log-dest-'));
  dirs.push(dir);
  const file = join(dir, 'server.log');
  const destination = bufferedDestination(file);
  const logger = createLogger({ level: 'info', destination });
  const lines = () => readFileSync(file, 'utf8').split('\n').filter(Boolean);
  return { destination, logger, lines };
}

describe('bufferedDestination', () => {
  it('holds a short line back, then writes it within the flush interval', async () => {
    const { logger, lines } = logFile();
    logger.info({ event: 'quiet' }, 'one line');
    expect(lines()).toEqual([]);
    await new Promise((r) => setTimeout(r, 1300));
    expect(lines().map((l) => (JSON.parse(l) as { event: string }).event)).toEqual(['quiet']);
  });

  it('writes as soon as 4 KiB are waiting, and the rest on flushSync', () => {
    const { destination, logger, lines } = logFile();
    for (let i = 0; i < 40; i++) logger.info({ i, pad: 'x'.repeat(100) }, 'request');
    const written = lines().length;
    expect(written).toBeGreaterThan(0);
    expect(written).toBeLessThan(40);
    destination.flushSync();
    expect(lines().map((l) => (JSON.parse(l) as { i: number }).i)).toEqual([...Array(40).keys()]);
  });
});
