// `npm start` stopped the way a container runtime stops it (Docker, Kubernetes, systemd with
// `npm start` as the command): SIGTERM to the npm process's pid, not to node. npm forwards the
// signal to its child, so that child must be node itself (package.json: `exec node …`, the shell
// replaced by node); with a shell in between, the shell died of the signal and node was left
// behind, still listening and ready, never draining. Here the whole tree must drain and be gone:
// the drain's log lines in order, /readyz 503 during the grace period, npm's exit code 0 (the
// drain's, README "The drain"), the port free again and no process of the tree left. And stopped
// as a terminal's Ctrl-C stops it: SIGINT to the whole process group, so node gets it from the
// terminal and again through npm; that is one stop, and it must drain too, not exit at once.
// And on PostgreSQL (when DATABASE_URL is set): the same drain, then no connection of the server's
// left in PostgreSQL's own view (a backend left behind counts against max_connections).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { freshDatabase, postgresUrlOrSkip, type FreshDatabase } from '../../scripts/bench/lib/postgres.ts';
import { alive, commandOf, descendants, portFree } from '../support/processes.ts';
import { ROOT, measureStartup } from '../support/startup.ts';

const startup = await measureStartup();
/** Long enough for a probe to see /readyz 503 before the listener closes, on this machine now. */
const GRACE_MS = Math.max(1000, 2 * startup.ms);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const postgres = postgresUrlOrSkip('npm start on PostgreSQL, stopped by SIGTERM');

const STOPS = [
  { how: 'as a container runtime stops it (SIGTERM to npm)', signal: 'SIGTERM', group: false, onPostgres: false },
  {
    how: "as a terminal's Ctrl-C stops it (SIGINT to the process group)",
    signal: 'SIGINT',
    group: true,
    onPostgres: false,
  },
  ...(postgres
    ? [{ how: 'on PostgreSQL, as a container runtime stops it', signal: 'SIGTERM', group: false, onPostgres: true }]
    : []),
] as const;

/** The connections PostgreSQL has open to `database` (its own view, pg_stat_activity). */
async function connectionsTo(serverUrl: string, database: string): Promise<number> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      'select count(*)::int as n from pg_stat_activity where datname = $1',
      [database],
    );
    return rows[0]?.n ?? 0;
  } finally {
    await client.end();
  }
}

describe.each(STOPS)('npm start, stopped $how', ({ signal, group, onPostgres }) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'npm-start-'));
  let npm: ChildProcess | undefined;
  let tree: number[] = [];
  let database: FreshDatabase | undefined;
  afterAll(async () => {
    for (const pid of [...tree, ...(npm?.pid ? [npm.pid] : [])])
      if (alive(pid)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone meanwhile
        }
      }
    rmSync(dataDir, { recursive: true, force: true });
    await database?.drop();
  });

  it(
    'drains, exits 0 and leaves neither the port nor a node process behind',
    async () => {
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        DATA_DIR: dataDir,
        PORT: '0',
        HOST: '127.0.0.1',
        SANDBOX_INVENTORY_SIZE: '200',
        DRAIN_GRACE_MS: String(GRACE_MS),
        LOG_LEVEL: 'info',
        LOG_FORMAT: 'json',
      };
      delete env.DATABASE_URL;
      if (onPostgres && postgres) {
        database = await freshDatabase(postgres, 'npm_start');
        env.DATABASE_URL = database.url;
      }
      delete env.METRICS_PORT;
      delete env.ADMIN_TOKEN;
      const spawnedAt = performance.now();
      // As a container's CMD ["npm", "start"] runs it: npm from the PATH, no shell of ours.
      // `detached` gives npm a process group of its own, as a terminal's job has.
      const child = spawn('npm', ['start'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: group });
      npm = child;
      const lines: string[] = [];
      const records: Array<{ event?: string; url?: string }> = [];
      let buffered = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        const split = buffered.split('\n');
        buffered = split.pop() ?? '';
        for (const line of split) {
          lines.push(line);
          if (line.startsWith('{')) records.push(JSON.parse(line) as { event?: string; url?: string });
        }
      });
      child.stderr?.on('data', (chunk: Buffer) => lines.push(chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
      const output = () => lines.join('\n');
      const waitFor = async (
        what: string,
        done: () => boolean | Promise<boolean>,
        withinMs: number,
        afterExit = false,
      ) => {
        const until = performance.now() + withinMs;
        while (!(await done())) {
          if (!afterExit && child.exitCode !== null)
            throw new Error(`npm exited (${child.exitCode}) before ${what}:\n${output()}`);
          if (performance.now() > until) throw new Error(`no ${what} within ${withinMs} ms:\n${output()}`);
          await sleep(Math.min(200, startup.ms / 4));
        }
      };

      // Ready: listening (its start-up measured), then /readyz 200 once the search index is built.
      await waitFor('listening line', () => records.some((r) => r.event === 'listening'), startup.timeout(30, 60_000));
      const startedMs = performance.now() - spawnedAt;
      const url = records.find((r) => r.event === 'listening')?.url as string;
      const port = Number(new URL(url).port);
      const readyz = () =>
        fetch(`${url}/readyz`).then(
          (r) => r.status,
          () => 0,
        );
      await waitFor('/readyz 200', async () => (await readyz()) === 200, 10 * startedMs);

      tree = descendants(child.pid as number);
      const server = tree.filter((pid) => /^\S*node --import tsx server\/main\.ts/.test(commandOf(pid)));
      expect(server, `the process tree under npm:\n${tree.map(commandOf).join('\n')}`).toHaveLength(1);
      expect(await portFree(port)).toBe(false);

      process.kill(group ? -(child.pid as number) : (child.pid as number), signal);
      // The balancer's view during the grace period: 503, the drain named.
      let answer = 200;
      await waitFor(`/readyz 503 after ${signal}`, async () => (answer = await readyz()) !== 200, GRACE_MS);
      expect(answer, output()).toBe(503);

      const code = await Promise.race([exited, sleep(GRACE_MS + 10 * startedMs).then(() => 'still running')]);
      expect(code, output()).toBe(0);
      const drain = records.map((r) => r.event).filter((e) => e === 'signal' || e?.startsWith('drain'));
      expect(drain).toEqual(['signal', 'drain_started', 'drain_requests_done', 'drain_deliveries_done', 'drain_done']);
      // The group's signal reaches node twice (the terminal's and npm's relay), the case this is
      // about, unless the kernel merged the two because the first was still pending (a busy
      // machine): a standard signal is not queued twice. Never more than that one repeat.
      if (group) expect(records.filter((r) => r.event === 'signal_repeated').length, output()).toBeLessThanOrEqual(1);
      await waitFor('the port freed', () => portFree(port), 10 * startedMs, true);
      await waitFor('every process of the tree gone', () => !tree.some(alive), 10 * startedMs, true);
      if (database && postgres) {
        const name = new URL(database.url).pathname.slice(1);
        // PostgreSQL's own view: nothing of the stopped server still holds a backend (drain_done
        // above says the store was closed; a backend whose client vanished goes a moment later).
        await waitFor('no connection left', async () => (await connectionsTo(postgres, name)) === 0, startedMs, true);
      }
    },
    startup.timeout(120, 120_000),
  );
});
