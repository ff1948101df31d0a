// GET /domains/search over HTTP: the contract's shape, blank queries refused, long ones answered
// fast, sold names gone and a name another partner quoted shown as unavailable.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../harness.ts';
import { expectError, signedRequest, type Credential } from '../support/http.ts';

const V1 = '/api/partner/v1';
const HIGH = { search: 10_000, write: 10_000, reporting: 10_000 };
const search = (h: Harness, cred: Credential, q: string) =>
  signedRequest(h, cred, { path: `${V1}/domains/search`, query: `q=${encodeURIComponent(q)}` });

describe('GET /domains/search', () => {
  let h: Harness;
  let cred: Credential;
  let other: Credential;

  beforeAll(async () => {
    h = await startHarness({ inventorySize: 2000 });
    cred = await h.mint({ rate_limits: HIGH });
    other = await h.mint({ rate_limits: HIGH });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('answers up to five names by relevance, in the contract shape', async () => {
    const r = await search(h, cred, 'fresh coffee beans');
    expect(r.status, r.text).toBe(200);
    expect(r.body.q).toBe('fresh coffee beans');
    const results = r.body.results as { domain: string; score: number; available: boolean; category: string | null }[];
    expect(results.length).toBeGreaterThan(0);
    expect(results.length).toBeLessThanOrEqual(5);
    expect(results.map((x) => x.domain)).toEqual(expect.arrayContaining(['bestcoffeebeans.com', 'coffeebeanshop.com']));
    for (let i = 1; i < results.length; i++) expect(results[i]!.score).toBeLessThanOrEqual(results[i - 1]!.score);
    expect(results[0]).toMatchObject({ available: true, currency: 'USD', category: 'food-and-drink' });
  });

  it('finds names by meaning when none has the word', async () => {
    for (const [q, related] of [
      ['caffeine', /coffee|espresso|latte|mocha|tea/],
      ['physician', /doctor|clinic|medic/],
    ] as const) {
      const domains = ((await search(h, cred, q)).body.results as { domain: string }[]).map((x) => x.domain);
      expect(domains.length, q).toBeGreaterThan(0);
      expect(domains.filter((d) => related.test(d)).length, `${q}: ${domains.join(' ')}`).toBeGreaterThanOrEqual(
        Math.min(3, domains.length),
      );
    }
  });

  it.each(['', ' ', '   \t '])('refuses q=%j with 400 validation_error', async (q) => {
    expectError(await search(h, cred, q), 'validation_error');
  });

  it('answers a 1,000-character q quickly and refuses 1,001 characters', async () => {
    const long = 'coffee espresso '.repeat(63).slice(0, 1000);
    const started = performance.now();
    const r = await search(h, cred, long);
    expect(r.status, r.text).toBe(200);
    expect(performance.now() - started).toBeLessThan(1000);
    expectError(await search(h, cred, `${long}x`), 'validation_error');
  });

  it('drops a name once it is sold and marks one another partner quoted as unavailable', async () => {
    const quoted = await signedRequest(h, other, {
      method: 'POST',
      path: `${V1}/quotes`,
      body: { domain: 'baristabar.com' },
    });
    expect(quoted.status, quoted.text).toBe(200);
    const held = (await search(h, cred, 'baristabar')).body.results as { domain: string; available: boolean }[];
    expect(held.find((x) => x.domain === 'baristabar.com')?.available).toBe(false);
    expect(
      (await search(h, other, 'baristabar')).body.results.find((x: { domain: string }) => x.domain === 'baristabar.com')
        ?.available,
    ).toBe(true);

    const price = (await signedRequest(h, cred, { path: `${V1}/pricing`, query: 'domain=brewhouse.io' })).body
      .price_cents as number;
    const order = await signedRequest(h, cred, {
      method: 'POST',
      path: `${V1}/orders`,
      idempotencyKey: randomUUID(),
      body: { domain: 'brewhouse.io', expected_price: price, currency: 'USD', buyer: { email: 'a@example.com' } },
    });
    expect(order.status, order.text).toBe(201);
    expect((await search(h, cred, 'brewhouse')).body.results.map((x: { domain: string }) => x.domain)).not.toContain(
      'brewhouse.io',
    );
  });
});
