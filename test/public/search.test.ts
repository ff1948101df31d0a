import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../server/http/errors.ts';
import { createPublicReads } from '../../server/public-api/reads.ts';
import type { PublicReads } from '../../server/public-api/reads-service.ts';
import type { InventoryRecord } from '../../server/store/inventory.ts';
import type { Store } from '../../server/store/index.ts';
import { assertSchema, depsFor, memoryStore, viewer } from './support.ts';

let store: Store;
let reads: PublicReads;
let listed: InventoryRecord;
let sold: InventoryRecord;

beforeAll(async () => {
  store = await memoryStore(300);
  reads = createPublicReads(depsFor(store));
  const rows: InventoryRecord[] = [];
  for await (const r of store.inventory.listedRows('sandbox'))
    rows.push((await store.inventory.find('sandbox', r.domain))!);
  listed = rows.find((r) => r.tld === 'com')!;
  sold = rows.find((r) => r.tld === 'com' && r.domain !== listed.domain)!;
  expect(await store.inventory.markSold('sandbox', sold.domain)).toBe(true);
});
afterAll(() => store.close());

const PRICING = viewer(['pricing:read']);

async function registerPrice(tld: string): Promise<number | null | undefined> {
  return (await reads.tldPrice({ tld, action: 'register' })).price;
}

async function rejects(q: string): Promise<ApiError> {
  const err = await reads.searchDomain({ q }, undefined).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

describe('searchDomain', () => {
  it('answers a listed domain with its marketplace price for a pricing:read viewer', async () => {
    const body = await reads.searchDomain({ q: listed.domain }, PRICING);
    assertSchema('DomainSearchResponse', body);
    expect(body.query).toBe(listed.domain);
    expect(body.result).toEqual({
      domain: listed.domain,
      tld: 'com',
      available: true,
      status: 'listed',
      price: listed.price_cents,
      currency: 'USD',
      price_masked: false,
    });
  });

  it('masks every existing price without a viewer, and says so', async () => {
    const body = await reads.searchDomain({ q: listed.domain }, undefined);
    assertSchema('DomainSearchResponse', body);
    expect(body.result).toMatchObject({ status: 'listed', price: null, price_masked: true });
    for (const alt of body.alternatives) {
      expect(alt.price).toBeNull();
      expect(alt.price_masked).toBe(alt.status !== 'taken');
    }
  });

  it('masks prices for a valid token without pricing:read', async () => {
    const body = await reads.searchDomain({ q: listed.domain }, viewer(['domains:manage']));
    expect(body.result).toMatchObject({ price: null, price_masked: true });
  });

  it('reports a sold domain as taken, with no price to mask', async () => {
    for (const v of [undefined, PRICING]) {
      const body = await reads.searchDomain({ q: sold.domain }, v);
      expect(body.result).toEqual({
        domain: sold.domain,
        tld: 'com',
        available: false,
        status: 'taken',
        price: null,
        currency: 'USD',
        price_masked: false,
      });
    }
  });

  it('prices an unregistered name at the TLD registration price (the same as GET /api/pricing/tld)', async () => {
    const body = await reads.searchDomain({ q: 'zqxw-unlisted-name.io' }, PRICING);
    expect(body.result).toMatchObject({
      domain: 'zqxw-unlisted-name.io',
      status: 'unregistered',
      available: true,
      price_masked: false,
    });
    expect(body.result.price).toBe(await registerPrice('io'));
    for (const alt of body.alternatives) {
      expect(alt.status).toBe('unregistered');
      expect(alt.price).toBe(await registerPrice(alt.tld));
    }
  });

  it('searches a bare label as .com, trimmed and lowercased, with at most 10 siblings on other TLDs', async () => {
    const label = listed.domain.slice(0, -'.com'.length);
    const body = await reads.searchDomain({ q: `  ${label.toUpperCase()} ` }, PRICING);
    expect(body.query).toBe(listed.domain);
    expect(body.result.status).toBe('listed');
    expect(body.alternatives.length).toBe(10);
    expect(body.alternatives.map((a) => a.tld)).not.toContain('com');
    expect(new Set(body.alternatives.map((a) => a.tld)).size).toBe(10);
    for (const alt of body.alternatives) expect(alt.domain).toBe(`${label}.${alt.tld}`);
  });

  it('reports a listed sibling on another TLD as listed', async () => {
    const other = (await store.inventory.listings('sandbox', { tld: 'net' }, 'domain', { limit: 1 }))[0]!;
    const label = other.domain.slice(0, -'.net'.length);
    const body = await reads.searchDomain({ q: `${label}.com` }, PRICING);
    const net = body.alternatives.find((a) => a.tld === 'net');
    expect(net).toMatchObject({ domain: other.domain, status: 'listed', price: other.price_cents });
  });

  it('converts a Unicode name to its A-label', async () => {
    const body = await reads.searchDomain({ q: 'bücher.de' }, undefined);
    expect(body.query).toBe('xn--bcher-kva.de');
    assertSchema('DomainSearchResponse', body);
    // Siblings only on TLDs whose registry takes IDNs.
    for (const alt of body.alternatives) expect((await reads.tldMetadata({ tld: alt.tld })).idn_supported).toBe(true);
    expect(body.alternatives.map((a) => a.tld)).not.toContain('ai');
  });

  it.each(['   ', 'a..com', 'www.example.com', '-bad.com', 'bad-.com', 'with space.com', 'http://x.com', 'x.c0m1'])(
    'refuses %j with 400 validation_error',
    async (q) => {
      const err = await rejects(q);
      expect(err.code).toBe('validation_error');
      expect(err.details?.[0]?.path).toBe('/body/q');
    },
  );

  it('refuses a TLD the service does not offer, naming it', async () => {
    const err = await rejects('example.zz');
    expect(err.code).toBe('validation_error');
    expect(err.message).toContain('.zz');
  });
});
