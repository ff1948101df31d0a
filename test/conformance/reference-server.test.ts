// The suite and the reference server test each other: the default run against a fresh
// in-process server must pass every family, none skipped.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../scripts/contract.ts';
import { measureStartup } from '../support/startup.ts';

const run = promisify(execFile);
// A whole run spawns the kit and a server and makes thousands of requests: its time grows with
// the machine's load, so the timeout is scaled from a start-up measured now. The floor holds a
// quiet run with the waits the contract imposes (the OAuth code lifetime, about a minute).
const timing = await measureStartup();
const RUN_TIMEOUT = timing.timeout(400, 240_000);
let dir = '';
afterAll(() => (dir ? rm(dir, { recursive: true, force: true }) : undefined));

describe('npm run conformance (no --base-url)', () => {
  it(
    'passes against a fresh reference server with every family run and none skipped',
    async () => {
      dir = await mkdtemp(join(tmpdir(), 'conformance-report-'));
      const json = join(dir, 'report.json');
      const junit = join(dir, 'report.xml');
      const { stdout } = await run(
        join(ROOT, 'node_modules/.bin/tsx'),
        [
          'conformance/cli.ts',
          '--seed',
          '20261122',
          '--num-runs',
          '15',
          '--surface',
          'partner',
          '--report',
          `json=${json},junit=${junit}`,
        ],
        {
          cwd: ROOT,
          maxBuffer: 64 * 1024 * 1024,
          env: { ...process.env, ADMIN_TOKEN: '' },
        },
      ).catch((err: { stdout?: string; code?: number }) => {
        throw new Error(`conformance exited ${err.code}:\n${(err.stdout ?? '').slice(-4000)}`);
      });
      expect(stdout).toMatch(/conformance: \d+ passed, 0 failed, 0 skipped/);
      const report = JSON.parse(await readFile(json, 'utf8')) as { checks: Array<{ status: string; family: string }> };
      expect(report.checks.length).toBeGreaterThan(10);
      expect(report.checks.every((c) => c.status === 'passed')).toBe(true);
      expect(await readFile(junit, 'utf8')).toContain('<testsuites name="conformance"');
    },
    RUN_TIMEOUT,
  );

  it(
    'passes --surface all (partner and public families, OAuth with the seeded sandbox user, MCP) with none failed or skipped',
    async () => {
      const { stdout } = await run(
        join(ROOT, 'node_modules/.bin/tsx'),
        ['conformance/cli.ts', '--seed', '20261123', '--surface', 'all'],
        {
          cwd: ROOT,
          maxBuffer: 64 * 1024 * 1024,
          env: { ...process.env, ADMIN_TOKEN: '', SANDBOX_USER_EMAIL: '', SANDBOX_USER_PASSWORD: '' },
        },
      ).catch((err: { stdout?: string; code?: number }) => {
        throw new Error(`conformance exited ${err.code}:\n${(err.stdout ?? '').slice(-6000)}`);
      });
      expect(stdout).toMatch(/conformance: \d+ passed, 0 failed, 0 skipped/);
      for (const family of [
        'public-pagination',
        'public-error-codes',
        'oauth',
        'mcp',
        'public-headers',
        'public-schema',
      ])
        expect(stdout).toMatch(new RegExp(`^${family} +[1-9]\\d* +0 +0$`, 'm'));
    },
    RUN_TIMEOUT,
  );
});
