// The public listings checks under concurrent sales: in a full run the partner families sell
// sandbox domains (orders) while the public lane walks GET /api/market/listings, so a listing
// set read earlier goes stale. The contract allows that (a cursor traversal sees every row that
// existed throughout it exactly once, even while listings are added or sold); the checks must
// not cry wolf. Here a seller buys listed domains without pause while the family runs.
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpRecorder, jsonOf } from '../../conformance/http.ts';
import { runConformance, startReferenceServer } from '../../conformance/run.ts';

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

/** Sells listed domains one after the other, chosen across the whole list, until `until` settles. */
async function sellWhile(url: string, adminToken: string, until: Promise<unknown>): Promise<number> {
  const minted = await fetch(`${url}/api/admin/v1/credentials`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      environment: 'sandbox',
      scopes: ['search', 'buy'],
      rate_limits: { search: 100_000, write: 100_000, reporting: 100_000 },
    }),
  });
  const { key_id: keyId, secret } = (await minted.json()) as { key_id: string; secret: string };
  const http = new HttpRecorder(url);
  // The whole list first (public reads are rate-limited per address), then sales across it.
  const listings: Array<{ domain: string; price: number; currency: string }> = [];
  for (let offset = 0; offset < 2000; offset += 100) {
    const page = await fetch(`${url}/api/market/listings?sort=domain&limit=100&offset=${offset}`);
    expect(page.status).toBe(200);
    const rows = ((await page.json()) as { data: typeof listings }).data;
    listings.push(...rows);
    if (rows.length < 100) break;
  }
  let done = false;
  void until.finally(() => (done = true));
  let sold = 0;
  for (let i = 0; !done && i < listings.length; i++) {
    const listing = listings[(i * 37) % listings.length]!;
    const order = await http.signed({
      method: 'POST',
      target: '/api/partner/v1/orders',
      credentials: { keyId, secret },
      headers: { 'Idempotency-Key': randomUUID() },
      body: JSON.stringify({
        domain: listing.domain,
        expected_price: listing.price,
        currency: listing.currency,
        buyer: { email: 'seller@example.com' },
      }),
      rateClass: 'write',
    });
    if (order.status === 201) sold++;
    else if (order.status >= 500)
      throw new Error(`selling ${listing.domain}: ${order.status} ${JSON.stringify(jsonOf(order))}`);
  }
  return sold;
}

describe('public listings checks while domains are sold', () => {
  it('pass on a healthy server that sells listed domains during the walks', async () => {
    const server = await startReferenceServer();
    stop = server.stop;
    const run = runConformance({
      baseUrl: server.url,
      only: ['public-pagination'],
      seed: 11,
      numRuns: 25,
      reference: true,
    });
    const sold = await sellWhile(server.url, server.adminToken, run);
    const { results } = await run;
    // The walks really ran beside the sales.
    expect(sold).toBeGreaterThan(20);
    expect(results.filter((r) => r.status !== 'passed').map((r) => `${r.id}: ${r.message ?? ''}`)).toEqual([]);
  }, 240_000);
});
