// The inventory CLI end to end: a real process on a temporary DATA_DIR (always SQLite, so it can
// never write into a shared PostgreSQL database). The script `npm run inventory` runs, started as
// one `node --import tsx` process (not `npx tsx`: three processes each, ten of them side by side
// for the usage errors, outran a 30 s timeout on a loaded 2-core machine). Timeouts are scaled
// from a start-up measured now (test/support/startup.ts).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../server/store/database.ts';
import { inventoryRepository } from '../../../server/store/inventory.ts';
import type { Environment } from '../../../server/store/schema.ts';
import { measureStartup } from '../../support/startup.ts';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const startup = await measureStartup();
/** One run opens the database and may write thousands of rows: a generous multiple of a bare start-up. */
const ONE_RUN = startup.timeout(20);

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

let dataDir: string;

function cli(...args: string[]): Promise<Run> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir };
  delete env.DATABASE_URL;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/inventory.ts', ...args], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function inspect<T>(work: (repo: ReturnType<typeof inventoryRepository>) => Promise<T>): Promise<T> {
  const opened = await openDatabase({ dataDir });
  try {
    return await work(inventoryRepository(opened.db));
  } finally {
    await opened.close();
  }
}

const count = (environment: Environment) => inspect((repo) => repo.count(environment));

const file = (name: string, text: string) => {
  const path = join(dataDir, name);
  writeFileSync(path, text);
  return path;
};

describe('npm run inventory', () => {
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'inventory-cli-'));
  });
  afterAll(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it(
    'generates the sandbox inventory',
    async () => {
      const run = await cli('generate', '--size', '500', '--seed', '3');
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/Generated 500 sandbox domain/);
      expect(await count('sandbox')).toBe(500);
    },
    ONE_RUN,
  );

  it(
    'imports a live CSV file and prints how many rows it imported',
    async () => {
      const path = file(
        'live.csv',
        'price_cents,domain,floor_cents\n250000,bestcoffeebeans.com,200000\n5000,zzqxv.io,2500\n900,shop.co.uk,450\n',
      );
      const run = await cli('import', '--environment', 'live', path);
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/Imported 3 domain\(s\) into the live inventory/);
      expect(await count('live')).toBe(3);
      expect(await count('sandbox')).toBe(500);
      expect(await inspect((repo) => repo.find('live', 'shop.co.uk'))).toMatchObject({
        label: 'shop',
        tld: 'co.uk',
        price_cents: 900,
      });
    },
    ONE_RUN,
  );

  it(
    'refuses a bad file with every problem and its line, exit 1, writing nothing',
    async () => {
      const path = file(
        'bad.json',
        '[\n{"domain": "ok.com", "price_cents": 10, "floor_cents": 5},\n{"domain": "Bad.com", "price_cents": 10, "floor_cents": 5},\n{"domain": "x.com", "price_cents": 1, "floor_cents": 5}\n]\n',
      );
      const run = await cli('import', '--environment', 'live', path);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`${path}:3: domain "Bad.com" must be lowercase`);
      expect(run.stderr).toContain(`${path}:4: floor_cents 5 is above price_cents 1`);
      expect(run.stderr).toMatch(/Nothing was imported/);
      expect(await count('live')).toBe(3);
    },
    ONE_RUN,
  );

  it(
    'replaces the generated sandbox inventory with an imported one (JSON)',
    async () => {
      const path = file(
        'sandbox.json',
        JSON.stringify([{ domain: 'brewhouse.io', price_cents: 72_000, floor_cents: 54_000 }]),
      );
      const run = await cli('import', '--environment', 'sandbox', path);
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/Imported 1 domain\(s\) into the sandbox inventory .*\(json\)/);
      expect(await count('sandbox')).toBe(1);
      expect(await count('live')).toBe(3);
    },
    ONE_RUN,
  );

  it(
    'exits 1 when the file cannot be read',
    async () => {
      const run = await cli('import', '--environment', 'live', join(dataDir, 'missing.csv'));
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/Cannot read the file/);
    },
    ONE_RUN,
  );

  // Usage errors stop before the database is opened, so these can run side by side.
  it.concurrent.each([
    [['import', 'x.csv'], /--environment is required/],
    [['import', '--environment', 'staging', 'x.csv'], /must be live or sandbox/],
    [['import', '--environment', 'live'], /needs a FILE/],
    [['import', '--environment', 'live', 'a.csv', 'b.csv'], /one FILE/],
    [['import', '--environment', 'live', '--format', 'xml', 'a.csv'], /--format must be csv or json/],
    [['import', '--environment', 'live', '--bogus', 'a.csv'], /Unknown option/],
    [['generate', '--environment', 'live'], /only writes the sandbox/],
    [['generate', '--size', 'many'], /--size must be a non-negative integer/],
    [['export'], /unknown command "export"/],
    [[], /Usage:/],
  ])(
    'exits 2 on a usage error: %j',
    async (args, message) => {
      const run = await cli(...args);
      expect(run.code).toBe(2);
      expect(run.stderr + run.stdout).toMatch(message);
      // Up to vitest's maxConcurrency (5) of these at once, on however many cores: each may wait
      // for the others.
    },
    startup.timeout(40),
  );
});
