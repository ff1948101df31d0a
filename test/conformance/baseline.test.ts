// Baselines: known failures do not fail the run, a new failure does, a listed check that passes
// now fails it as stale. The rules on their own, then the CLI end to end against a reference
// server with a fault (two checks of nonce-replay fail there) and one without.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyBaseline, parseBaseline, runFails, writeBaseline } from '../../conformance/baseline.ts';
import { ConfigError } from '../../conformance/context.ts';
import type { CheckResult } from '../../conformance/runner.ts';
import { startReferenceServer } from '../../conformance/run.ts';
import { ROOT } from '../../scripts/contract.ts';

const result = (id: string, status: CheckResult['status']): CheckResult => ({
  id,
  family: 'f',
  check: id,
  rules: [],
  status,
  ms: 1,
  ...(status === 'failed' ? { message: `${id} broke\nsecond line` } : {}),
});
const known = new Set(['a.one', 'a.two', 'a.three']);

describe('baseline rules', () => {
  it('reads the list form (ID and reason per line, comments) and the JSON report form', () => {
    expect(parseBaseline('# known gaps\na.one  retries are late\n\na.two\n', 'b.txt', known)).toEqual([
      { id: 'a.one', reason: 'retries are late' },
      { id: 'a.two', reason: '' },
    ]);
    const report = JSON.stringify({
      checks: [
        { id: 'a.one', status: 'failed', message: 'boom\nmore' },
        { id: 'a.two', status: 'passed' },
      ],
    });
    expect(parseBaseline(report, 'r.json', known)).toEqual([{ id: 'a.one', reason: 'boom' }]);
    expect(parseBaseline('[{"id":"a.three","reason":"x"},"a.two"]', 'l.json', known)).toEqual([
      { id: 'a.three', reason: 'x' },
      { id: 'a.two', reason: '' },
    ]);
  });

  it('refuses unknown IDs and malformed lines as configuration errors', () => {
    expect(() => parseBaseline('a.nope reason', 'b.txt', known)).toThrow(ConfigError);
    expect(() => parseBaseline('Not An ID at all', 'b.txt', known)).toThrow(ConfigError);
    expect(() => parseBaseline('{"checks": ', 'b.json', known)).toThrow(ConfigError);
  });

  it('a listed failure is known, a listed pass is stale, an unlisted failure fails the run', () => {
    const entries = [
      { id: 'a.one', reason: 'r1' },
      { id: 'a.two', reason: 'r2' },
    ];
    const { results } = applyBaseline(
      [result('a.one', 'failed'), result('a.two', 'passed'), result('a.three', 'skipped')],
      entries,
    );
    expect(results.map((r) => r.baseline?.verdict)).toEqual(['known', 'stale', undefined]);
    expect(runFails(results)).toBe(true);
    const onlyKnown = applyBaseline([result('a.one', 'failed'), result('a.two', 'failed')], entries).results;
    expect(runFails(onlyKnown)).toBe(false);
    const newFailure = applyBaseline([result('a.one', 'failed'), result('a.three', 'failed')], entries).results;
    expect(runFails(newFailure)).toBe(true);
  });

  it('writes the failures as a list that reads back to the same IDs', () => {
    const text = writeBaseline([result('a.one', 'failed'), result('a.two', 'passed'), result('a.three', 'failed')], {
      baseUrl: 'http://x',
      date: '2026-01-01',
    });
    expect(parseBaseline(text, 'w.txt', known).map((e) => [e.id, e.reason])).toEqual([
      ['a.one', 'a.one broke'],
      ['a.three', 'a.three broke'],
    ]);
  });
});

const run = promisify(execFile);
const cli = (args: string[]) =>
  run(join(ROOT, 'node_modules/.bin/tsx'), ['conformance/cli.ts', ...args], {
    cwd: ROOT,
    maxBuffer: 32 * 1024 * 1024,
    env: { ...process.env, ADMIN_TOKEN: '', SERVICE_KEY_ID: '', SERVICE_SECRET: '' },
  }).then(
    ({ stdout }) => ({ code: 0, stdout }),
    (err: { code?: number; stdout?: string; stderr?: string }) => ({
      code: err.code ?? -1,
      stdout: `${err.stdout ?? ''}${err.stderr ?? ''}`,
    }),
  );

describe('npm run conformance -- --baseline / --write-baseline', () => {
  let faulty: Awaited<ReturnType<typeof startReferenceServer>>;
  let healthy: Awaited<ReturnType<typeof startReferenceServer>>;
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'conformance-baseline-'));
    [faulty, healthy] = await Promise.all([startReferenceServer(new Set(['accept-replays'])), startReferenceServer()]);
  });
  afterAll(async () => {
    await Promise.all([faulty?.stop(), healthy?.stop()]);
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  const against = (server: typeof faulty, extra: string[]) =>
    cli([
      '--base-url',
      server.url,
      '--admin-token',
      server.adminToken,
      '--only',
      'nonce-replay',
      '--seed',
      '3',
      '--num-runs',
      '4',
      ...extra,
    ]);

  it('a new failure exits 1; written as a baseline it is known (exit 0); against a deployment that passes, the entries are stale (exit 1)', async () => {
    const baseline = join(dir, 'baseline.txt');
    const report = join(dir, 'report.json');
    const first = await against(faulty, ['--write-baseline', baseline, '--report', `json=${report}`]);
    expect(first.code, first.stdout.slice(-2000)).toBe(1);
    const ids = (await readFile(baseline, 'utf8'))
      .split('\n')
      .filter((l) => l && !l.startsWith('#'))
      .map((l) => l.split(/\s+/)[0]);
    expect(ids).toEqual(['partner.auth.nonce.reuse', 'partner.auth.nonce.identical-request']);

    const again = await against(faulty, ['--baseline', baseline]);
    expect(again.code, again.stdout.slice(-2000)).toBe(0);
    expect(again.stdout).toMatch(/conformance: 2 passed, 0 failed, 0 skipped, 2 known/);

    const fromReport = await against(faulty, ['--baseline', report]);
    expect(fromReport.code, fromReport.stdout.slice(-2000)).toBe(0);

    const stale = await against(healthy, ['--baseline', baseline]);
    expect(stale.code).toBe(1);
    expect(stale.stdout).toMatch(/STALE partner\.auth\.nonce\.reuse: the baseline lists it as failing/);
    expect(stale.stdout).toMatch(/conformance: 2 passed, 0 failed, 0 skipped, 2 stale/);
  }, 120_000);

  it('a baseline that lists only one of the failures still fails the run; an unknown ID is a configuration error (exit 2)', async () => {
    const partial = join(dir, 'partial.txt');
    await writeFile(partial, 'partner.auth.nonce.reuse  the cache replays\n');
    const run1 = await against(faulty, ['--baseline', partial]);
    expect(run1.code).toBe(1);
    expect(run1.stdout).toMatch(/FAILED partner\.auth\.nonce\.identical-request/);
    const unknown = join(dir, 'unknown.txt');
    await writeFile(unknown, 'partner.auth.nonce.no-such-check\n');
    expect((await against(faulty, ['--baseline', unknown])).code).toBe(2);
  }, 120_000);
});
