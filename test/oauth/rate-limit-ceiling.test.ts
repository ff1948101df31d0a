// One user cannot multiply the public rate limit by registering OAuth clients (probe round 3,
// M1). The limit stays per authorization grant (client and user), and on top of it every grant
// of one user shares the `public_user` ceiling, so one user from one address gets at most that
// ceiling of priced answers a minute however many clients they register. Registration itself has
// its own hourly budget per address (`registration`), whatever bearer token is sent. Every figure
// is read from the public document's x-rate-limit-classes.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTransport } from '../../conformance/bundle/transport.mjs';
import { ensureSandboxUser } from '../../server/oauth/index.ts';
import { documents, obj } from '../docs/support.ts';
import { startHarness, type Harness } from '../server/harness.ts';
import { approve, register, SANDBOX_USER, tokenRequest, type Registered } from './support.ts';

const REDIRECT = 'http://127.0.0.1:33418/callback';
const classes = obj(documents.public['x-rate-limit-classes']);
const classOf = (name: string) => {
  const c = obj(classes[name]);
  return { quota: Number(c.quota), window: Number(c['window-seconds']), per: c.per, ceilingOf: c['ceiling-of'] };
};

describe('the public rate limit and client registration (x-rate-limit-classes)', () => {
  let h: Harness;
  let base: string;
  beforeAll(async () => {
    h = await startHarness({ inventorySize: 20, dispatch: false });
    base = h.baseUrl;
    await ensureSandboxUser(h.store, SANDBOX_USER);
  });
  afterAll(() => h?.close());
  // Fresh windows of every class for each test (the longest is the registration hour).
  beforeEach(() => h.clock.advance(Math.max(...Object.keys(classes).map((c) => classOf(c).window)) * 1000 + 1000));

  /** A token of the sandbox user for a client, through the browser flow (PKCE S256). */
  async function tokenFor(client: Registered): Promise<string> {
    const verifier = randomBytes(32).toString('base64url');
    const url = new URL(`${base}/oauth/authorize`);
    for (const [k, v] of Object.entries({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      state: 's',
    }))
      url.searchParams.set(k, v);
    const code = new URL(await approve(base, url)).searchParams.get('code') ?? '';
    const res = await tokenRequest(base, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      client_id: client.client_id,
      code_verifier: verifier,
    });
    expect(res.status, await res.clone().text()).toBe(200);
    return ((await res.json()) as { access_token: string }).access_token;
  }

  const search = (token: string) =>
    fetch(`${base}/api/domain/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ q: 'bestcoffeebeans.com' }),
    });

  it('states the ceiling over the grants of one user and the registration budget', () => {
    expect(classOf('public')).toMatchObject({ quota: 60, window: 60 });
    expect(classOf('public_user')).toMatchObject({ per: 'user', ceilingOf: 'public', window: 60 });
    expect(classOf('public_user').quota).toBeGreaterThanOrEqual(classOf('public').quota);
    expect(classOf('registration')).toMatchObject({ per: 'address' });
    const register = obj(obj(obj(documents.public.paths)['/api/oauth/register']).post);
    expect(register['x-rate-limit']).toBe('registration');
    expect(String(register.description)).toMatch(/own class[\s\S]*public_user/);
  });

  it('one user from one address gets at most the public_user ceiling of priced answers a minute, however many clients they register', async () => {
    const grant = classOf('public').quota;
    const ceiling = classOf('public_user').quota;
    // Enough clients that, each with its own grant, they would together have far more.
    const clients = Math.ceil(ceiling / grant) + 2;
    const tokens: string[] = [];
    for (let i = 0; i < clients; i++)
      tokens.push(await tokenFor(await register(base, { client_name: `Multiplier ${i}`, redirect_uris: [REDIRECT] })));

    let priced = 0;
    const perClient: number[] = [];
    let refusals: Array<{ res: Response; code: unknown }> = [];
    for (const token of tokens) {
      let mine = 0;
      refusals = [];
      for (let i = 0; i < grant + 2; i++) {
        const res = await search(token);
        if (res.status === 200) {
          const body = (await res.json()) as { result: { price_masked: boolean } };
          if (!body.result.price_masked) priced++;
          mine++;
        } else {
          expect(res.status).toBe(429);
          refusals.push({ res, code: ((await res.json()) as { code: unknown }).code });
        }
      }
      perClient.push(mine);
    }
    expect(priced).toBe(ceiling);
    for (const n of perClient) expect(n).toBeLessThanOrEqual(grant);
    // The ceiling refused the clients the user registered past it, from their first call.
    expect(perClient.at(-1)).toBe(0);
    const { res: last, code } = refusals[0]!;
    expect(last.headers.get('ratelimit-policy')).toBe(`"public_user";q=${ceiling};w=${classOf('public_user').window}`);
    expect(last.headers.get('ratelimit-remaining')).toBe('0');
    expect(Number(last.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(code).toBe('rate_limited');

    // The next minute, the user has the ceiling again (and each grant its 60).
    h.clock.advance(classOf('public_user').window * 1000 + 1000);
    expect((await search(tokens[0]!)).status).toBe(200);
  });

  it('names whichever window has fewer calls left: the grant on a tie, the user when other clients spent more', async () => {
    const [a, b, c] = await Promise.all(
      ['A', 'B', 'C'].map((n) => register(base, { client_name: `Client ${n}`, redirect_uris: [REDIRECT] })),
    );
    const ta = await tokenFor(a!);
    const tb = await tokenFor(b!);
    const tc = await tokenFor(c!);
    const first = await search(ta);
    expect(first.headers.get('ratelimit-policy')).toBe('"public";q=60;w=60');
    expect(first.headers.get('ratelimit-remaining')).toBe('59');
    for (let i = 0; i < 59; i++) expect((await search(ta)).status).toBe(200);
    for (let i = 0; i < 40; i++) expect((await search(tb)).status).toBe(200);
    // A spent 60 and B 40: the user has 20 left of 120, C's grant 59 of 60.
    const fromC = await search(tc);
    expect(fromC.status).toBe(200);
    expect(fromC.headers.get('ratelimit-policy')).toBe('"public_user";q=120;w=60');
    expect(fromC.headers.get('ratelimit')).toMatch(/^"public_user";r=19;t=\d+$/);
    expect(fromC.headers.get('ratelimit-remaining')).toBe('19');
    // A's own window is spent: its refusal names the grant's window.
    const fromA = await search(ta);
    expect(fromA.status).toBe(429);
    expect(fromA.headers.get('ratelimit-policy')).toBe('"public";q=60;w=60');
  });

  it('bounds registration per address, whatever token is sent: 429 rate_limited with Retry-After and the registration policy', async () => {
    const { quota, window } = classOf('registration');
    const body = JSON.stringify({ client_name: 'Registrar', redirect_uris: [REDIRECT] });
    const token = await tokenFor(await register(base, { client_name: 'Token holder', redirect_uris: [REDIRECT] }));
    const from = (address: string) => {
      const send = createTransport({ localAddress: address });
      return (headers: Record<string, string> = {}, sent = body) =>
        send(`${base}/api/oauth/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: sent,
        });
    };
    const one = from('127.0.0.1');
    // The token holder registered once from this address already; refused registrations count too.
    const bad = await one({}, JSON.stringify({ client_name: 'Bad', redirect_uris: ['http://evil.example/cb'] }));
    expect(bad.status).toBe(400);
    await bad.body?.cancel();
    for (let i = 2; i < quota; i++) {
      const res = await one(i % 2 ? { authorization: `Bearer ${token}` } : {});
      expect(res.status, `registration ${i + 1}`).toBe(201);
      await res.body?.cancel();
    }
    for (const headers of [{}, { authorization: `Bearer ${token}` }] as Array<Record<string, string>>) {
      const refused = await one(headers);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('ratelimit-policy')).toBe(`"registration";q=${quota};w=${window}`);
      expect(refused.headers.get('ratelimit-remaining')).toBe('0');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(refused.headers.get('cache-control')).toBe('no-store');
      expect(await refused.json()).toMatchObject({ code: 'rate_limited' });
    }
    // Another address has its own budget; this one gets its own back after the window.
    const other = await from('127.0.0.2')();
    expect(other.status, await other.clone().text()).toBe(201);
    h.clock.advance(window * 1000);
    expect((await one()).status).toBe(201);
  });
});
