// The installed sandbox bin, stopped the ways it is stopped in practice, drains as `npm start`
// does (server/ops/shutdown.ts): /readyz 503 for DRAIN_GRACE_MS, the drain's log lines in order,
// exit 0, the port free and no process left.
//   - Under `npx domain-sales-sandbox`, SIGTERM to npx's pid. npm exec runs a bin through `sh -c`,
//     which does not exec it: npx forwards the signal to the shell alone, the shell dies of it,
//     and the server used to be left behind with a new parent, listening and ready, never told.
//     Here npx is the real one, run in an empty project whose node_modules/.bin holds the bin (a
//     shim that execs this repository's server/sandbox.ts, as the installed bin's `#!/usr/bin/env
//     node` execs node); the packed tarball's bin gets the same check in
//     test/packages/outside.test.ts.
//   - SIGTERM to the bin's own pid (a container whose command is the bin), and a second signal
//     while draining, which stops at once (exit 1).
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { alive, commandOf, descendants, portFree } from '../support/processes.ts';
import { REPEAT_WINDOW_MS } from '../../server/ops/stop-signals.ts';
import { ROOT, measureStartup } from '../support/startup.ts';

const startup = await measureStartup();
/** Long enough for a probe to see /readyz 503 before the listener closes, on this machine now. */
// Longer than the window in which a repeated SIGINT is the same keypress, so a second press lands in the drain.
const GRACE_MS = Math.max(1000, 2 * startup.ms) + 2 * REPEAT_WINDOW_MS;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An empty project with the bin where an install puts it; npx finds it there. */
function projectWithBin(dir: string): string {
  const project = join(dir, 'project');
  mkdirSync(join(project, 'node_modules', '.bin'), { recursive: true });
  writeFileSync(join(project, 'package.json'), '{"name":"npx-probe","private":true}\n');
  const tsx = pathToFileURL(createRequire(join(ROOT, 'package.json')).resolve('tsx')).href;
  const bin = join(project, 'node_modules', '.bin', 'domain-sales-sandbox');
  writeFileSync(
    bin,
    `#!/bin/sh\nexec '${process.execPath}' --import '${tsx}' '${join(ROOT, 'server', 'sandbox.ts')}' "$@"\n`,
  );
  chmodSync(bin, 0o755);
  return project;
}

/** The environment of a person's shell: no trace of an outer npm run or of this repository's bins. */
function shellEnv(dataDir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env))
    if (!/^npm_|^NODE_PATH$|^INIT_CWD$|^ADMIN_TOKEN$|^DATABASE_URL$|^METRICS_PORT$|^PORT$/i.test(k)) env[k] = v;
  env.PATH = (process.env.PATH ?? '')
    .split(delimiter)
    .filter((d) => !d.startsWith(ROOT))
    .join(delimiter);
  return {
    ...env,
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    SANDBOX_INVENTORY_SIZE: '200',
    DRAIN_GRACE_MS: String(GRACE_MS),
    LOG_LEVEL: 'info',
    LOG_FORMAT: 'json',
  };
}

/** Every process this file started, with what ran under it, whatever happened to the test. */
const launched: number[] = [];
function killAll(): void {
  const pids = launched.flatMap((pid) => [pid, ...descendants(pid)]);
  for (const pid of pids)
    if (alive(pid)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
}

interface Started {
  child: ChildProcess;
  url: string;
  port: number;
  startedMs: number;
  events(): string[];
  output(): string;
  exited: Promise<number | null>;
  waitFor(what: string, done: () => boolean | Promise<boolean>, withinMs: number): Promise<void>;
}

/** Spawns `command` and waits for the sandbox's banner (the end of its start-up output). */
async function start(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Started> {
  const spawnedAt = performance.now();
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  if (child.pid) launched.push(child.pid);
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
  // 'close': every holder of the pipes is gone, the server included (it inherited them).
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const output = () => lines.join('\n');
  const waitFor = async (what: string, done: () => boolean | Promise<boolean>, withinMs: number) => {
    const until = performance.now() + withinMs;
    while (!(await done())) {
      if (performance.now() > until) throw new Error(`no ${what} within ${withinMs} ms:\n${output()}`);
      await sleep(Math.min(200, startup.ms / 4));
    }
  };
  await waitFor(
    'banner',
    () => lines.some((l) => l.includes('"webhook"]}\'')) || child.exitCode !== null,
    startup.timeout(40, 60_000),
  );
  const url = records.find((r) => r.event === 'listening')?.url;
  if (!url) throw new Error(`no address in:\n${output()}`);
  return {
    child,
    url,
    port: Number(new URL(url).port),
    startedMs: performance.now() - spawnedAt,
    events: () => records.map((r) => r.event ?? ''),
    output,
    exited,
    waitFor,
  };
}

const readyz = (url: string) =>
  fetch(`${url}/readyz`).then(
    (r) => r.status,
    () => 0,
  );

describe('the sandbox bin, stopped', () => {
  const work = mkdtempSync(join(tmpdir(), 'sandbox-npx-'));
  const project = projectWithBin(work);
  const orphans: number[] = [];
  afterAll(() => {
    killAll();
    // A server left behind by a failed run was re-parented away from its launcher.
    for (const pid of orphans.filter(alive)) process.kill(pid, 'SIGKILL');
    rmSync(work, { recursive: true, force: true });
  });

  it(
    'under npx, by SIGTERM to npx: drains, exits and leaves neither the port nor a process behind',
    async () => {
      const env = shellEnv(join(work, 'data-npx'));
      const s = await start('npx', ['--no-install', 'domain-sales-sandbox', '--port', '0'], project, env);
      const npx = s.child.pid as number;
      const tree = descendants(npx);
      orphans.push(...tree);
      const server = tree.filter((pid) => commandOf(pid).includes('server/sandbox.ts'));
      expect(server, `the process tree under npx:\n${tree.map(commandOf).join('\n')}`).toHaveLength(1);
      await s.waitFor('/readyz 200', async () => (await readyz(s.url)) === 200, 10 * s.startedMs);

      process.kill(npx, 'SIGTERM');
      // The server never gets the signal; it must notice on its own, and drain.
      let answer = 200;
      await s.waitFor('/readyz 503 after SIGTERM', async () => (answer = await readyz(s.url)) !== 200, GRACE_MS);
      expect(answer, s.output()).toBe(503);
      const done = await Promise.race([s.exited.then(() => 'exited'), sleep(GRACE_MS + 10 * s.startedMs)]);
      expect(done, s.output()).toBe('exited');
      expect(s.events().filter((e) => e === 'launcher_gone' || e === 'signal' || e.startsWith('drain'))).toEqual([
        'launcher_gone',
        'drain_started',
        'drain_requests_done',
        'drain_deliveries_done',
        'drain_done',
      ]);
      await s.waitFor('the port freed', () => portFree(s.port), 10 * s.startedMs);
      await s.waitFor('every process of the tree gone', () => !tree.some(alive), 10 * s.startedMs);
    },
    startup.timeout(120, 120_000),
  );

  it(
    "by SIGTERM to the bin's own pid: the same drain and exit 0; a second signal while draining stops at once",
    async () => {
      const bin = join(project, 'node_modules', '.bin', 'domain-sales-sandbox');
      const s = await start(bin, ['--port', '0'], project, shellEnv(join(work, 'data-direct')));
      await s.waitFor('/readyz 200', async () => (await readyz(s.url)) === 200, 10 * s.startedMs);
      s.child.kill('SIGTERM');
      await s.waitFor('/readyz 503 after SIGTERM', async () => (await readyz(s.url)) === 503, GRACE_MS);
      expect(await s.exited, s.output()).toBe(0);
      expect(s.events().filter((e) => e === 'signal' || e.startsWith('drain'))).toEqual([
        'signal',
        'drain_started',
        'drain_requests_done',
        'drain_deliveries_done',
        'drain_done',
      ]);
      expect(s.output()).toContain('SIGTERM: draining (Ctrl-C again to stop at once)');
      expect(await portFree(s.port)).toBe(true);

      const again = await start(bin, ['--port', '0'], project, shellEnv(join(work, 'data-direct')));
      again.child.kill('SIGINT');
      await again.waitFor('/readyz 503 after SIGINT', async () => (await readyz(again.url)) === 503, GRACE_MS);
      // Pressed again (not npm's relay of the same keypress: server/ops/stop-signals.ts).
      await new Promise((resolve) => setTimeout(resolve, REPEAT_WINDOW_MS));
      again.child.kill('SIGINT');
      expect(await again.exited, again.output()).toBe(1);
      expect(again.events()).not.toContain('drain_done');
    },
    startup.timeout(120, 120_000),
  );
});
