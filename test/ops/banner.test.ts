// The start-up banner (server/ops/banner.ts), on real processes: the installed sandbox's stdout
// is a pipe (as under `npx … | tee`), where the logger buffers its lines for up to a second, and
// the banner must still come after the log lines written before it; `npm start`'s entry on a
// terminal (a pseudo-terminal from util-linux `script`) prints the same banner.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, measureStartup } from '../support/startup.ts';

const startup = await measureStartup();
const hasScript = spawnSync('script', ['--version']).status === 0;
if (!hasScript) console.warn('\n*** util-linux `script` is missing: the banner-on-a-terminal test is SKIPPED ***\n');

interface Run {
  output(): string;
  waitFor(pattern: RegExp, withinMs: number): Promise<void>;
  stop(): Promise<number | null>;
}

/** Spawns `command` in a process group of its own; stop() sends SIGTERM to the group and waits. */
function run(command: string, args: string[], env: NodeJS.ProcessEnv): Run {
  const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const closed = new Promise<number | null>((resolve) => child.once('close', resolve));
  return {
    output: () => out,
    async waitFor(pattern, withinMs) {
      const until = performance.now() + withinMs;
      while (!pattern.test(out)) {
        if (child.exitCode !== null) throw new Error(`exited (${child.exitCode}) before ${pattern}:\n${out}`);
        if (performance.now() > until) throw new Error(`no ${pattern} within ${withinMs} ms:\n${out}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async stop() {
      if (child.exitCode === null) process.kill(-(child.pid as number), 'SIGTERM');
      const timer = setTimeout(
        () => {
          if (child.exitCode === null) process.kill(-(child.pid as number), 'SIGKILL');
        },
        startup.timeout(10, 10_000),
      );
      const code = await closed;
      clearTimeout(timer);
      return code;
    },
  };
}

function serverEnv(dataDir: string, extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    SANDBOX_INVENTORY_SIZE: '200',
    DRAIN_GRACE_MS: '0',
    LOG_LEVEL: 'info',
    ...extra,
  };
  for (const name of ['DATABASE_URL', 'METRICS_PORT', 'ADMIN_TOKEN', 'FORCE_COLOR', 'PORT'])
    if (!(name in extra)) delete env[name];
  return env;
}

describe('the start-up banner', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'banner-'));
    dirs.push(dir);
    return dir;
  };
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it(
    'domain-sales-sandbox on a pipe: the banner after the log lines written before it, in order',
    async () => {
      const dataDir = tempDir();
      const sandbox = run(
        process.execPath,
        ['--import', 'tsx', 'server/sandbox.ts', '--data-dir', dataDir, '--port', '0'],
        serverEnv(dataDir, { LOG_FORMAT: 'json' }),
      );
      try {
        await sandbox.waitFor(
          /mint a sandbox partner credential:\n.*\n.*\n.*"webhook"\]\}'\n/,
          startup.timeout(40, 60_000),
        );
      } finally {
        expect(await sandbox.stop()).toBe(0);
      }
      const lines = sandbox.output().split('\n');
      const at = (test: (line: string) => boolean, what: string) => {
        const i = lines.findIndex(test);
        expect(i, `${what} in:\n${sandbox.output()}`).toBeGreaterThanOrEqual(0);
        return i;
      };
      const event = (name: string) => (line: string) => line.startsWith('{') && line.includes(`"event":"${name}"`);
      const data = at((l) => l === `data: ${dataDir} (embedded SQLite)`, 'the data line');
      const opened = at(event('store_opened'), 'store_opened');
      const listening = at(event('listening'), 'the listening log line');
      const banner = at((l) => l.startsWith('Domain Sales sandbox listening on http://127.0.0.1:'), 'the banner');
      const stopping = at((l) => l === 'SIGTERM: draining (Ctrl-C again to stop at once)', 'SIGTERM: draining');
      const drained = at(event('drain_done'), 'drain_done');
      expect([data, opened, listening, banner, stopping, drained]).toEqual(
        [data, opened, listening, banner, stopping, drained].sort((a, b) => a - b),
      );
      expect(lines[banner + 2]).toMatch(/^ {2}operator token: {2}\S+ {2}\(generated now and shown once; kept in /);
    },
    startup.timeout(80, 120_000),
  );

  it.skipIf(!hasScript)(
    'npm start on a terminal: the same banner, with the data directory and the mint call',
    async () => {
      const dataDir = tempDir();
      const token = 'banner-test-token';
      // `script` gives the server a pseudo-terminal as stdout and stderr, as a person's shell does.
      const server = run(
        'script',
        ['-qefc', `${process.execPath} --import tsx server/main.ts`, '/dev/null'],
        serverEnv(dataDir, { ADMIN_TOKEN: token, PORT: '0', NO_COLOR: '1' }),
      );
      try {
        await server.waitFor(
          /mint a sandbox partner credential:\r?\n.*\r?\n.*\r?\n.*"webhook"\]\}'/,
          startup.timeout(40, 60_000),
        );
      } finally {
        await server.stop();
      }
      const text = server.output().replaceAll('\r', '');
      const banner = text.indexOf('Domain Sales reference server listening on http://127.0.0.1:');
      expect(banner, text).toBeGreaterThanOrEqual(0);
      // The pretty log line of `listening` comes first, then the banner.
      expect(text.indexOf('INFO: Domain Sales reference server listening on')).toBeLessThan(banner);
      const after = text.slice(banner);
      expect(after).toContain(`  data: ${dataDir} (embedded SQLite)`);
      expect(after).toContain('  operator token:  from ADMIN_TOKEN');
      expect(after).toMatch(/curl -s -X POST http:\/\/127\.0\.0\.1:\d+\/api\/admin\/v1\/credentials/);
      expect(after).toContain("-H 'authorization: Bearer $ADMIN_TOKEN'");
    },
    startup.timeout(80, 120_000),
  );
});
