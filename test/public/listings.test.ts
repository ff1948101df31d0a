import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeCursor } from '../../server/domain/cursor.ts';
import { ApiError } from '../../server/http/errors.ts';
import { listMarketListings } from '../../server/public-api/listings.ts';
import { parseListingQuery } from '../../server/public-api/listings-query.ts';
import type { Store } from '../../server/store/index.ts';
import { databases } from '../server/support/http.ts';
import { assertSchema, memoryStore } from './support.ts';

const KEY = randomBytes(32);
const TLDS = ['com', 'io', 'net'];
const PRICES = [100_000, 150_000, 150_000, 200_000, 250_000];
const TIMES = [
  Date.parse('2026-01-01T00:00:00Z'),
  Date.parse('2026-02-01T00:00:00Z'),
  Date.parse('2026-03-01T00:00:00.500Z'),
];
const WORDS = ['coffee', 'bean', 'cart', 'roast', 'brew', 'cup'];

interface Row {
  domain: string;
  tld: string;
  price_cents: number;
  listed_at: number;
}

/** A tie-heavy inventory: few prices and listing times, so sort keys repeat and the domain tie-break matters. */
function tieRows(count: number, salt = ''): Row[] {
  return Array.from({ length: count }, (_, i) => {
    const tld = TLDS[i % TLDS.length]!;
    const label = `${WORDS[i % WORDS.length]}${WORDS[(i * 7 + 3) % WORDS.length]}${salt}${i}`;
    return {
      domain: `${label}.${tld}`,
      tld,
      price_cents: PRICES[(i * 3) % PRICES.length]!,
      listed_at: TIMES[(i * 5) % TIMES.length]!,
    };
  });
}

async function insert(store: Store, rows: Row[]): Promise<void> {
  if (rows.length === 0) return;
  await store.db
    .insertInto('inventory')
    .values(
      rows.map((r) => ({
        environment: 'sandbox' as const,
        domain: r.domain,
        label: r.domain.slice(0, r.domain.indexOf('.')),
        tld: r.tld,
        price_cents: r.price_cents,
        floor_cents: r.price_cents,
        currency: 'USD',
        status: 'listed' as const,
        category: 'uncategorised',
        keywords: '[]',
        listed_at: r.listed_at,
      })),
    )
    .execute();
}

async function storeWith(rows: Row[], databaseUrl?: string): Promise<Store> {
  const store = await memoryStore(0, databaseUrl);
  await insert(store, rows);
  // Rows of the other environment and sold rows must never show.
  await store.db
    .insertInto('inventory')
    .values({
      environment: 'live',
      domain: 'livecoffee.com',
      label: 'livecoffee',
      tld: 'com',
      price_cents: 1,
      floor_cents: 1,
      currency: 'USD',
      status: 'listed',
      category: 'x',
      keywords: '[]',
      listed_at: 0,
    })
    .execute();
  return store;
}

/** The listed sandbox rows, read with plain SQL (not through the code under test). */
async function listedRows(store: Store): Promise<Row[]> {
  return store.db
    .selectFrom('inventory')
    .select(['domain', 'tld', 'price_cents', 'listed_at'])
    .where('environment', '=', 'sandbox')
    .where('status', '=', 'listed')
    .execute();
}

interface Params {
  tld?: string | undefined;
  min_price?: number | undefined;
  max_price?: number | undefined;
  q?: string | undefined;
  sort?: 'domain' | 'price_asc' | 'price_desc' | 'newest' | undefined;
}

const byDomain = (a: Row, b: Row) => (a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : 0);

/** The filtered, sorted set as the spec describes it, computed independently. */
function expected(rows: Row[], p: Params): string[] {
  const filtered = rows.filter(
    (r) =>
      (p.tld === undefined || r.tld === p.tld) &&
      (p.min_price === undefined || r.price_cents >= p.min_price) &&
      (p.max_price === undefined || r.price_cents <= p.max_price) &&
      (p.q === undefined || r.domain.includes(p.q.toLowerCase())),
  );
  const sort = p.sort ?? 'domain';
  const cmp: Record<string, (a: Row, b: Row) => number> = {
    domain: byDomain,
    price_asc: (a, b) => a.price_cents - b.price_cents || byDomain(a, b),
    price_desc: (a, b) => b.price_cents - a.price_cents || byDomain(a, b),
    newest: (a, b) => b.listed_at - a.listed_at || byDomain(a, b),
  };
  return filtered.sort(cmp[sort]).map((r) => r.domain);
}

function query(p: Params, extra: Record<string, unknown> = {}) {
  const raw: Record<string, unknown> = { ...extra };
  for (const [k, v] of Object.entries(p)) if (v !== undefined) raw[k] = String(v);
  return parseListingQuery(raw);
}

const page = (store: Store, p: Params, extra: Record<string, unknown> = {}) =>
  listMarketListings(store, KEY, query(p, extra));

async function cursorWalk(store: Store, p: Params, limit: number, between: () => Promise<void> = async () => {}) {
  const seen: string[] = [];
  let cursor: string | null | undefined;
  let pages = 0;
  do {
    const body = await page(store, p, { limit, ...(cursor ? { cursor } : {}) });
    seen.push(...body.data.map((l) => l.domain));
    cursor = body.page.next_cursor;
    if (++pages > 200) throw new Error('the walk does not end');
    await between();
  } while (cursor);
  return seen;
}

async function offsetWalk(store: Store, p: Params, limit: number) {
  const seen: string[] = [];
  for (let offset = 0; ; offset += limit) {
    const body = await page(store, p, { limit, offset });
    seen.push(...body.data.map((l) => l.domain));
    if (offset + limit >= body.page.total) {
      expect(body.page.next_cursor).toBeNull();
      return seen;
    }
    expect(body.page.next_cursor).toEqual(expect.any(String));
  }
}

const params: fc.Arbitrary<Params> = fc
  .record(
    {
      tld: fc.constantFrom(...TLDS),
      min_price: fc.constantFrom(...PRICES, 0, 175_000),
      max_price: fc.constantFrom(...PRICES, 999_999),
      q: fc.constantFrom('coffee', 'BEAN', 'c', 'roastbrew', '1', 'zz'),
      sort: fc.constantFrom('domain', 'price_asc', 'price_desc', 'newest'),
    },
    { requiredKeys: [] },
  )
  .filter((p) => p.min_price === undefined || p.max_price === undefined || p.min_price <= p.max_price);

describe.each(databases())('listing traversal properties ($name)', (db) => {
  const runs = (n: number) => (db.databaseUrl ? Math.ceil(n / 3) : n);
  let store: Store;
  let rows: Row[];
  beforeAll(async () => {
    store = await storeWith(tieRows(90), db.databaseUrl);
    rows = await listedRows(store);
  });
  afterAll(() => store.close());

  it('cursor walk = offset walk = the filtered set, no duplicates, total right', async () => {
    await fc.assert(
      fc.asyncProperty(params, fc.integer({ min: 1, max: 12 }), async (p, limit) => {
        const want = expected(rows, p);
        const byCursor = await cursorWalk(store, p, limit);
        const byOffset = await offsetWalk(store, p, limit);
        expect(byCursor).toEqual(want);
        expect(byOffset).toEqual(want);
        expect(new Set(byCursor).size).toBe(byCursor.length);
        const first = await page(store, p, { limit });
        expect(first.page.total).toBe(want.length);
        assertSchema('ListingPage', first);
      }),
      { numRuns: runs(60) },
    );
  });

  it('reports on a cursor page the number of rows that sort before it as offset', async () => {
    await fc.assert(
      fc.asyncProperty(params, fc.integer({ min: 1, max: 9 }), async (p, limit) => {
        let body = await page(store, p, { limit });
        let position = 0;
        while (body.page.next_cursor) {
          position += body.data.length;
          body = await page(store, p, { limit, cursor: body.page.next_cursor });
          expect(body.page.offset).toBe(position);
        }
      }),
      { numRuns: runs(30) },
    );
  });

  it('lets a caller switch from offset paging to the cursor of an offset page', async () => {
    await fc.assert(
      fc.asyncProperty(
        params,
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 0, max: 40 }),
        async (p, limit, offset) => {
          const want = expected(rows, p);
          const start = await page(store, p, { limit, offset });
          expect(start.data.map((l) => l.domain)).toEqual(want.slice(offset, offset + limit));
          const rest: string[] = [];
          let cursor = start.page.next_cursor;
          while (cursor) {
            const body = await page(store, p, { limit, cursor, offset: 9999 });
            rest.push(...body.data.map((l) => l.domain));
            cursor = body.page.next_cursor;
          }
          expect(rest).toEqual(want.slice(offset + limit));
        },
      ),
      { numRuns: runs(40) },
    );
  });

  it('sees every row that existed throughout a walk exactly once while rows are listed and sold', async () => {
    await fc.assert(
      fc.asyncProperty(
        params,
        fc.integer({ min: 1, max: 7 }),
        fc.array(
          fc.record({
            tld: fc.constantFrom(...TLDS),
            price: fc.constantFrom(...PRICES),
            at: fc.constantFrom(...TIMES),
            word: fc.constantFrom(...WORDS, 'a', 'zz'),
          }),
          { maxLength: 30 },
        ),
        fc.array(fc.nat(), { maxLength: 10 }),
        async (p, limit, additions, sales) => {
          const live = await storeWith(tieRows(45), db.databaseUrl);
          try {
            const before = await listedRows(live);
            const sold = new Set(sales.map((n) => before[n % before.length]!.domain));
            const soldList = [...sold];
            let step = 0;
            const added = new Set<string>();
            const seen = await cursorWalk(live, p, limit, async () => {
              // Between pages: list a few new rows (some sort before, some after the position) and sell one.
              const batch = additions.slice(step * 3, step * 3 + 3).map((a, i) => {
                const domain = `${a.word}new${step}x${i}.${a.tld}`;
                added.add(domain);
                return { domain, tld: a.tld, price_cents: a.price, listed_at: a.at };
              });
              await insert(live, batch);
              const sale = soldList[step];
              if (sale) await live.inventory.markSold('sandbox', sale);
              step++;
            });
            expect(new Set(seen).size).toBe(seen.length);
            const throughout = expected(before, p).filter((d) => !sold.has(d) || soldList.indexOf(d) >= step);
            // Every row that stayed listed for the whole walk is seen, in order.
            expect(seen.filter((d) => throughout.includes(d))).toEqual(throughout);
            // Nothing else is seen but rows listed or sold during the walk.
            for (const d of seen) expect(throughout.includes(d) || added.has(d) || sold.has(d)).toBe(true);
          } finally {
            await live.close();
          }
        },
      ),
      { numRuns: runs(40) },
    );
  });
});

describe('listing cursors', () => {
  let store: Store;
  beforeAll(async () => {
    store = await storeWith(tieRows(30));
  });
  afterAll(() => store.close());

  async function cursorError(p: Params, cursor: string, key = KEY): Promise<ApiError> {
    const err = await listMarketListings(store, key, query(p, { cursor })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe('invalid_cursor');
    expect((err as ApiError).status).toBe(400);
    return err as ApiError;
  }

  async function firstCursor(p: Params): Promise<string> {
    const body = await page(store, p, { limit: 2 });
    expect(body.page.next_cursor).toEqual(expect.any(String));
    return body.page.next_cursor!;
  }

  it.each<[string, Params, Params]>([
    ['another sort', { sort: 'price_asc' }, { sort: 'price_desc' }],
    ['the default sort instead of an explicit other one', { sort: 'newest' }, {}],
    ['another tld', { tld: 'com' }, { tld: 'io' }],
    ['a filter dropped', { tld: 'com', q: 'coffee' }, { tld: 'com' }],
    ['a filter added', {}, { min_price: 150000 }],
    ['another max_price', { max_price: 200000 }, { max_price: 250000 }],
  ])('is refused when reused with %s', async (_name, made, used) => {
    const err = await cursorError(used, await firstCursor(made));
    expect(err.message).toContain('start again without a cursor');
  });

  it('names the request filters and sort in the message', async () => {
    const err = await cursorError({ sort: 'price_asc', tld: 'com' }, await firstCursor({ sort: 'domain' }));
    expect(err.message).toContain('tld=com');
    expect(err.message).toContain('sort=price_asc');
  });

  it('is accepted with the same filters whatever the limit', async () => {
    const cursor = await firstCursor({ tld: 'io', sort: 'newest' });
    const body = await page(store, { tld: 'io', sort: 'newest' }, { cursor, limit: 7 });
    expect(body.page.limit).toBe(7);
  });

  it('is refused when tampered with, truncated, signed with another key or made for another list', async () => {
    const cursor = await firstCursor({});
    const [payload, mac] = cursor.split('.') as [string, string];
    const forged = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), k: ['zzz.com'] }),
    ).toString('base64url');
    await cursorError({}, `${forged}.${mac}`);
    await cursorError({}, `${payload}.${mac.slice(0, -2)}`);
    await cursorError({}, payload);
    await cursorError({}, 'not-a-cursor');
    await cursorError({}, cursor, randomBytes(32));
    // A partner-list cursor signed with the same key.
    await cursorError({}, encodeCursor(KEY, { scope: 'orders', binding: {}, position: ['x'] }));
  });

  it('is a keyset, not an offset: the page after a cursor starts after its row even when earlier rows go', async () => {
    const first = await page(store, {}, { limit: 3 });
    const last = first.data.at(-1)!.domain;
    for (const l of first.data) await store.inventory.markSold('sandbox', l.domain);
    const next = await page(store, {}, { limit: 3, cursor: first.page.next_cursor });
    expect(next.data[0]!.domain > last).toBe(true);
    expect(next.page.offset).toBe(0);
    for (const l of first.data) await store.inventory.markListed('sandbox', l.domain);
  });
});

describe('listing query', () => {
  it.each<[Record<string, unknown>, string]>([
    [{ limit: '0' }, '/query/limit'],
    [{ limit: '101' }, '/query/limit'],
    [{ limit: 'ten' }, '/query/limit'],
    [{ offset: '-1' }, '/query/offset'],
    [{ min_price: '1.5' }, '/query/min_price'],
    [{ min_price: '500', max_price: '499' }, '/query/max_price'],
    [{ sort: 'popular' }, '/query/sort'],
    [{ tld: '.com' }, '/query/tld'],
    [{ q: '' }, '/query/q'],
    [{ tld: ['com', 'io'] }, '/query/tld'],
  ])('refuses %j with validation_error at the parameter', (raw, path) => {
    try {
      parseListingQuery(raw);
      expect.unreachable('accepted');
    } catch (e) {
      expect(e).toBeInstanceOf(ApiError);
      expect((e as ApiError).code).toBe('validation_error');
      expect((e as ApiError).details?.map((d) => d.path)).toContain(path);
    }
  });

  it('defaults to 20 rows from offset 0 in domain order', () => {
    expect(parseListingQuery({})).toMatchObject({ limit: 20, offset: 0, sort: 'domain', cursor: undefined });
  });

  it('accepts the bounds and numbers already coerced by a validator', () => {
    expect(parseListingQuery({ limit: 100, offset: 0 })).toMatchObject({ limit: 100 });
    expect(parseListingQuery({ limit: '1', min_price: '5', max_price: '5' })).toMatchObject({
      limit: 1,
      filter: { minPrice: 5, maxPrice: 5 },
    });
  });

  it('matches q as literal text: LIKE wildcards in it match only themselves', async () => {
    const store = await storeWith(tieRows(12));
    try {
      const count = async (q: string) => (await listMarketListings(store, KEY, parseListingQuery({ q }))).page.total;
      expect(await count('o')).toBeGreaterThan(0);
      expect(await count('%')).toBe(0);
      expect(await count('c_ffee')).toBe(0);
      expect(await count('\\')).toBe(0);
      expect(await count('COFFEE')).toBe(await count('coffee'));
    } finally {
      await store.close();
    }
  });

  it('shows only listed sandbox rows, priced in USD with RFC 3339 listing times', async () => {
    const store = await storeWith(tieRows(5));
    try {
      await store.inventory.markSold('sandbox', tieRows(5)[0]!.domain);
      const body = await listMarketListings(store, KEY, parseListingQuery({ q: 'c', limit: '100' }));
      expect(body.data.map((l) => l.domain)).not.toContain('livecoffee.com');
      expect(body.data.map((l) => l.domain)).not.toContain(tieRows(5)[0]!.domain);
      expect(body.page).toEqual({ next_cursor: null, limit: 100, offset: 0, total: body.data.length });
      for (const l of body.data) expect(l.listed_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/);
      assertSchema('ListingPage', body);
    } finally {
      await store.close();
    }
  });
});
