// Replayable failure bundles: the replay's own signer agrees with the signing test vectors; a
// deliberately failing run (a server that accepts replayed nonces) writes a bundle whose HAR files
// validate against the HAR 1.2 schema (har-schema, not ours) and whose replay.mjs, run with plain
// Node against a fresh server, signs every request again and says what differs: nothing against
// another server with the same fault, the refused replay against a server without it.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  canonicalQuery,
  canonicalString,
  correlate,
  hmacHex,
  jsonDiff,
  scrub,
  substitute,
} from '../../conformance/bundle/replay.mjs';
import { startReferenceServer } from '../../conformance/run.ts';
import { ROOT } from '../../scripts/contract.ts';

const run = promisify(execFile);
const vectors = JSON.parse(readFileSync(join(ROOT, 'spec/vectors/signing.json'), 'utf8')) as {
  canonical_query: Array<{ name: string; query: string; canonical: string }>;
  invalid_query: Array<{ name: string; query: string }>;
  signatures: Array<{
    name: string;
    secret: string;
    method: string;
    path: string;
    query: string;
    timestamp: string;
    nonce: string;
    body: string;
    canonical_string: string;
    signature: string;
  }>;
};

describe("replay.mjs's signer (plain JavaScript, so a bundle runs without the kit)", () => {
  it('agrees with every canonical-query, invalid-query and signature vector of spec/vectors/signing.json', () => {
    for (const v of vectors.canonical_query) expect(canonicalQuery(v.query), v.name).toBe(v.canonical);
    for (const v of vectors.invalid_query) expect(() => canonicalQuery(v.query), v.name).toThrow();
    for (const v of vectors.signatures) {
      const canonical = canonicalString(v);
      expect(canonical, v.name).toBe(v.canonical_string);
      expect(`v1=${hmacHex(v.secret, canonical)}`, v.name).toBe(v.signature);
    }
  });

  it('carries identifiers from new answers into later requests, and only identifiers', () => {
    const map = correlate(
      { public_id: 'ord_OLD111', created_at: '2026-01-01T00:00:00Z', items: [{ id: 'evt_OLD222' }], n: 1 },
      { public_id: 'ord_NEW111', created_at: '2026-02-02T00:00:00Z', items: [{ id: 'evt_NEW222' }], n: 2 },
    );
    expect([...map]).toEqual([
      ['ord_OLD111', 'ord_NEW111'],
      ['evt_OLD222', 'evt_NEW222'],
    ]);
    expect(substitute('/api/partner/v1/orders/ord_OLD111?after_id=evt_OLD222', map)).toBe(
      '/api/partner/v1/orders/ord_NEW111?after_id=evt_NEW222',
    );
  });
});

function harValidator() {
  const require = createRequire(import.meta.url);
  const schemas = require('har-schema') as Record<string, Record<string, unknown>>;
  const ajv = new Ajv({ allErrors: true, strict: false });
  (addFormatsModule as unknown as (a: Ajv) => Ajv)(ajv);
  ajv.addMetaSchema(require('ajv/dist/refs/json-schema-draft-06.json') as object);
  for (const schema of Object.values(schemas)) ajv.addSchema(schema);
  return ajv.getSchema('har.json#')!;
}

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

/** `node replay.mjs` with only the given environment (plain Node: no tsx, no kit). */
const replay = (dir: string, args: string[], env: Record<string, string>) =>
  run(process.execPath, [join(dir, 'replay.mjs'), ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    maxBuffer: 8 * 1024 * 1024,
  }).then(
    ({ stdout }) => ({ code: 0, stdout }),
    (err: { code?: number; stdout?: string; stderr?: string }) => ({
      code: err.code ?? -1,
      stdout: `${err.stdout ?? ''}${err.stderr ?? ''}`,
    }),
  );

describe('npm run conformance -- --report bundle=DIR, and DIR/replay.mjs', () => {
  let dir = '';
  let bundle = '';
  let recorded: Awaited<ReturnType<typeof startReferenceServer>>;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'conformance-bundle-'));
    bundle = join(dir, 'bundle');
    recorded = await startReferenceServer(new Set(['accept-replays']));
    const failing = await cli([
      '--base-url',
      recorded.url,
      '--admin-token',
      recorded.adminToken,
      '--only',
      'nonce-replay',
      '--seed',
      '9',
      '--num-runs',
      '3',
      '--report',
      `bundle=${bundle},html=${join(dir, 'report.html')}`,
    ]);
    expect(failing.code, failing.stdout.slice(-3000)).toBe(1);
    expect(failing.stdout).toContain(`failure bundle: ${bundle}`);
  }, 120_000);
  afterAll(async () => {
    await recorded?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('holds one directory per failed check with a HAR 1.2 file that validates, failure.txt, bundle.json and replay.mjs', async () => {
    const index = JSON.parse(await readFile(join(bundle, 'bundle.json'), 'utf8')) as {
      baseUrl: string;
      seed: number;
      checks: Array<{ id: string; dir: string; exchanges: number; rules: string[] }>;
    };
    expect(index.baseUrl).toBe(recorded.url);
    expect(index.checks.map((c) => c.id).sort()).toEqual([
      'partner.auth.nonce.identical-request',
      'partner.auth.nonce.reuse',
    ]);
    const validate = harValidator();
    for (const c of index.checks) {
      const har = JSON.parse(await readFile(join(bundle, c.dir, 'exchanges.har'), 'utf8')) as {
        log: {
          entries: Array<{
            request: { headers: Array<{ name: string; value: string }>; postData?: { text: string } };
            response: { content: { text: string } };
            _conformance: { checkId: string; context?: boolean };
          }>;
        };
      };
      expect(validate(har), JSON.stringify(validate.errors?.slice(0, 3))).toBe(true);
      expect(har.log.entries.length).toBe(c.exchanges);
      expect(har.log.entries.filter((e) => !e._conformance.context).every((e) => e._conformance.checkId === c.id)).toBe(
        true,
      );
      const text = JSON.stringify(har);
      expect(text).not.toContain(recorded.adminToken);
      expect(text).not.toMatch(/"secret":\s*"sk_test_/);
      const failure = await readFile(join(bundle, c.dir, 'failure.txt'), 'utf8');
      expect(failure).toContain(c.rules[0]!);
      expect(failure).toMatch(/--seed 9/);
    }
    expect((await readdir(bundle)).sort()).toEqual(
      expect.arrayContaining(['README.txt', 'bundle.json', 'replay.mjs', 'transport.mjs']),
    );
  });

  it('replays against a fresh server with the same fault: every answer as recorded (exit 0), signed afresh', async () => {
    const again = await startReferenceServer(new Set(['accept-replays']));
    try {
      const out = await replay(bundle, ['--base-url', again.url, '--check', 'partner.auth.nonce.identical-request'], {
        ADMIN_TOKEN: again.adminToken,
      });
      expect(out.stdout).toMatch(/partner\.auth\.nonce\.identical-request: 0 of \d+ answers differ from the recording/);
      expect(out.code, out.stdout).toBe(0);
    } finally {
      await again.stop();
    }
  }, 60_000);

  it('against a fresh server without the fault, it shows the replayed nonce now refused (exit 1), with minted or given credentials', async () => {
    const healthy = await startReferenceServer();
    try {
      const minted = await replay(bundle, ['--base-url', healthy.url], { ADMIN_TOKEN: healthy.adminToken });
      expect(minted.code, minted.stdout).toBe(1);
      expect(minted.stdout).toMatch(/recorded 200, now 401\n\s+status 200 → 401/);
      expect(minted.stdout).toMatch(/body \/code: .*replay_detected/);
      // Without the operator token: the partner credential from the environment signs every request.
      const res = await fetch(`${healthy.url}/api/admin/v1/credentials`, {
        method: 'POST',
        headers: { authorization: `Bearer ${healthy.adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ environment: 'sandbox', scopes: ['search'] }),
      });
      const { key_id, secret } = (await res.json()) as { key_id: string; secret: string };
      const given = await replay(bundle, ['--base-url', healthy.url, '--check', 'partner.auth.nonce.reuse'], {
        SERVICE_KEY_ID: key_id,
        SERVICE_SECRET: secret,
      });
      expect(given.code, given.stdout).toBe(1);
      expect(given.stdout).toMatch(/status 200 → 401/);
      expect(given.stdout).not.toMatch(/invalid_signature/);
      // Neither: it cannot replay, and says what it needs.
      const none = await replay(bundle, ['--base-url', healthy.url, '--check', 'partner.auth.nonce.reuse'], {});
      expect(none.code).toBe(2);
      expect(none.stdout).toMatch(/missing: .*SERVICE_KEY_ID\/SERVICE_SECRET/);
    } finally {
      await healthy.stop();
    }
  }, 60_000);
});

// The verdict operators act on: a bundle recorded against a deployment whose error codes are wrong
// (server/faults.ts wrong-error-codes: replay_detected answered as invalid_signature) must say
// "fixed" against a healthy server (the changed code is a difference, not a renamed id) and
// "reproduces" against the same faulty one, and print no secret either way.
describe('replay.mjs verdicts on a bundle recorded against a faulty deployment (wrong-error-codes)', () => {
  let dir = '';
  let bundle = '';
  let faulty: Awaited<ReturnType<typeof startReferenceServer>>;
  let healthy: Awaited<ReturnType<typeof startReferenceServer>>;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'conformance-verdict-'));
    bundle = join(dir, 'bundle');
    [faulty, healthy] = await Promise.all([
      startReferenceServer(new Set(['wrong-error-codes'])),
      startReferenceServer(),
    ]);
    const failing = await cli([
      '--base-url',
      faulty.url,
      '--admin-token',
      faulty.adminToken,
      '--only',
      'partner.auth.nonce.reuse',
      '--seed',
      '9',
      '--num-runs',
      '3',
      '--report',
      `bundle=${bundle}`,
    ]);
    expect(failing.code, failing.stdout.slice(-3000)).toBe(1);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([faulty?.stop(), healthy?.stop()]);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** Every secret a replay could leak: minted sk_test_ secrets, the operator tokens, a given partner secret. */
  const leaks = (text: string, given: string[]) => [
    ...(text.match(/sk_(test|live)_[A-Za-z0-9]{16,}/g) ?? []),
    ...given.filter((s) => text.includes(s)),
  ];

  it('against a healthy server: the changed error code is a difference, "fixed", exit 1, and no secret printed', async () => {
    const out = await replay(bundle, ['--base-url', healthy.url, '--verbose'], { ADMIN_TOKEN: healthy.adminToken });
    expect(out.stdout).toMatch(/body \/code: "invalid_signature" → "replay_detected"/);
    expect(out.stdout).toMatch(/partner\.auth\.nonce\.reuse: [1-9]\d* of \d+ answers differ from the recording: fixed/);
    expect(out.stdout).toMatch(/fixed, or failing another way.*\(exit 1\)/);
    expect(out.code, out.stdout).toBe(1);
    expect(leaks(out.stdout, [healthy.adminToken])).toEqual([]);
  }, 60_000);

  it('against the same faulty server: "reproduces", exit 0; the redacted secret is not compared, and not printed', async () => {
    const out = await replay(bundle, ['--base-url', faulty.url, '--verbose'], { ADMIN_TOKEN: faulty.adminToken });
    expect(out.stdout).toMatch(/partner\.auth\.nonce\.reuse: 0 of \d+ answers differ from the recording: reproduces/);
    expect(out.stdout).not.toMatch(/\/secret/);
    expect(out.code, out.stdout).toBe(0);
    expect(leaks(out.stdout, [faulty.adminToken])).toEqual([]);
  }, 60_000);
});

describe("replay.mjs's comparison (pure functions)", () => {
  it('learns ids of the contract’s shapes and issued tokens, never codes, statuses, types or messages', () => {
    const map = correlate(
      {
        code: 'invalid_signature',
        status: 'TRANSFER_COMPLETED',
        type: 'order.transfer_started',
        message: 'X-Service-Nonce has already been used',
        public_id: 'ord_OLD1112222',
        client_id: 'cli_01JDOLD',
        access_token: 'at_OLDtokenvalue0123',
        page: { next_cursor: 'eyJrIjpbMV19.OLD' },
      },
      {
        code: 'replay_detected',
        status: 'TRANSFER_IN_PROGRESS',
        type: 'order.transfer_completed',
        message: 'The nonce was used before',
        public_id: 'ord_NEW1112222',
        client_id: 'cli_01JDNEW',
        access_token: 'at_NEWtokenvalue0123',
        page: { next_cursor: 'eyJrIjpbMl19.NEW' },
      },
    );
    expect(Object.fromEntries(map)).toEqual({
      ord_OLD1112222: 'ord_NEW1112222',
      cli_01JDOLD: 'cli_01JDNEW',
      at_OLDtokenvalue0123: 'at_NEWtokenvalue0123',
      'eyJrIjpbMV19.OLD': 'eyJrIjpbMl19.NEW',
    });
    expect(jsonDiff({ code: 'invalid_signature' }, { code: 'replay_detected' }, map)).toEqual([
      '/code: "invalid_signature" → "replay_detected"',
    ]);
  });

  it('never compares or prints a withheld or secret member, and scrubs known secrets', () => {
    const fresh = { secret: 'sk_test_FRESHSECRET0123456789abcdefABCDEF', access_token: 'at_FRESH0123456789' };
    expect(jsonDiff({ secret: '${REDACTED}', access_token: 'at_OLD0123456789' }, fresh, new Map())).toEqual([]);
    const shown = jsonDiff({}, fresh, new Map()).join('\n');
    expect(shown).toContain('/secret: new member (withheld)');
    expect(shown).not.toContain('FRESH');
    expect(scrub('key sk_abc123456 and sk_abc123456', new Set(['sk_abc123456']))).toBe(
      'key ${REDACTED} and ${REDACTED}',
    );
  });
});
