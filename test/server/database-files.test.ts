// The SQLite database and its -wal and -shm files are readable by the server's user only (0600),
// like the master key beside them (README, DATA_DIR; issue 31 item 11), and the data directory
// the server creates for them is its user's only (0700).
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { configFromEnv } from '../../server/config.ts';
import { openDatabase } from '../../server/store/database.ts';
import { sql } from 'kysely';

const modeOf = (file: string) => statSync(file).mode & 0o777;

describe('the database files', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const freshDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'db-mode-'));
    dirs.push(dir);
    return dir;
  };

  it('creates service.sqlite, -wal and -shm as 0600, whatever the umask allows', async () => {
    const dataDir = freshDir();
    const previous = process.umask(0o022);
    try {
      const opened = await openDatabase({ dataDir });
      // A write, so the write-ahead log and its index exist while the database is open.
      await sql`CREATE TABLE mode_probe (x INTEGER)`.execute(opened.db);
      const base = join(dataDir, 'service.sqlite');
      for (const file of [base, `${base}-wal`, `${base}-shm`]) expect(modeOf(file).toString(8), file).toBe('600');
      await opened.close();
    } finally {
      process.umask(previous);
    }
  });

  it('creates the data directory 0700, whether the store or the master key makes it first', async () => {
    const previous = process.umask(0o022);
    try {
      const forStore = join(freshDir(), 'data', 'nested');
      const opened = await openDatabase({ dataDir: forStore });
      await opened.close();
      expect(modeOf(forStore).toString(8)).toBe('700');
      const forKey = join(freshDir(), 'data');
      const config = configFromEnv({ DATA_DIR: forKey });
      expect(config.masterKey.length).toBe(32);
      expect(modeOf(forKey).toString(8)).toBe('700');
      expect(modeOf(join(forKey, 'master.key')).toString(8)).toBe('600');
    } finally {
      process.umask(previous);
    }
  });

  it('leaves a data directory the operator made as it is', async () => {
    const dataDir = freshDir();
    chmodSync(dataDir, 0o750);
    const opened = await openDatabase({ dataDir });
    await opened.close();
    expect(modeOf(dataDir).toString(8)).toBe('750');
  });

  it('tightens the files an older version left readable by others', async () => {
    const dataDir = freshDir();
    const base = join(dataDir, 'service.sqlite');
    const first = await openDatabase({ dataDir });
    await first.close();
    chmodSync(base, 0o644);
    writeFileSync(`${base}-wal`, '');
    chmodSync(`${base}-wal`, 0o644);
    const again = await openDatabase({ dataDir });
    expect(modeOf(base).toString(8)).toBe('600');
    expect(modeOf(`${base}-wal`).toString(8)).toBe('600');
    await again.close();
  });
});
