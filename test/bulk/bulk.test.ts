// POST /api/domains/bulk/{op} through the whole reference server: the pipeline's token rules,
// validation and idempotency in front of the handler, a real token from the OAuth flow, and the
// sandbox user's seeded domains.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addYears } from '../../server/bulk/operations.ts';
import { runBulk } from '../../server/bulk/run.ts';
import { SANDBOX_USER_DOMAINS } from '../../server/bulk/seed.ts';
import { schemaErrors } from '../mcp/support.ts';
import { signIn, startTestServer, type TestServer } from './support.ts';

let server: TestServer;
let manage: string;
let pricingOnly: string;

beforeAll(async () => {
  server = await startTestServer();
  manage = await signIn(server.url, 'domains:manage');
  pricingOnly = await signIn(server.url, 'pricing:read');
  // Someone else's domain, which the sandbox user must not be able to touch or even see.
  await server.store.userDomains.insertIfAbsent(
    'usr_someone_else',
    [
      {
        domain: 'someoneelses.com',
        expiresAt: Date.parse('2028-01-01T00:00:00Z'),
        locked: false,
        autoRenew: false,
        nameservers: ['ns1.other.net', 'ns2.other.net'],
      },
    ],
    Date.now(),
  );
});
afterAll(async () => {
  await server.close();
});

function bulk(op: string, body: unknown, token: string | null = manage, headers: Record<string, string> = {}) {
  return fetch(`${server.url}/api/domains/bulk/${op}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    body: JSON.stringify(body),
  });
}

async function owned(domain: string) {
  return (await server.store.userDomains.findOwned(server.userId, [domain])).get(domain);
}

interface BulkBody {
  op: string;
  results: Array<{
    domain: string;
    status: 'ok' | 'error';
    error?: { code: string; message: string };
    state?: { expires_at: string; locked: boolean; auto_renew: boolean; nameservers: string[] };
  }>;
  summary: { ok: number; error: number };
}

describe('authentication', () => {
  it('the sandbox user starts with its documented domains', async () => {
    const mine = await server.store.userDomains.listOwned(server.userId);
    expect(mine.map((d) => d.domain).sort()).toEqual([...SANDBOX_USER_DOMAINS].sort());
    expect(mine.length).toBeGreaterThanOrEqual(20);
  });

  it('no token: 401 missing_credentials with a challenge naming domains:manage', async () => {
    const res = await bulk('lock', { domains: [SANDBOX_USER_DOMAINS[0]] }, null);
    expect(res.status).toBe(401);
    expect(((await res.json()) as { code: string }).code).toBe('missing_credentials');
    const challenge = res.headers.get('www-authenticate') ?? '';
    expect(challenge).toMatch(/^Bearer /);
    expect(challenge).toContain(`resource_metadata="${server.url}/.well-known/oauth-protected-resource"`);
    expect(challenge).toContain('scope="domains:manage"');
    expect(challenge).not.toContain('error=');
  });

  it('a bad token: 401 invalid_token', async () => {
    const res = await bulk('lock', { domains: [SANDBOX_USER_DOMAINS[0]] }, 'at_not-a-real-token');
    expect(res.status).toBe(401);
    expect(((await res.json()) as { code: string }).code).toBe('invalid_token');
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('a token without domains:manage: 403 insufficient_scope, and nothing changes', async () => {
    const domain = SANDBOX_USER_DOMAINS[1] as string;
    const before = await owned(domain);
    const res = await bulk('unlock', { domains: [domain] }, pricingOnly);
    expect(res.status).toBe(403);
    expect(((await res.json()) as { code: string }).code).toBe('insufficient_scope');
    expect(res.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
    expect(res.headers.get('www-authenticate')).toContain('scope="domains:manage"');
    expect(await owned(domain)).toEqual(before);
  });
});

describe('operations', () => {
  it('set_nameservers: results in request order, someone else’s domain fails alone as not_found', async () => {
    const domains = [
      SANDBOX_USER_DOMAINS[2] as string,
      'someoneelses.com',
      'never-registered-anywhere.com',
      SANDBOX_USER_DOMAINS[3] as string,
    ];
    const nameservers = ['ns1.exampledns.net', 'ns2.exampledns.net'];
    const res = await bulk('set_nameservers', { domains, params: { nameservers } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as BulkBody;
    expect(schemaErrors('BulkResponse', body)).toBeNull();
    expect(body.op).toBe('set_nameservers');
    expect(body.results.map((r) => r.domain)).toEqual(domains);
    expect(body.results.map((r) => r.status)).toEqual(['ok', 'error', 'error', 'ok']);
    // Unknown and foreign are deliberately indistinguishable.
    expect(body.results[1]?.error).toEqual({
      code: 'not_found',
      message: 'Domain "someoneelses.com" is not in your account',
    });
    expect(body.results[2]?.error?.code).toBe('not_found');
    expect(body.summary).toEqual({ ok: 2, error: 2 });
    expect(body.results[0]?.state?.nameservers).toEqual(nameservers);
    expect((await owned(domains[0] as string))?.nameservers).toEqual(nameservers);
    expect((await owned(domains[3] as string))?.nameservers).toEqual(nameservers);
    const foreign = (await server.store.userDomains.findOwned('usr_someone_else', ['someoneelses.com'])).get(
      'someoneelses.com',
    );
    expect(foreign?.nameservers).toEqual(['ns1.other.net', 'ns2.other.net']);
  });

  it('lock, unlock and set_auto_renew are persisted', async () => {
    const domains = SANDBOX_USER_DOMAINS.slice(4, 7);
    expect((await bulk('lock', { domains })).status).toBe(200);
    for (const d of domains) expect((await owned(d))?.locked, d).toBe(true);
    const unlocked = (await (await bulk('unlock', { domains })).json()) as BulkBody;
    expect(unlocked.results.every((r) => r.status === 'ok' && r.state?.locked === false)).toBe(true);
    for (const d of domains) expect((await owned(d))?.locked, d).toBe(false);
    for (const enabled of [true, false]) {
      const res = (await (await bulk('set_auto_renew', { domains, params: { enabled } })).json()) as BulkBody;
      expect(res.summary.ok).toBe(3);
      for (const d of domains) expect((await owned(d))?.autoRenew, `${d} ${enabled}`).toBe(enabled);
    }
  });

  it('renew adds years to the expiry; past the maximum term or in redemption a domain fails alone', async () => {
    const domain = SANDBOX_USER_DOMAINS[7] as string;
    const before = (await owned(domain))?.expiresAt as number;
    const res = (await (
      await bulk('renew', { domains: [domain, 'sandbox-redemption.com'], params: { years: 2 } })
    ).json()) as BulkBody;
    expect(res.results[0]?.status).toBe('ok');
    expect(Date.parse(res.results[0]?.state?.expires_at as string)).toBe(addYears(before, 2));
    expect((await owned(domain))?.expiresAt).toBe(addYears(before, 2));
    expect(res.results[1]?.error?.code).toBe('invalid_state');
    // About 3 years left now: 8 more passes ten years from today; the next domain has about 1.
    const tooLong = (await (
      await bulk('renew', { domains: [domain, SANDBOX_USER_DOMAINS[8]], params: { years: 8 } })
    ).json()) as BulkBody;
    expect(tooLong.results[0]?.error?.code).toBe('validation_error');
    expect((await owned(domain))?.expiresAt).toBe(addYears(before, 2));
    expect(tooLong.results[1]?.status).toBe('ok');
  });

  it('the maximum term is the TLD’s own: five years on .co', async () => {
    const co = SANDBOX_USER_DOMAINS.find((d) => d.endsWith('.co')) as string;
    const com = SANDBOX_USER_DOMAINS.find((d, i) => i > 10 && d.endsWith('.com')) as string;
    const res = (await (await bulk('renew', { domains: [co, com], params: { years: 5 } })).json()) as BulkBody;
    expect(res.results[0]?.error?.code).toBe('validation_error');
    expect(res.results[0]?.error?.message).toContain('5 years');
    expect(res.results[1]?.status).toBe('ok');
  });

  it('a replayed Idempotency-Key does not renew twice', async () => {
    const domain = SANDBOX_USER_DOMAINS[9] as string;
    const before = (await owned(domain))?.expiresAt as number;
    const first = await bulk('renew', { domains: [domain], params: { years: 1 } }, manage, {
      'idempotency-key': 'renew-once-1',
    });
    const second = await bulk('renew', { domains: [domain], params: { years: 1 } }, manage, {
      'idempotency-key': 'renew-once-1',
    });
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await second.text()).toBe(await first.text());
    expect((await owned(domain))?.expiresAt).toBe(addYears(before, 1));
  });

  it('one key sent to another path is 409 conflict naming the path, not the body (or both when both differ)', async () => {
    const domain = SANDBOX_USER_DOMAINS[11] as string;
    const key = { 'idempotency-key': 'lock-then-unlock-1' };
    expect((await bulk('lock', { domains: [domain] }, manage, key)).status).toBe(200);
    const other = await bulk('unlock', { domains: [domain] }, manage, key);
    expect(other.status).toBe(409);
    const body = (await other.json()) as { code: string; message: string };
    expect(body.code).toBe('conflict');
    expect(body.message).toBe('Idempotency-Key "lock-then-unlock-1" was used with a different method or path');
    const both = (await (await bulk('unlock', { domains: [domain, 'x.com'] }, manage, key)).json()) as {
      message: string;
    };
    expect(both.message).toContain('a different method or path and a different request body');
    const sameTarget = (await (await bulk('lock', { domains: ['x.com'] }, manage, key)).json()) as {
      message: string;
    };
    expect(sameTarget.message).toBe('Idempotency-Key "lock-then-unlock-1" was used with a different request body');
  });

  it('concurrent renewals of one domain both count', async () => {
    const domain = SANDBOX_USER_DOMAINS[10] as string;
    const before = (await owned(domain))?.expiresAt as number;
    const now = Date.now();
    const runs = await Promise.all(
      [1, 2, 3].map(() => runBulk(server.store, server.userId, { op: 'renew', years: 1 }, [domain], { now })),
    );
    expect(runs.every((r) => r.summary.ok === 1)).toBe(true);
    expect((await owned(domain))?.expiresAt).toBe(addYears(before, 3));
  });
});

describe('limits and validation', () => {
  it('1,000 owned domains in one request all succeed', async () => {
    const many = Array.from({ length: 1000 }, (_, i) => `bulk-${String(i).padStart(4, '0')}.com`);
    const expiresAt = Date.parse('2027-06-30T00:00:00Z');
    await server.store.userDomains.insertIfAbsent(
      server.userId,
      many.map((domain) => ({
        domain,
        expiresAt,
        locked: false,
        autoRenew: false,
        nameservers: ['ns1.a.net', 'ns2.a.net'],
      })),
      Date.now(),
    );
    const res = await bulk('renew', { domains: many, params: { years: 1 } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as BulkBody;
    expect(body.summary).toEqual({ ok: 1000, error: 0 });
    expect(body.results.map((r) => r.domain)).toEqual(many);
    const stored = await server.store.userDomains.findOwned(server.userId, many);
    expect([...stored.values()].every((d) => d.expiresAt === addYears(expiresAt, 1))).toBe(true);
  });

  it('1,001 domains is a 400 and nothing runs', async () => {
    const many = Array.from({ length: 1001 }, (_, i) => `bulk-${String(i).padStart(4, '0')}.com`);
    const res = await bulk('lock', { domains: many });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { code: string }).code).toBe('validation_error');
    expect((await owned('bulk-0000.com'))?.locked).toBe(false);
  });

  it.each([
    ['renew', { domains: ['harborlightbakery.com'] }],
    ['renew', { domains: ['harborlightbakery.com'], params: { years: 0 } }],
    ['renew', { domains: ['harborlightbakery.com'], params: { nameservers: ['ns1.a.net', 'ns2.a.net'] } }],
    ['set_nameservers', { domains: ['harborlightbakery.com'], params: { nameservers: ['ns1.a.net'] } }],
    ['set_auto_renew', { domains: ['harborlightbakery.com'], params: { enabled: 'on' } }],
    ['lock', { domains: ['harborlightbakery.com'], params: { enabled: true } }],
    ['lock', { domains: ['harborlightbakery.com', 'harborlightbakery.com'] }],
    ['lock', { domains: ['HarborLightBakery.com'] }],
    ['transfer_out', { domains: ['harborlightbakery.com'] }],
  ])('%s %j is a 400 validation_error', async (op, body) => {
    const before = await owned('harborlightbakery.com');
    const res = await bulk(op, body);
    expect(res.status).toBe(400);
    const error = (await res.json()) as { code: string; message: string };
    expect(error.code).toBe('validation_error');
    expect(error.message.length).toBeGreaterThan(10);
    expect(await owned('harborlightbakery.com')).toEqual(before);
  });
});
