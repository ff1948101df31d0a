// The health probes (public document: getHealth, getReadiness; x-rate-limit: none) and the
// structured request log (server/ops/access-log.ts), on a server started the way `npm start`
// starts it (startServer), with its log lines captured.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateInventory } from '../../server/inventory/generate.ts';
import { configFromEnv } from '../../server/config.ts';
import { startServer, type RunningServer } from '../../server/embedded.ts';
import { createLogger } from '../../server/ops/logger.ts';
import type { Harness } from '../server/harness.ts';
import { signedRequest } from '../server/support/http.ts';

const ADMIN_TOKEN = `admin-${randomUUID()}`;
const INVENTORY = 50;
const listed = [...generateInventory({ size: INVENTORY, seed: 1 })][0]?.domain;
const publicDoc = (await import('../../generated/public.openapi.json', { with: { type: 'json' } })).default as {
  paths: Record<string, Record<string, { 'x-rate-limit'?: string }>>;
};

describe('health probes and request logs', () => {
  let running: RunningServer;
  let dataDir: string;
  const lines: string[] = [];
  const logged = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  let target: Harness;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'ops-'));
    const config = configFromEnv({
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      SANDBOX_INVENTORY_SIZE: String(INVENTORY),
      ADMIN_TOKEN,
      DRAIN_GRACE_MS: '0',
    });
    running = await startServer({
      config,
      logger: createLogger({ level: 'info', destination: { write: (s: string) => void lines.push(s) } }),
    });
    // signedRequest needs only an address and a clock.
    target = { baseUrl: running.url, clock: { now: () => Date.now() } } as unknown as Harness;
  });
  afterAll(async () => {
    await running?.stop().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('declares the probes x-rate-limit: none in the public document', () => {
    expect(publicDoc.paths['/healthz']?.get?.['x-rate-limit']).toBe('none');
    expect(publicDoc.paths['/readyz']?.get?.['x-rate-limit']).toBe('none');
  });

  it('answers /healthz and /readyz uncounted: 70 probes (over the public quota of 60) are all 200 and leave the window untouched', async () => {
    for (let i = 0; i < 35; i++) {
      for (const path of ['/healthz', '/readyz']) {
        const r = await fetch(`${running.url}${path}`);
        expect(r.status, path).toBe(200);
        expect(r.headers.get('ratelimit-policy')).toBeNull();
        expect(r.headers.get('cache-control')).toBe('no-store');
        expect(r.headers.get('x-request-id')).toBeTruthy();
        await r.arrayBuffer();
      }
    }
    expect(await (await fetch(`${running.url}/healthz`)).json()).toEqual({ status: 'ok' });
    expect(await (await fetch(`${running.url}/readyz`)).json()).toEqual({
      status: 'ready',
      checks: { store: true, migrations: true, search_index: true, not_draining: true },
      failed: [],
    });
    const counted = await fetch(`${running.url}/api/v1`);
    expect(counted.status).toBe(200);
    expect(counted.headers.get('ratelimit-remaining')).toBe('59');
  });

  it("turns /readyz 503 naming the failed check: search index cold, migrations not this build's, draining", async () => {
    const ready = async () => {
      const r = await fetch(`${running.url}/readyz`);
      return { status: r.status, body: (await r.json()) as { status: string; failed: string[] } };
    };
    let warm!: () => void;
    running.readiness.trackSearchIndex(new Promise<void>((resolve) => (warm = resolve)));
    expect(await ready()).toMatchObject({ status: 503, body: { status: 'not_ready', failed: ['search_index'] } });
    warm();
    await new Promise((r) => setTimeout(r, 10));
    expect((await ready()).status).toBe(200);

    await sql`insert into kysely_migration (name, timestamp) values ('999_from_a_newer_build', 'now')`.execute(
      running.store.db,
    );
    expect(await ready()).toMatchObject({ status: 503, body: { failed: ['migrations'] } });
    await sql`delete from kysely_migration where name = '999_from_a_newer_build'`.execute(running.store.db);
    expect((await ready()).status).toBe(200);
    expect((await fetch(`${running.url}/healthz`)).status).toBe(200);
  });

  it('logs one JSON line per request with its fields, never a secret, and no probe at info', async () => {
    lines.length = 0;
    const secrets: string[] = [];
    const secret = (label: string) => {
      const s = `${label}${randomUUID().replaceAll('-', '')}`;
      secrets.push(s);
      return s;
    };
    // The operator token (Authorization) and the partner secret it hands out.
    const minted = await fetch(`${running.url}/api/admin/v1/credentials`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ environment: 'sandbox', scopes: ['search', 'buy', 'webhook'] }),
    });
    expect(minted.status).toBe(201);
    const cred = (await minted.json()) as { key_id: string; secret: string; partner_id: string };
    secrets.push(ADMIN_TOKEN, cred.secret);
    // A signed read (its signature computed from the secret) and one with a forged signature.
    const ok = await signedRequest(target, cred, { path: '/api/partner/v1/pricing', query: `domain=${listed}` });
    expect(ok.status, ok.text).toBe(200);
    const forged = await signedRequest(target, cred, {
      path: '/api/partner/v1/pricing',
      query: 'domain=x.com',
      signature: secret('a0b1c2d3'),
    });
    expect(forged.body?.code).toBe('invalid_signature');
    // A bearer token (refused), a cookie, a password in a form, tokens in a path and a query.
    const bearer = secret('tok_');
    const refused = await fetch(`${running.url}/api/domain/search`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${bearer}`,
        cookie: `session=${secret('cookie')}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ q: 'bestcoffeebeans.com' }),
    });
    expect(refused.status).toBe(401);
    await fetch(`${running.url}/oauth/authorize`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        email: 'sandbox@example.com',
        password: secret('pw'),
        csrf: secret('csrf'),
      }).toString(),
    }).then((r) => r.arrayBuffer());
    await fetch(`${running.url}/brokerage/progress/${secret('capability')}`).then((r) => r.arrayBuffer());
    await fetch(`${running.url}/checkout?token=${secret('qtoken')}`).then((r) => r.arrayBuffer());
    await fetch(`${running.url}/api/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: secret('refresh'),
        client_id: 'nobody',
      }).toString(),
    }).then((r) => r.arrayBuffer());
    for (const path of ['/healthz', '/readyz']) await fetch(`${running.url}${path}`).then((r) => r.arrayBuffer());
    await new Promise((r) => setTimeout(r, 50));

    const output = lines.join('\n');
    expect(lines.length).toBeGreaterThanOrEqual(8);
    for (const s of secrets) expect(output, `a secret (${s.slice(0, 6)}…) reached the log`).not.toContain(s);
    const records = logged();
    const signed = records.find(
      (r) => r.operation === 'getPricing' && r.key_id === cred.key_id && r.code === undefined,
    );
    expect(signed).toMatchObject({
      msg: 'request',
      method: 'GET',
      route: '/api/partner/v1/pricing',
      status: ok.status,
      req_id: ok.headers.get('x-request-id'),
    });
    expect(typeof signed?.ms).toBe('number');
    // Refused before the credential is known: no key id, the refusal's code.
    expect(records.find((r) => r.operation === 'getPricing' && r.code === 'invalid_signature')).toMatchObject({
      status: 401,
    });
    expect(records.find((r) => r.operation === 'searchDomain')).toMatchObject({ status: 401, code: 'invalid_token' });
    expect(records.find((r) => r.operation === 'getBrokerageProgress')).toMatchObject({
      route: '/brokerage/progress/{token}',
    });
    expect(records.some((r) => r.operation === 'getHealth' || r.operation === 'getReadiness')).toBe(false);
  });

  it('logs a request whose client went away before the answer as aborted, status 499', async () => {
    const before = lines.length;
    const { hostname, port } = new URL(running.url);
    const socket = connect(Number(port), hostname);
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    // A body announced at 1,000 bytes, 10 sent: the server is still reading it when the client leaves.
    socket.write(
      `POST /api/partner/v1/quotes HTTP/1.1\r\nHost: ${hostname}:${port}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"domain":`,
    );
    await new Promise((r) => setTimeout(r, 50));
    socket.destroy();
    const deadline = Date.now() + 2000;
    while (Date.now() < deadline && !lines.slice(before).some((l) => l.includes('"aborted":true')))
      await new Promise((r) => setTimeout(r, 20));
    const records = lines.slice(before).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records).toEqual([expect.objectContaining({ method: 'POST', status: 499, aborted: true })]);
  });

  it('drains: /readyz 503 (draining) first, then the listener closes and the store with it', async () => {
    running.readiness.startDrain();
    const r = await fetch(`${running.url}/readyz`);
    expect(r.status).toBe(503);
    expect(((await r.json()) as { failed: string[] }).failed).toEqual(['not_draining']);
    expect(r.headers.get('connection')).toBe('close');
    await running.drain();
    await expect(fetch(`${running.url}/healthz`)).rejects.toThrow();
    expect(
      logged()
        .map((l) => l.event)
        .filter((e) => typeof e === 'string' && e.startsWith('drain')),
    ).toEqual(['drain_started', 'drain_requests_done', 'drain_deliveries_done', 'drain_done']);
  });
});
