// End to end over HTTP through the public pipeline, with response validation on (the harness
// turns it on), so every answer here also matched the public document.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ensureSandboxUser } from '../../server/oauth/index.ts';
import { approve, register, SANDBOX_USER, tokenRequest } from '../oauth/support.ts';
import { startHarness, type Harness } from '../server/harness.ts';

let h: Harness;
let listed: { domain: string; price_cents: number };

beforeAll(async () => {
  h = await startHarness({ inventorySize: 300, dispatch: false });
  const [row] = await h.store.inventory.listings('sandbox', { tld: 'com' }, 'domain', { limit: 1 });
  listed = row!;
});
afterAll(() => h.close());
// A fresh window of the public rate limit (60 per 60 s per address) for every test.
beforeEach(() => h.clock.advance(61_000));

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${h.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
const get = (path: string) => fetch(`${h.baseUrl}${path}`);

async function expectError(res: Response, status: number, code: string) {
  const body = (await res.json()) as { code: string; message: string; request_id?: string };
  expect(res.status, JSON.stringify(body)).toBe(status);
  expect(body.code).toBe(code);
  expect(body.request_id).toBe(res.headers.get('x-request-id'));
  return body;
}

/** A pricing:read access token through the real authorization flow. */
async function pricingToken(): Promise<string> {
  await ensureSandboxUser(h.store, SANDBOX_USER);
  const redirect = 'http://127.0.0.1:9/callback';
  const client = await register(h.baseUrl, { redirect_uris: [redirect], client_name: 'public reads test' });
  const verifier = randomBytes(32).toString('base64url');
  const url = new URL(`${h.baseUrl}/oauth/authorize`);
  for (const [k, v] of Object.entries({
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: redirect,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    state: 'st',
    scope: 'pricing:read',
  })) {
    url.searchParams.set(k, v);
  }
  const code = new URL(await approve(h.baseUrl, url)).searchParams.get('code')!;
  const res = await tokenRequest(h.baseUrl, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirect,
    client_id: client.client_id,
    code_verifier: verifier,
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

describe('POST /api/domain/search', () => {
  it('masks prices without a token and shows them with a pricing:read token', async () => {
    const masked = await post('/api/domain/search', { q: listed.domain });
    expect(masked.status).toBe(200);
    expect(((await masked.json()) as { result: unknown }).result).toMatchObject({
      status: 'listed',
      price: null,
      price_masked: true,
    });
    const token = await pricingToken();
    const real = await post('/api/domain/search', { q: listed.domain }, { authorization: `Bearer ${token}` });
    expect(real.status).toBe(200);
    expect(((await real.json()) as { result: unknown }).result).toMatchObject({
      status: 'listed',
      price: listed.price_cents,
      price_masked: false,
    });
  });

  it('refuses an invalid token with 401 and a bad query with 400', async () => {
    await expectError(
      await post('/api/domain/search', { q: listed.domain }, { authorization: 'Bearer not-a-token' }),
      401,
      'invalid_token',
    );
    await expectError(await post('/api/domain/search', { q: 'www.a.b.com' }), 400, 'validation_error');
    await expectError(await post('/api/domain/search', { q: '' }), 400, 'validation_error');
  });
});

describe('POST /api/tools/whois', () => {
  it('answers a sandbox domain and is 404 for a name nobody has', async () => {
    const res = await post('/api/tools/whois', { domain: listed.domain });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ objectClassName: 'domain', domain: listed.domain });
    await expectError(await post('/api/tools/whois', { domain: 'never-registered-zq.com' }), 404, 'not_found');
  });
});

describe('TLD prices and metadata', () => {
  it('answers prices, one action, and the metadata; 404 for an unknown TLD; 400 for a bad action', async () => {
    const all = await get('/api/pricing/tld?tld=com');
    expect(all.status).toBe(200);
    expect(((await all.json()) as { prices: object }).prices).toHaveProperty('restore');
    const one = await get('/api/pricing/tld?tld=io&action=renew');
    expect(await one.json()).toMatchObject({ tld: 'io', action: 'renew', price: expect.any(Number) });
    await expectError(await get('/api/pricing/tld?tld=zz'), 404, 'not_found');
    await expectError(await get('/api/pricing/tld?tld=com&action=sell'), 400, 'validation_error');
    await expectError(await get('/api/pricing/tld'), 400, 'validation_error');
    const meta = await get('/api/tlds/de/metadata');
    expect(await meta.json()).toMatchObject({ tld: 'de', organization: { local_presence_required: true } });
    await expectError(await get('/api/tlds/zz/metadata'), 404, 'not_found');
  });
});

describe('GET /api/market/listings', () => {
  it('walks the whole filtered set by cursor, each row once, total right', async () => {
    const all = await h.store.db
      .selectFrom('inventory')
      .select('domain')
      .where('environment', '=', 'sandbox')
      .where('status', '=', 'listed')
      .where('tld', '=', 'com')
      .execute();
    const want = all.map((r) => r.domain).sort();
    const seen: string[] = [];
    let next: string | null = null;
    let total: number;
    do {
      const res = await get(
        `/api/market/listings?tld=com&limit=40${next ? `&cursor=${encodeURIComponent(next)}` : ''}`,
      );
      expect(res.status).toBe(200);
      const body = (await res.json()) as {
        data: { domain: string }[];
        page: { next_cursor: string | null; total: number };
      };
      seen.push(...body.data.map((l) => l.domain));
      next = body.page.next_cursor;
      total = body.page.total;
    } while (next);
    expect(seen).toEqual(want);
    expect(total).toBe(want.length);
  });

  it('refuses a cursor reused with another sort, a tampered one, and out-of-range parameters', async () => {
    const first = (await (await get('/api/market/listings?limit=2&sort=price_asc')).json()) as {
      page: { next_cursor: string };
    };
    await expectError(
      await get(`/api/market/listings?sort=price_desc&cursor=${encodeURIComponent(first.page.next_cursor)}`),
      400,
      'invalid_cursor',
    );
    await expectError(
      await get(`/api/market/listings?sort=price_asc&cursor=${encodeURIComponent(`${first.page.next_cursor}x`)}`),
      400,
      'invalid_cursor',
    );
    await expectError(await get('/api/market/listings?limit=101'), 400, 'validation_error');
    await expectError(await get('/api/market/listings?min_price=500&max_price=100'), 400, 'validation_error');
    await expectError(await get('/api/market/listings?sort=random'), 400, 'validation_error');
  });

  it('returns next_cursor on an offset page and the default page of 20', async () => {
    const res = await get('/api/market/listings?offset=5');
    const body = (await res.json()) as {
      data: unknown[];
      page: { next_cursor: string | null; limit: number; offset: number };
    };
    expect(body.data).toHaveLength(20);
    expect(body.page).toMatchObject({ limit: 20, offset: 5, next_cursor: expect.any(String) });
  });
});

describe('batch', () => {
  it('serves the catalogue', async () => {
    const res = await get('/api/batch');
    expect(res.status).toBe(200);
    expect(((await res.json()) as { max_operations: number }).max_operations).toBe(20);
  });

  it('runs a mixed batch, each entry with its own status', async () => {
    const res = await post('/api/batch', {
      operations: [
        { id: 's1', op: 'search_domain', params: { q: listed.domain } },
        { id: 'p1', op: 'tld_registration_price', params: { tld: 'io', op: 'renew' } },
        { id: 'w1', op: 'whois_lookup', params: { domain: 'never-registered-zq.net' } },
        { id: 'x1', op: 'domain_appraisal', params: { domain: listed.domain } },
        { id: 'b1', op: 'tld_requirements', params: { tld: 'COM' } },
        // An unknown op is the entry's own 400 however long it is, never the whole batch's.
        { id: 'x2', op: 'x'.repeat(300), params: {} },
      ],
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { results: { id: string; status: number; body: { code?: string } }[] };
    expect(body.results.map((r) => [r.id, r.status, r.body.code])).toEqual([
      ['s1', 200, undefined],
      ['p1', 200, undefined],
      ['w1', 404, 'not_found'],
      ['x1', 400, 'validation_error'],
      ['b1', 400, 'validation_error'],
      ['x2', 400, 'validation_error'],
    ]);
  });

  it('refuses 21 operations and duplicate ids as a whole', async () => {
    const ops = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ id: `e${i}`, op: 'tld_requirements', params: { tld: 'com' } }));
    await expectError(await post('/api/batch', { operations: ops(21) }), 400, 'validation_error');
    await expectError(
      await post('/api/batch', {
        operations: [...ops(2), { id: 'e0', op: 'tld_requirements', params: { tld: 'io' } }],
      }),
      400,
      'validation_error',
    );
  });

  it('counts one call per entry: once the quota runs out the remaining entries are 429 and the headers show it spent', async () => {
    const ops = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ id: `e${i}`, op: 'tld_requirements', params: { tld: 'com' } }));
    for (let i = 0; i < 2; i++) expect((await post('/api/batch', { operations: ops(20) })).status).toBe(200);
    for (let i = 0; i < 10; i++) expect((await get('/api/tlds/com/metadata')).status).toBe(200);
    // 50 calls so far: this request is the 51st, covering its first entry; entries 2-10 take 52-60.
    const res = await post('/api/batch', { operations: ops(20) });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { results: { status: number; body: { code?: string } }[] };
    expect(body.results.map((r) => r.status)).toEqual([...Array(10).fill(200), ...Array(10).fill(429)]);
    expect(body.results[10]!.body.code).toBe('rate_limited');
    expect(res.headers.get('ratelimit-remaining')).toBe('0');
    await expectError(await post('/api/batch', { operations: ops(1) }), 429, 'rate_limited');
  });
});
