// Paging of GET /api/market/listings (the operation's description): over generated
// filters (tld, min_price, max_price, q), sorts and page sizes, a cursor walk covers the filtered
// set exactly once, in the documented order, with pages no larger than `limit`, ending with
// `next_cursor: null`; offset pages hold the same rows as the cursor walk, report `total`, and
// their `next_cursor` continues where they end; cursors are bound to filters and sort and
// tamper-proof (400 invalid_cursor); limit, offset and the price window are validated.
import fc from 'fast-check';
import { CheckFailure, expect, property, type Context, type Family } from '../context.ts';
import { jsonOf, type Exchange } from '../http.ts';
import { walkCursor, type CursorPage } from './pagination.ts';
import { callPublic, expectPublicCode, queryString } from './public-support.ts';

interface Listing {
  domain: string;
  tld: string;
  price: number;
  currency: string;
  listed_at: string;
}
interface PageInfo {
  next_cursor: string | null;
  limit: number;
  offset: number;
  total: number;
}
type Sort = 'domain' | 'price_asc' | 'price_desc' | 'newest';
interface Filters {
  tld?: string | undefined;
  min_price?: number | undefined;
  max_price?: number | undefined;
  q?: string | undefined;
}
const SORTS: Sort[] = ['domain', 'price_asc', 'price_desc', 'newest'];
const OP = 'listMarketListings';

async function page(
  ctx: Context,
  query: Record<string, string | number | undefined>,
  why: string,
): Promise<{ exchange: Exchange; data: Listing[]; page: PageInfo }> {
  const exchange = await callPublic(ctx, OP, { query });
  if (exchange.status !== 200)
    throw new CheckFailure(
      `${why}: expected 200, got ${exchange.status} ${String((jsonOf(exchange) as { code?: unknown } | undefined)?.code ?? '')}`,
      [exchange],
    );
  const body = jsonOf(exchange) as { data?: Listing[]; page?: PageInfo } | undefined;
  const p = body?.page;
  expect(
    Array.isArray(body?.data) &&
      p !== undefined &&
      (p.next_cursor === null || typeof p.next_cursor === 'string') &&
      Number.isInteger(p.total) &&
      Number.isInteger(p.offset) &&
      Number.isInteger(p.limit),
    `${why}: the answer is not { data: [...], page: { next_cursor, limit, offset, total } }`,
    [exchange],
  );
  return { exchange, data: body.data, page: p };
}

// ---------------------------------------------------------------------------------------------
// The documented semantics, computed on the client: which rows a filter keeps and their order.

export function matches(l: Listing, f: Filters): boolean {
  return (
    (f.tld === undefined || l.tld === f.tld) &&
    (f.min_price === undefined || l.price >= f.min_price) &&
    (f.max_price === undefined || l.price <= f.max_price) &&
    (f.q === undefined || l.domain.toLowerCase().includes(f.q.toLowerCase()))
  );
}

const byDomain = (a: Listing, b: Listing) => (a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : 0);
export function compare(sort: Sort): (a: Listing, b: Listing) => number {
  switch (sort) {
    case 'domain':
      return byDomain;
    case 'price_asc':
      return (a, b) => a.price - b.price || byDomain(a, b);
    case 'price_desc':
      return (a, b) => b.price - a.price || byDomain(a, b);
    case 'newest':
      return (a, b) => Date.parse(b.listed_at) - Date.parse(a.listed_at) || byDomain(a, b);
  }
}

function sameRows(got: Listing[], expected: Listing[]): string | undefined {
  const a = got.map((l) => l.domain);
  const b = expected.map((l) => l.domain);
  if (a.length === b.length && a.every((d, i) => d === b[i])) return undefined;
  const missing = b.filter((d) => !a.includes(d));
  const extra = a.filter((d) => !b.includes(d));
  const first = a.findIndex((d, i) => d !== b[i]);
  return `got ${a.length} listings, expected ${b.length}${missing.length ? `; missing ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? '…' : ''}` : ''}${extra.length ? `; not expected ${extra.slice(0, 5).join(', ')}` : ''}${!missing.length && !extra.length ? `; first difference at position ${first + 1} (got ${a[first]}, expected ${b[first]})` : ''}`;
}

// ---------------------------------------------------------------------------------------------
// The fixture: the whole listing set (or its first 2,000 rows by domain), read with offset pages.

interface Fixture {
  all: Listing[];
  /** The whole set was read (else filters are drawn so that their sets are read whole anyway). */
  complete: boolean;
  total: number;
  reads: Exchange[];
}

const fixtures = new WeakMap<Context, Promise<Fixture>>();
function fixture(ctx: Context): Promise<Fixture> {
  let f = fixtures.get(ctx);
  if (!f) fixtures.set(ctx, (f = buildFixture(ctx)));
  return f;
}

async function buildFixture(ctx: Context): Promise<Fixture> {
  const all: Listing[] = [];
  const reads: Exchange[] = [];
  let total = 0;
  for (let offset = 0; offset < 2000; offset += 100) {
    const p = await page(
      ctx,
      { sort: 'domain', limit: 100, offset },
      `GET /api/market/listings?sort=domain&limit=100&offset=${offset}`,
    );
    reads.push(p.exchange);
    total = p.page.total;
    all.push(...p.data);
    if (p.data.length < 100 || offset + 100 >= total) break;
  }
  expect(
    all.length > 0,
    'GET /api/market/listings lists nothing: the pagination checks need listings (the sandbox has some)',
    reads.slice(-1),
  );
  const wrong = sameRows(all, [...all].sort(compare('domain')));
  if (wrong)
    throw new CheckFailure(`offset pages with sort=domain are not in domain order (A to Z): ${wrong}`, reads.slice(-2));
  return { all, complete: all.length >= total, total, reads };
}

/** Filters drawn from the fixture's own values, keeping sets of at most `max` rows (short walks). */
function filtersArbitrary(f: Fixture, max: number): fc.Arbitrary<Filters> {
  const tlds = [...new Set(f.all.map((l) => l.tld))];
  const prices = [...new Set(f.all.map((l) => l.price))].sort((a, b) => a - b);
  const fragments = [
    ...new Set(
      f.all.flatMap((l) => {
        const label = l.domain.split('.')[0] ?? l.domain;
        return [label.slice(0, 3), label.slice(1, 5), label.slice(-4), l.domain];
      }),
    ),
  ].filter((q) => q.length >= 1);
  const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined, freq: 2 });
  return fc
    .record({
      tld: maybe(fc.constantFrom(...tlds)),
      min_price: maybe(fc.constantFrom(...prices)),
      max_price: maybe(fc.constantFrom(...prices)),
      // Upper case too: q is case-insensitive.
      q: fc.tuple(fc.constantFrom(...fragments), fc.boolean()).map(([q, upper]) => (upper ? q.toUpperCase() : q)),
    })
    .filter((x) => x.min_price === undefined || x.max_price === undefined || x.min_price <= x.max_price)
    .filter((x) => f.all.filter((l) => matches(l, x)).length <= max);
}

const filtersQuery = (filters: Filters, sort: Sort) => ({ ...filters, sort });

function walk(ctx: Context, filters: Filters, sort: Sort, limits: readonly number[], maxPages: number) {
  return walkCursor<Listing>({
    fetchPage: async (cursor, limit, n): Promise<CursorPage<Listing>> => {
      const p = await page(
        ctx,
        { ...filtersQuery(filters, sort), limit, cursor },
        `GET /api/market/listings?${queryString({ ...filtersQuery(filters, sort), limit })}, page ${n + 1}`,
      );
      return { exchange: p.exchange, items: p.data, nextCursor: p.page.next_cursor };
    },
    limits,
    idOf: (l) => l.domain,
    maxPages,
    why: `cursor walk over GET /api/market/listings?${queryString(filtersQuery(filters, sort))} with limits ${limits.join(',')}`,
  });
}

const runs = (ctx: Context, most: number) =>
  ctx.http.clients.size > 0 ? Math.min(ctx.fc.numRuns, most) : Math.min(ctx.fc.numRuns, 4);

// ---------------------------------------------------------------------------------------------
// Sets that change while the checks run. The partner families run beside this one and sell
// sandbox domains (a refund may list one again), so a set read earlier (the fixture) can be stale
// by the time an example reads it: a check comparing with it would cry wolf on a busy run. The
// contract allows the change ("a cursor traversal sees every row that existed throughout it
// exactly once, even while listings are added or sold"), so an example that fails against a set
// the deployment no longer lists is tried once more against the set read again; a deployment
// that is wrong fails the second time too.

/** The filtered set as the deployment lists it now, when one offset page holds it (else undefined). */
async function currentSet(ctx: Context, filters: Filters, sort: Sort): Promise<Listing[] | undefined> {
  const p = await page(ctx, { ...filtersQuery(filters, sort), limit: 100 }, 'the filtered set in one offset page');
  return p.page.total <= 100 && p.data.length === p.page.total ? p.data : undefined;
}

/**
 * Runs `example` against `expected`; when it fails and the set is not what it was, once more
 * against the set read again (`retry` true: the example may then allow for rows sold during it).
 */
async function againstSet(
  ctx: Context,
  filters: Filters,
  sort: Sort,
  expected: Listing[],
  example: (set: Listing[], retry: boolean) => Promise<void>,
): Promise<void> {
  try {
    await example(expected, false);
  } catch (err) {
    if (!(err instanceof CheckFailure)) throw err;
    const now = await currentSet(ctx, filters, sort);
    if (!now || sameRows(now, expected) === undefined) throw err;
    ctx.log(
      `the set ${queryString(filtersQuery(filters, sort))} changed while the example ran (${expected.length} rows, now ${now.length}: listings sold or listed meanwhile); trying it once more against the set as it is now`,
    );
    await example(now, true);
  }
}

/**
 * What is wrong with a walk made while the set may change: every row listed both before and after
 * it must be served, every row served must have been listed before or after, in the sort order.
 */
function throughout(items: Listing[], before: Listing[], after: Listing[], sort: Sort): string | undefined {
  const served = new Set(items.map((l) => l.domain));
  const listed = new Set([...before, ...after].map((l) => l.domain));
  const stayed = before.filter((l) => after.some((a) => a.domain === l.domain)).map((l) => l.domain);
  const missing = stayed.filter((d) => !served.has(d));
  const extra = items.map((l) => l.domain).filter((d) => !listed.has(d));
  if (missing.length || extra.length)
    return `while the set changed (${before.length} rows before the walk, ${after.length} after), the walk ${missing.length ? `missed ${missing.slice(0, 5).join(', ')}, listed throughout it` : ''}${missing.length && extra.length ? '; and ' : ''}${extra.length ? `served ${extra.slice(0, 5).join(', ')}, listed neither before nor after it` : ''}`;
  const order = sameRows(items, [...items].sort(compare(sort)));
  return order ? `the walk is not in ${sort} order: ${order}` : undefined;
}

export const listingsFamily: Family = {
  name: 'public-pagination',
  surface: 'public',
  description:
    'GET /api/market/listings: cursor walks over generated filters and sorts, offset pages agree with them and with total, cursors bound and tamper-proof',
  needs: [],
  checks: [
    {
      id: 'public.listings.walk',
      rules: ['spec:public:listMarketListings#/description', 'seed:public › Endpoints › Public REST'],
      name: 'a cursor walk covers the filtered set exactly once, in the sort order (ties by domain), pages within limit, ending with next_cursor null',
      async run(ctx) {
        const f = await fixture(ctx);
        // One client for the whole run (its window is the run's): smaller sets in larger pages.
        const one = ctx.http.clients.size === 0;
        const arbitrary = fc.tuple(
          filtersArbitrary(f, one ? 12 : 40),
          fc.constantFrom(...SORTS),
          fc.array(fc.integer({ min: one ? 3 : 1, max: 12 }), { minLength: 1, maxLength: 3 }),
        );
        await property(
          ctx,
          arbitrary,
          async ([filters, sort, limits]) => {
            // The expected rows: from the fixture when it holds the whole set, else from one offset
            // read, when one page holds the whole filtered set (a large deployment: the fixture
            // reads 2,000 rows, and a filter drawn from them may match more beyond them). A walk
            // compared with part of its set would fail a deployment that is right.
            let expected = f.all.filter((l) => matches(l, filters)).sort(compare(sort));
            if (!f.complete) {
              const truth = await page(
                ctx,
                { ...filtersQuery(filters, sort), limit: 100 },
                'the filtered set in one offset page',
              );
              fc.pre(truth.page.total <= 100 && truth.data.length === truth.page.total);
              expected = truth.data;
            }
            const why = `cursor walk over GET /api/market/listings?${queryString(filtersQuery(filters, sort))} with limits ${limits.join(',')}`;
            await againstSet(ctx, filters, sort, expected, async (before, retry) => {
              const { items, exchanges } = await walk(ctx, filters, sort, limits, before.length + (retry ? 6 : 2));
              const after = retry ? ((await currentSet(ctx, filters, sort)) ?? before) : before;
              const wrong = retry ? throughout(items, before, after, sort) : sameRows(items, before);
              if (wrong) throw new CheckFailure(`${why}: ${wrong}`, exchanges.slice(-2));
              const stray = items.find((l) => !matches(l, filters));
              if (stray)
                throw new CheckFailure(
                  `the walk with ${JSON.stringify(filters)} served ${stray.domain} (tld ${stray.tld}, price ${stray.price}), which the filters exclude`,
                  exchanges.slice(-2),
                );
            });
          },
          runs(ctx, 25),
          { cost: { public: 5 } },
        );
      },
    },
    {
      id: 'public.listings.offset',
      rules: ['spec:public:listMarketListings#/description', 'seed:public › Resources and their fields'],
      name: 'offset pages: the rows of the cursor walk at that position, total = size of the filtered set, page.offset/limit echoed, next_cursor continues after the page',
      async run(ctx) {
        const f = await fixture(ctx);
        const arbitrary = fc.tuple(
          filtersArbitrary(f, 60),
          fc.constantFrom(...SORTS),
          fc.integer({ min: 1, max: 15 }),
          fc.nat({ max: 70 }),
        );
        await property(
          ctx,
          arbitrary,
          async ([filters, sort, limit, rawOffset]) => {
            // The expected rows: from the fixture when it holds the whole set, else from one offset
            // read of the whole filtered set (a large deployment: the fixture reads 2,000 rows).
            let expected = f.all.filter((l) => matches(l, filters)).sort(compare(sort));
            if (!f.complete) {
              const truth = await page(
                ctx,
                { ...filtersQuery(filters, sort), limit: 100 },
                'the filtered set in one offset page',
              );
              fc.pre(truth.page.total <= 100);
              expected = truth.data;
            }
            const offset = Math.min(rawOffset, expected.length + 2);
            await againstSet(ctx, filters, sort, expected, async (expected) => {
              const query = { ...filtersQuery(filters, sort), limit, offset };
              const p = await page(ctx, query, `GET /api/market/listings?${queryString(query)}`);
              const why = `GET /api/market/listings?${queryString(query)}`;
              expect(
                p.page.total === expected.length,
                `${why}: page.total is ${p.page.total}; the filtered set has ${expected.length} listings`,
                [p.exchange],
              );
              expect(
                p.page.offset === offset && p.page.limit === limit,
                `${why}: page says offset ${p.page.offset}, limit ${p.page.limit}; the request asked offset ${offset}, limit ${limit}`,
                [p.exchange],
              );
              const wrong = sameRows(p.data, expected.slice(offset, offset + limit));
              if (wrong) throw new CheckFailure(`${why}: ${wrong}`, [p.exchange]);
              const more = offset + limit < expected.length;
              if (!more) {
                expect(
                  p.page.next_cursor === null,
                  `${why}: the page reaches the end of the set (${expected.length} rows) but next_cursor is ${JSON.stringify(p.page.next_cursor)}`,
                  [p.exchange],
                );
                return;
              }
              expect(
                p.page.next_cursor !== null,
                `${why}: ${expected.length - offset - limit} rows follow this offset page, but its next_cursor is null (offset pages return next_cursor too)`,
                [p.exchange],
              );
              const next = await page(
                ctx,
                { ...filtersQuery(filters, sort), limit, cursor: p.page.next_cursor },
                `${why}, then its next_cursor`,
              );
              const wrongNext = sameRows(next.data, expected.slice(offset + limit, offset + 2 * limit));
              if (wrongNext)
                throw new CheckFailure(
                  `the next_cursor of the offset page ${why} does not continue after it: ${wrongNext}`,
                  [p.exchange, next.exchange],
                );
              expect(
                next.page.offset === offset + limit,
                `a page reached by cursor reports page.offset ${next.page.offset}; ${offset + limit} rows sort before it`,
                [next.exchange],
              );
              expect(
                next.page.total === expected.length,
                `a page reached by cursor reports total ${next.page.total}; the filtered set has ${expected.length}`,
                [next.exchange],
              );
            });
          },
          runs(ctx, 20),
          { cost: { public: 3 } },
        );
      },
    },
    {
      id: 'public.listings.offset-next-cursor',
      rules: [
        'spec:public#/components/schemas/Page',
        'spec:public:listMarketListings#/description',
        'seed:public › Endpoints › Public REST',
      ],
      name: 'an offset page that is not the last carries a non-null next_cursor, and following it continues at the row after the page (a caller may switch from offset to cursor paging)',
      async run(ctx) {
        const f = await fixture(ctx);
        // Sets of at least 3 rows, and a page that ends before the set does: the rule's own case.
        const setOf = (filters: Filters, sort: Sort) => f.all.filter((l) => matches(l, filters)).sort(compare(sort));
        const arbitrary = fc
          .tuple(filtersArbitrary(f, f.complete ? 60 : 100), fc.constantFrom(...SORTS))
          .map(([filters, sort]) => ({ filters, sort, size: setOf(filters, sort).length }))
          .filter(({ size }) => size >= 3)
          .chain(({ filters, sort, size }) =>
            fc.integer({ min: 1, max: Math.min(15, size - 1) }).chain((limit) =>
              fc.record({
                filters: fc.constant(filters),
                sort: fc.constant(sort),
                limit: fc.constant(limit),
                offset: fc.integer({ min: 0, max: size - limit - 1 }),
              }),
            ),
          );
        await property(
          ctx,
          arbitrary,
          async ({ filters, sort, limit, offset }) => {
            let expected = setOf(filters, sort);
            if (!f.complete) {
              const truth = await page(
                ctx,
                { ...filtersQuery(filters, sort), limit: 100 },
                'the filtered set in one offset page',
              );
              fc.pre(truth.page.total <= 100 && offset + limit < truth.data.length);
              expected = truth.data;
            }
            await againstSet(ctx, filters, sort, expected, async (expected) => {
              // Read again (rows sold meanwhile), the set may now end with this page: nothing to check then.
              fc.pre(offset + limit < expected.length);
              const query = { ...filtersQuery(filters, sort), limit, offset };
              const why = `GET /api/market/listings?${queryString(query)}`;
              const p = await page(ctx, query, why);
              expect(
                p.page.next_cursor !== null,
                `${why}: ${expected.length - offset - limit} of the ${expected.length} rows of the set follow this offset page, but its next_cursor is null; offset pages return next_cursor too, so a caller may switch styles (Page)`,
                [p.exchange],
              );
              const next = await page(
                ctx,
                { ...filtersQuery(filters, sort), limit, cursor: p.page.next_cursor },
                `${why}, then its next_cursor`,
              );
              const wrong = sameRows(next.data, expected.slice(offset + limit, offset + 2 * limit));
              if (wrong)
                throw new CheckFailure(
                  `following the next_cursor of the offset page ${why} must continue at row ${offset + limit + 1}: ${wrong}`,
                  [p.exchange, next.exchange],
                );
            });
          },
          runs(ctx, 10),
          { cost: { public: 2 } },
        );
      },
    },
    {
      id: 'public.listings.cursor-bound',
      rules: ['spec:public#/components/parameters/Cursor', 'seed:public › Errors'],
      name: 'a cursor reused with other filters or another sort gives 400 invalid_cursor (another limit is fine)',
      async run(ctx) {
        const f = await fixture(ctx);
        // A set of at least 3 rows, so its first page of 1 has a cursor.
        const arbitrary = filtersArbitrary(f, 300)
          .filter((x) => f.all.filter((l) => matches(l, x)).length >= 3)
          .chain((filters) =>
            fc.record({
              filters: fc.constant(filters),
              sort: fc.constantFrom(...SORTS),
              change: fc.constantFrom<'sort' | 'tld' | 'min_price' | 'max_price' | 'q' | 'drop'>(
                'sort',
                'tld',
                'min_price',
                'max_price',
                'q',
                'drop',
              ),
              pick: fc.nat(),
            }),
          );
        await property(
          ctx,
          arbitrary,
          async ({ filters, sort, change, pick }) => {
            const first = await page(
              ctx,
              { ...filtersQuery(filters, sort), limit: 1 },
              `GET /api/market/listings?${queryString({ ...filtersQuery(filters, sort), limit: 1 })}`,
            );
            expect(
              first.page.next_cursor !== null,
              `a filtered set of ${f.all.filter((l) => matches(l, filters)).length} rows answered next_cursor null on a page of 1`,
              [first.exchange],
            );
            const cursor = first.page.next_cursor;
            const other: Filters & { sort: Sort } = { ...filters, sort };
            const values = {
              tlds: [...new Set(f.all.map((l) => l.tld))],
              prices: [...new Set(f.all.map((l) => l.price))],
            };
            if (change === 'sort') other.sort = SORTS.filter((s) => s !== sort)[pick % 3]!;
            else if (change === 'tld')
              other.tld =
                values.tlds.filter((t) => t !== filters.tld)[pick % Math.max(1, values.tlds.length - 1)] ?? 'zz';
            else if (change === 'min_price') other.min_price = (filters.min_price ?? 0) + 1 + (pick % 1000);
            else if (change === 'max_price')
              other.max_price = filters.max_price === undefined ? 100_000_000 : filters.max_price + 1 + (pick % 1000);
            else if (change === 'q') other.q = `${filters.q ?? ''}${'abcdefghij'[pick % 10]}`;
            else {
              const present = (['tld', 'min_price', 'max_price', 'q'] as const).filter((k) => filters[k] !== undefined);
              fc.pre(present.length > 0);
              delete other[present[pick % present.length]!];
            }
            const reused = await callPublic(ctx, OP, { query: { ...other, limit: 1, cursor }, deliberate: true });
            expectPublicCode(
              ctx,
              reused,
              'invalid_cursor',
              `the cursor of ${queryString(filtersQuery(filters, sort))} reused with ${queryString({ ...other })} (${change} changed)`,
            );
            const same = await callPublic(ctx, OP, { query: { ...filtersQuery(filters, sort), limit: 2, cursor } });
            expect(
              same.status === 200,
              `the cursor reused with the same filters and sort but limit 2 should answer 200, got ${same.status}`,
              [same],
            );
          },
          runs(ctx, 15),
          { cost: { public: 3 } },
        );
      },
    },
    {
      id: 'public.listings.cursor-tamper-proof',
      rules: ['spec:public#/components/parameters/Cursor'],
      name: 'a tampered, truncated or made-up cursor gives 400 invalid_cursor',
      async run(ctx) {
        await fixture(ctx);
        const first = await page(
          ctx,
          { sort: 'price_asc', limit: 2 },
          'GET /api/market/listings?sort=price_asc&limit=2',
        );
        const cursor = first.page.next_cursor;
        expect(
          cursor !== null && cursor.length >= 4,
          'GET /api/market/listings?sort=price_asc&limit=2 must answer a next_cursor (the sandbox lists more than 2)',
          [first.exchange],
        );
        // Not the last character of a `.`-separated segment: its low bits may be padding.
        const positions = [...cursor]
          .map((_, i) => i)
          .filter((i) => i + 1 < cursor.length && cursor[i + 1] !== '.' && cursor[i] !== '.');
        const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
        const tampered = fc.oneof(
          fc
            .tuple(fc.constantFrom(...positions), fc.constantFrom(...alphabet))
            .filter(([i, c]) => cursor[i] !== c)
            .map(([i, c]) => `${cursor.slice(0, i)}${c}${cursor.slice(i + 1)}`),
          fc.integer({ min: 1, max: cursor.length - 1 }).map((n) => cursor.slice(0, cursor.length - n)),
          fc.constantFrom(...alphabet).map((c) => `${cursor}${c}`),
          fc.constantFrom(
            'abc',
            '0',
            'eyJrIjpbMjUwMDAwLCJiZXN0Y29mZmVlYmVhbnMuY29tIl19.c2ln',
            `${cursor.split('.')[0] ?? cursor}.${'A'.repeat(20)}`,
            Buffer.from('{"k":[0,"a.com"]}').toString('base64url'),
          ),
        );
        await property(
          ctx,
          tampered,
          async (bad) => {
            const e = await callPublic(ctx, OP, {
              query: { sort: 'price_asc', limit: 2, cursor: bad },
              deliberate: true,
            });
            expectPublicCode(
              ctx,
              e,
              'invalid_cursor',
              `GET /api/market/listings with the cursor ${JSON.stringify(bad)} (the real one was ${JSON.stringify(cursor)})`,
            );
          },
          runs(ctx, 20),
          { cost: { public: 1 } },
        );
      },
    },
    {
      id: 'public.listings.validation',
      rules: ['spec:public#/components/parameters/Limit', 'spec:public#/components/parameters/Offset'],
      name: 'limit outside 1..100, a negative offset, max_price below min_price or an unknown sort give 400 validation_error; limit 1 and 100 are honoured',
      async run(ctx) {
        const f = await fixture(ctx);
        const bad = fc.oneof(
          fc
            .oneof(
              fc.integer({ min: -1000, max: 0 }).map(String),
              fc.integer({ min: 101, max: 1_000_000 }).map(String),
              fc.constantFrom('abc', '2.5', '1e2', ''),
            )
            .map((limit) => ({ limit })),
          fc
            .oneof(fc.integer({ min: -1000, max: -1 }).map(String), fc.constantFrom('x', '1.5'))
            .map((offset) => ({ offset })),
          fc
            .tuple(fc.integer({ min: 1, max: 1_000_000 }), fc.integer({ min: 1, max: 1000 }))
            .map(([min, gap]) => ({ min_price: String(min), max_price: String(min - gap) })),
          fc.constantFrom('price', 'PRICE_ASC', 'oldest', 'domain,price_asc').map((sort) => ({ sort })),
        );
        await property(
          ctx,
          bad,
          async (query) => {
            const e = await callPublic(ctx, OP, { query, deliberate: true });
            expectPublicCode(ctx, e, 'validation_error', `GET /api/market/listings?${queryString(query)}`);
            const details = (jsonOf(e) as { details?: unknown }).details;
            expect(
              Array.isArray(details) && details.length > 0,
              `GET /api/market/listings?${queryString(query)}: a validation_error names the failing parameter in details`,
              [e],
            );
          },
          runs(ctx, 15),
          { cost: { public: 1 } },
        );
        for (const limit of [1, 100]) {
          const p = await page(ctx, { limit }, `GET /api/market/listings?limit=${limit}`);
          expect(
            p.data.length === Math.min(limit, f.total),
            `GET /api/market/listings?limit=${limit} answered ${p.data.length} listings of ${f.total}`,
            [p.exchange],
          );
        }
        const defaults = await page(ctx, {}, 'GET /api/market/listings (no parameters)');
        expect(
          defaults.page.limit === 20 && defaults.data.length === Math.min(20, f.total) && defaults.page.offset === 0,
          `GET /api/market/listings without parameters should page 20 from offset 0 (its limit and offset defaults), got limit ${defaults.page.limit}, offset ${defaults.page.offset}, ${defaults.data.length} rows`,
          [defaults.exchange],
        );
      },
    },
  ],
};
