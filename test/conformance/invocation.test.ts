// The reports' rerun lines name the command the operator actually ran the kit with
// (conformance/invocation.ts), and an installed kit's reports never say `npm run conformance`.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, symlink, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invocation } from '../../conformance/invocation.ts';
import { startReferenceServer } from '../../conformance/run.ts';
import { ROOT } from '../../scripts/contract.ts';

const run = promisify(execFile);

describe('invocation(): how the kit was run', () => {
  const cwd = '/home/op/shop';
  it('npm run conformance -- … in this repository (its script as package.json has it, and as it was)', () => {
    const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    for (const script of [
      scripts.conformance,
      'tsx conformance/cli.ts',
      'exec tsx --tsconfig t.json conformance/cli.ts',
    ])
      expect(
        invocation(['node', '/r/conformance/cli.ts'], {
          npm_command: 'run',
          npm_lifecycle_event: 'conformance',
          npm_lifecycle_script: script,
        }),
        script,
      ).toBe('npm run conformance --');
  });
  it('an npm script that passes options of its own is not rerun through npm (they would be sent twice)', () => {
    expect(
      invocation(['node', '/home/op/shop/node_modules/.bin/domain-sales-conformance'], {
        npm_command: 'run',
        npm_lifecycle_event: 'check',
        npm_lifecycle_script: 'domain-sales-conformance --base-url https://staging.example.com',
      }),
    ).toBe('npx @domain-sales/conformance');
  });
  it('npx: the package, which npx finds installed or fetches', () => {
    expect(
      invocation(['node', '/home/op/.npm/_npx/1/node_modules/.bin/domain-sales-conformance'], { npm_command: 'exec' }),
    ).toBe('npx @domain-sales/conformance');
    // `npx tsx conformance/cli.ts` in this repository: the script through tsx, not `npx cli.ts`.
    expect(invocation(['node', '/r/conformance/cli.ts'], { npm_command: 'exec', PATH: '/usr/bin' }, '/r')).toBe(
      'npx tsx conformance/cli.ts',
    );
  });
  it('the bin on PATH by its name; elsewhere by its path; a TypeScript file through tsx', () => {
    const bin = '/home/op/shop/node_modules/.bin/domain-sales-conformance';
    expect(invocation(['node', bin], { PATH: '/usr/bin:/home/op/shop/node_modules/.bin' }, cwd)).toBe(
      'domain-sales-conformance',
    );
    expect(invocation(['node', bin], { PATH: '/usr/bin' }, cwd)).toBe('./node_modules/.bin/domain-sales-conformance');
    expect(invocation(['node', '/repo/bin.mjs'], { CONFORMANCE_INVOKED_AS: bin, PATH: '/usr/bin' }, cwd)).toBe(
      './node_modules/.bin/domain-sales-conformance',
    );
    expect(invocation(['node', '/home/op/shop/kit/conformance/cli.ts'], { PATH: '/usr/bin' }, cwd)).toBe(
      'npx tsx kit/conformance/cli.ts',
    );
  });
});

describe('the rerun lines of a run started through the bin, as an installed kit is', () => {
  let dir = '';
  let server: Awaited<ReturnType<typeof startReferenceServer>>;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'conformance-invocation-'));
    server = await startReferenceServer(new Set(['accept-replays']));
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('name the bin as invoked, never npm run conformance, in the console, failure.txt, JSON and HTML', async () => {
    // An operator's project: the bin linked in node_modules/.bin, on PATH (as npm scripts and npx put it).
    const bin = join(dir, 'node_modules', '.bin');
    await mkdir(bin, { recursive: true });
    await symlink(join(ROOT, 'conformance', 'bin.mjs'), join(bin, 'domain-sales-conformance'));
    const env: Record<string, string> = { PATH: `${bin}:${process.env.PATH ?? ''}`, HOME: process.env.HOME ?? dir };
    const out = await run(
      join(bin, 'domain-sales-conformance'),
      [
        '--base-url',
        server.url,
        '--admin-token',
        server.adminToken,
        '--only',
        'partner.auth.nonce.reuse',
        '--seed',
        '3',
        '--num-runs',
        '3',
        '--report',
        `json=${join(dir, 'r.json')},html=${join(dir, 'r.html')},bundle=${join(dir, 'b')}`,
      ],
      { cwd: dir, env, maxBuffer: 16 * 1024 * 1024 },
    ).then(
      (r) => ({ code: 0, stdout: r.stdout }),
      (e: { code?: number; stdout?: string; stderr?: string }) => ({
        code: e.code,
        stdout: `${e.stdout ?? ''}${e.stderr ?? ''}`,
      }),
    );
    expect(out.code, out.stdout.slice(-2000)).toBe(1);
    const expected = `domain-sales-conformance --base-url ${server.url} --only partner.auth.nonce.reuse --seed 3 --num-runs 3`;
    expect(out.stdout).toContain(`rerun: ${expected}`);
    const failure = await readFile(join(dir, 'b', 'partner.auth.nonce.reuse', 'failure.txt'), 'utf8');
    expect(failure).toContain(`rerun the check: ${expected}`);
    const html = await readFile(join(dir, 'r.html'), 'utf8');
    expect(html).toContain(expected);
    const json = JSON.parse(await readFile(join(dir, 'r.json'), 'utf8')) as { rerun?: string };
    expect(json.rerun).toBe('domain-sales-conformance');
    for (const text of [out.stdout, failure, html]) expect(text).not.toContain('npm run conformance');
  }, 180_000);
});
