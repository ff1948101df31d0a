// Idempotency of POST /orders (`x-idempotency` of createOrder): a retry with the
// same key and body replays the stored answer byte for byte, whatever its whitespace and key
// order; another body under the same key is a conflict; the key is required (and checked
// before the body); concurrent retries never create two orders; stored 4xx outcomes replay too.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { plannedRuns } from '../pacing.ts';
import { CheckFailure, expect, expectError, expectStatus, property, type Context, type Family } from '../context.ts';
import { jsonOf, sleep, type Credentials, type Exchange } from '../http.ts';
import {
  eventsAfter,
  listedDomain,
  listedDomains,
  orderRequest,
  ordersOfDomain,
  postOrder,
  unlistedDomain,
  type Listed,
  type OrderJson,
} from './orders-support.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** How a body is re-serialised: key ranks, whitespace at each position, which characters are \u-escaped. */
export interface Style {
  rank: (path: string, key: string) => number;
  space: (position: number) => string;
  escape: (text: string, index: number) => boolean;
}

const WHITESPACE = ['', ' ', '  ', '\n', '\t', '\r\n', ' \n\t '];
const never = () => false;

export const styleArbitrary: fc.Arbitrary<Style> = fc
  .record({
    rank: fc.func(fc.integer()),
    spaces: fc.array(fc.constantFrom(...WHITESPACE), { minLength: 1, maxLength: 16 }),
    // Most bodies keep their characters as they are; some \u-escape about one character in ten.
    escape: fc.oneof(
      { weight: 3, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: fc.func(fc.integer({ min: 0, max: 9 })) },
    ),
  })
  .map(({ rank, spaces, escape }) => ({
    rank: rank as Style['rank'],
    space: (position: number) => spaces[position % spaces.length] ?? '',
    escape: escape
      ? (text: string, index: number) => (escape as (t: string, i: number) => number)(text, index) === 0
      : never,
  }));

/** The same JSON value in other bytes: other key order, insignificant whitespace, \u escapes. */
export function reserialise(value: Json, style: Style): string {
  let position = 0;
  const ws = () => style.space(position++);
  const str = (s: string) =>
    `"${[...JSON.stringify(s).slice(1, -1)].map((c, i) => (/[A-Za-z0-9@.]/.test(c) && style.escape(s, i) ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}` : c)).join('')}"`;
  const walk = (v: Json, path: string): string => {
    if (Array.isArray(v)) return `[${ws()}${v.map((x, i) => walk(x, `${path}/${i}`)).join(`${ws()},${ws()}`)}${ws()}]`;
    if (v !== null && typeof v === 'object') {
      const keys = Object.keys(v).sort((a, b) => style.rank(path, a) - style.rank(path, b) || (a < b ? -1 : 1));
      return `{${ws()}${keys.map((k) => `${str(k)}${ws()}:${ws()}${walk(v[k] as Json, `${path}/${k}`)}`).join(`${ws()},${ws()}`)}${ws()}}`;
    }
    return typeof v === 'string' ? str(v) : JSON.stringify(v);
  };
  return `${ws()}${walk(value, '')}${ws()}`;
}

const replayed = (e: Exchange) => e.responseHeaders['idempotent-replayed'] === 'true';

/** Fails unless `again` is a byte-for-byte replay of `first` marked Idempotent-Replayed: true. */
export function expectReplay(first: Exchange, again: Exchange, why: string): void {
  if (again.status !== first.status || again.responseBody !== first.responseBody) {
    throw new CheckFailure(
      `${why}: expected a replay of the stored ${first.status} answer byte for byte, got ${again.status}${again.status === first.status ? ' with another body' : ''}`,
      [first, again],
    );
  }
  if (!replayed(again))
    throw new CheckFailure(`${why}: the replayed answer lacks Idempotent-Replayed: true`, [first, again]);
}

function expectFresh(exchange: Exchange, why: string): void {
  if (replayed(exchange))
    throw new CheckFailure(`${why}: a first execution must not say Idempotent-Replayed: true`, [exchange]);
}

async function firstOrder(ctx: Context, credentials: Credentials, listed: Listed, extra: Record<string, unknown> = {}) {
  const key = randomUUID();
  const value = orderRequest(listed, extra) as Json;
  const body = JSON.stringify(value);
  const first = await postOrder(ctx, { credentials, body, key });
  expectStatus(first, 201, `recording an order for ${listed.domain} with a fresh Idempotency-Key`);
  expectFresh(first, 'the first request with a key');
  return { key, value, body, first, order: jsonOf(first) as OrderJson };
}

async function expectOneOrder(
  ctx: Context,
  credentials: Credentials,
  domain: string,
  publicId: string,
  why: string,
): Promise<void> {
  const { orders, exchanges } = await ordersOfDomain(ctx, credentials, domain);
  const ids = orders.map((o) => o.public_id);
  expect(
    ids.length === 1 && ids[0] === publicId,
    `${why}: GET /orders?domain=${domain} lists ${ids.length} orders (${ids.join(', ') || 'none'}), expected exactly ${publicId}`,
    exchanges,
  );
}

async function expectNoOrder(ctx: Context, credentials: Credentials, domain: string, why: string): Promise<void> {
  const { orders, exchanges } = await ordersOfDomain(ctx, credentials, domain);
  expect(
    orders.length === 0,
    `${why}: GET /orders?domain=${domain} lists ${orders.map((o) => o.public_id).join(', ')}, expected none`,
    exchanges,
  );
}

/** Bodies POST /orders cannot accept (not JSON, wrong shape, wrong types, missing members). */
function invalidBodies(listed: Listed): fc.Arbitrary<string> {
  const valid = orderRequest(listed);
  return fc.oneof(
    fc.constantFrom('', '{', 'null', '[]', '{}', '"order"', 'not json', '{"domain":'),
    fc
      .constantFrom('domain', 'expected_price', 'currency', 'buyer')
      .map((drop) => JSON.stringify(Object.fromEntries(Object.entries(valid).filter(([k]) => k !== drop)))),
    fc
      .record({
        member: fc.constantFrom('domain', 'expected_price', 'currency', 'buyer'),
        value: fc.oneof(
          fc.constant(null),
          fc.constant('not a number'),
          fc.constant(-1),
          fc.constant(1.5),
          fc.constant([]),
          fc.constant({ email: 'not an email' }),
          fc.constant('NOT A DOMAIN'),
        ),
      })
      .filter(({ member, value }) => !(member === 'currency' && typeof value === 'string' && /^[A-Z]{3}$/.test(value)))
      .map(({ member, value }) => JSON.stringify({ ...valid, [member]: value })),
    fc.string({ minLength: 1, maxLength: 12 }).map((extra) => JSON.stringify({ ...valid, [`x_${extra}`]: true })),
  );
}

export const idempotencyFamily: Family = {
  name: 'idempotency',
  surface: 'partner',
  description:
    'POST /orders Idempotency-Key: byte-for-byte replays, conflicts, the required key, concurrency, stored 4xx outcomes',
  needs: ['credentials', 'writes'],
  checks: [
    {
      id: 'partner.orders.idempotency.replay',
      rules: ['spec:partner:createOrder#/x-idempotency', 'seed:partner › Endpoints › Partner-collected sales'],
      name: 'the same key and body replay the stored 201 byte for byte with Idempotent-Replayed: true, and one order and one order.recorded event result',
      async run(ctx) {
        const credentials = await ctx.credentials();
        const before = await eventsAfter(ctx, credentials);
        const listed = await listedDomain(ctx, credentials);
        const { key, body, first, order } = await firstOrder(ctx, credentials, listed, {
          external_payment_ref: `conf_${randomUUID().slice(0, 8)}`,
        });
        const retries = plannedRuns(ctx, 3, { credentials, cost: { write: 1 } }).runs;
        for (let i = 0; i < retries; i++) {
          expectReplay(
            first,
            await postOrder(ctx, { credentials, body, key }),
            `retry ${i + 1} with the same key and the same bytes`,
          );
        }
        await expectOneOrder(ctx, credentials, listed.domain, order.public_id, `after ${retries} replays`);
        const after = await eventsAfter(ctx, credentials, before.last ?? undefined);
        const recorded = after.events.filter(
          (e) => e.type === 'order.recorded' && e.data?.order?.public_id === order.public_id,
        );
        expect(
          recorded.length === 1,
          `GET /events has ${recorded.length} order.recorded events for ${order.public_id}, expected exactly 1 after one order and ${retries} replays`,
          after.exchanges.slice(-2),
        );
      },
    },
    {
      id: 'partner.orders.idempotency.fingerprint',
      rules: ['spec:partner:createOrder#/x-idempotency'],
      name: 'a re-serialised body (other whitespace, key order, \\u escapes) with the same key replays the stored answer',
      async run(ctx) {
        const credentials = await ctx.credentials();
        const listed = await listedDomain(ctx, credentials);
        const { key, value, first, order } = await firstOrder(ctx, credentials, listed, {
          buyer: { email: 'jane.doe@example.org', country: 'US', account: 'janedoe' },
          external_payment_ref: `conf_${randomUUID().slice(0, 8)}`,
        });
        await property(
          ctx,
          styleArbitrary,
          async (style) => {
            const body = reserialise(value, style);
            expectReplay(
              first,
              await postOrder(ctx, { credentials, body, key }),
              `the same body re-serialised as ${JSON.stringify(body)}`,
            );
          },
          Math.min(ctx.fc.numRuns, 20),
          { credentials, cost: { write: 1 }, reserve: 1 },
        );
        await expectOneOrder(ctx, credentials, listed.domain, order.public_id, 'after the re-serialised retries');
      },
    },
    {
      id: 'partner.orders.idempotency.conflict',
      rules: ['spec:partner:createOrder#/x-idempotency', 'seed:partner › Endpoints › Partner-collected sales'],
      name: 'another body under the same key gives 409 conflict, which is not stored (the original still replays)',
      async run(ctx) {
        const credentials = await ctx.credentials();
        const [listed, other] = await listedDomains(ctx, credentials, 2);
        if (!listed || !other)
          throw new CheckFailure('the inventory search found fewer than two listed, unsold domains');
        const { key, value, body, first, order } = await firstOrder(ctx, credentials, listed);
        const base = value as Record<string, Json>;
        const changes = fc.constantFrom<Array<[string, Record<string, Json>]>>(
          ['another buyer email', { ...base, buyer: { email: 'someone.else@example.org' } }],
          ['a buyer country added', { ...base, buyer: { email: 'conformance@example.com', country: 'DE' } }],
          ['an external_payment_ref added', { ...base, external_payment_ref: 'ch_other' }],
          ['another domain', { ...base, domain: other.domain, expected_price: other.price, currency: other.currency }],
          ['another expected_price', { ...base, expected_price: listed.price + 1 }],
        );
        await property(
          ctx,
          changes,
          async ([what, changed]) => {
            const conflict = await postOrder(ctx, {
              credentials,
              body: JSON.stringify(changed),
              key,
              deliberate: true,
            });
            expectError(conflict, 409, 'conflict', `the same Idempotency-Key with ${what}`);
            expect(
              !replayed(conflict),
              `a 409 conflict is never stored, so it cannot be a replay (Idempotent-Replayed: true)`,
              [conflict],
            );
          },
          5,
          { credentials, cost: { write: 1 }, reserve: 1 },
        );
        expectReplay(first, await postOrder(ctx, { credentials, body, key }), 'the original body after the conflicts');
        await expectOneOrder(ctx, credentials, listed.domain, order.public_id, 'after the conflicts');
        await expectNoOrder(
          ctx,
          credentials,
          other.domain,
          'the conflicting body for another domain must not have been executed',
        );
      },
    },
    {
      id: 'partner.orders.idempotency.key-required',
      rules: ['spec:partner#/x-signing/check-order', 'seed:partner › Authentication › Required headers'],
      name: 'a missing Idempotency-Key gives 400 missing_idempotency_key, also when the body is invalid, and creates nothing',
      async run(ctx) {
        const credentials = await ctx.credentials();
        const listed = await listedDomain(ctx, credentials);
        const missing = await postOrder(ctx, {
          credentials,
          body: JSON.stringify(orderRequest(listed)),
          key: undefined,
          deliberate: true,
        });
        expectError(missing, 400, 'missing_idempotency_key', 'a valid order request without Idempotency-Key');
        await property(
          ctx,
          invalidBodies(listed),
          async (body) => {
            expectError(
              await postOrder(ctx, { credentials, body, key: undefined, deliberate: true }),
              400,
              'missing_idempotency_key',
              `no Idempotency-Key and an invalid body ${JSON.stringify(body)} (the key is checked before the body)`,
            );
          },
          Math.min(ctx.fc.numRuns, 20),
          { credentials, cost: { write: 1 } },
        );
        await expectNoOrder(ctx, credentials, listed.domain, 'the request without a key must not have been executed');
      },
    },
    {
      id: 'partner.orders.idempotency.key-length',
      rules: ['spec:partner#/components/parameters/IdempotencyKey'],
      name: 'keys of 1 and 255 characters are accepted; 256 characters is 400 validation_error',
      async run(ctx) {
        // Keys are scoped per credential: a fresh one (when it can be minted) has used no key yet.
        const credentials = ctx.admin ? await ctx.mint(['search', 'buy']) : await ctx.credentials();
        const [a, b, c] = await listedDomains(ctx, credentials, 3);
        if (!a || !b || !c)
          throw new CheckFailure('the inventory search found fewer than three listed, unsold domains');
        const long = (n: number) => `${randomUUID()}${'k'.repeat(n)}`.slice(0, n);
        const tooLong = await postOrder(ctx, {
          credentials,
          body: JSON.stringify(orderRequest(a)),
          key: long(256),
          deliberate: true,
        });
        expectError(tooLong, 400, 'validation_error', 'an Idempotency-Key of 256 characters');
        const max = await postOrder(ctx, { credentials, body: JSON.stringify(orderRequest(a)), key: long(255) });
        expectStatus(max, 201, 'an Idempotency-Key of 255 characters');
        // Without a fresh credential a one-character key may have been used by an earlier run: then try once more with another.
        let one = await postOrder(ctx, {
          credentials,
          body: JSON.stringify(orderRequest(b)),
          key: randomUUID().slice(0, 1),
        });
        if (one.status === 409)
          one = await postOrder(ctx, {
            credentials,
            body: JSON.stringify(orderRequest(c)),
            key: String.fromCharCode(0x41 + Math.floor(Math.random() * 26)),
          });
        expectStatus(one, 201, 'an Idempotency-Key of 1 character');
      },
    },
    {
      id: 'partner.orders.idempotency.concurrent',
      rules: ['spec:partner:createOrder#/x-idempotency'],
      name: 'concurrent requests with one key create exactly one order (each answer is the 201 or 409 conflict with Retry-After)',
      async run(ctx) {
        const credentials = await ctx.credentials();
        const listed = await listedDomain(ctx, credentials);
        const key = randomUUID();
        const body = JSON.stringify(orderRequest(listed));
        // Ten at once, or fewer (at least four) when the credential's write window has less left.
        const N = Math.max(4, plannedRuns(ctx, 10, { credentials, cost: { write: 1 }, reserve: 2 }).runs);
        const all: Exchange[] = [];
        let pending = await Promise.all(Array.from({ length: N }, () => postOrder(ctx, { credentials, body, key })));
        const settled: Exchange[] = [];
        for (let round = 0; round < 6; round++) {
          all.push(...pending);
          const retry: Exchange[] = [];
          for (const e of pending) {
            if (e.status === 201) settled.push(e);
            else if (e.status === 409) {
              expectError(e, 409, 'conflict', 'a concurrent request with the same key and body');
              const after = e.responseHeaders['retry-after'];
              expect(
                after !== undefined && /^\d+$/.test(after) && Number(after) >= 1,
                `a 409 conflict for a request still executing must carry Retry-After (whole seconds, at least 1), got ${after ?? 'none'}`,
                [e],
              );
              retry.push(e);
            } else
              throw new CheckFailure(
                `a concurrent request with the same key and body: expected 201 or 409 conflict, got ${e.status}`,
                [e],
              );
          }
          if (retry.length === 0) break;
          const wait = Math.max(...retry.map((e) => Number(e.responseHeaders['retry-after'] ?? '1')));
          await sleep(wait * 1000);
          pending = await Promise.all(retry.map(() => postOrder(ctx, { credentials, body, key })));
        }
        expect(
          settled.length === N,
          `after retrying as Retry-After asks, ${N - settled.length} of ${N} requests still got 409 conflict`,
          all.slice(-2),
        );
        const originals = all.filter((e) => e.status === 201 && !replayed(e));
        expect(
          originals.length === 1,
          `exactly one answer must be the original execution (without Idempotent-Replayed: true); there were ${originals.length}`,
          originals.slice(0, 2),
        );
        ctx.log(
          `  ${N} concurrent requests: ${all.filter((e) => e.status === 409).length} in-flight conflicts, ${all.filter(replayed).length} replays, ${all.length - N} retries`,
        );
        const [original] = originals;
        for (const e of settled)
          if (e !== original && original) expectReplay(original, e, 'a concurrent retry with the same key');
        await expectOneOrder(
          ctx,
          credentials,
          listed.domain,
          (jsonOf(original!) as OrderJson).public_id,
          `${N} concurrent requests with one key`,
        );
      },
    },
    {
      id: 'partner.orders.idempotency.stores-4xx',
      rules: ['spec:partner:createOrder#/x-idempotency'],
      name: 'a 422 price_mismatch outcome is stored and replayed (and the domain stays on sale)',
      async run(ctx) {
        const credentials = await ctx.credentials();
        const listed = await listedDomain(ctx, credentials);
        const key = randomUUID();
        const body = JSON.stringify(orderRequest(listed, { expected_price: listed.price + 100 }));
        const first = await postOrder(ctx, { credentials, body, key, deliberate: true });
        expectError(
          first,
          422,
          'price_mismatch',
          `expected_price ${listed.price + 100} for a domain listed at ${listed.price}`,
        );
        expectFresh(first, 'the first request with a key');
        expectReplay(
          first,
          await postOrder(ctx, { credentials, body, key, deliberate: true }),
          'the price_mismatch request retried with the same key',
        );
        await expectNoOrder(ctx, credentials, listed.domain, 'a price_mismatch creates no order');
        const good = await postOrder(ctx, {
          credentials,
          body: JSON.stringify(orderRequest(listed)),
          key: randomUUID(),
        });
        expectStatus(good, 201, 'the same domain at its listing price under a new key');
      },
    },
    {
      id: 'partner.orders.idempotency.stores-not-found',
      rules: ['spec:partner:createOrder#/x-idempotency'],
      name: 'a 404 not_found outcome (unlisted domain) is stored and replayed',
      async run(ctx) {
        const credentials = await ctx.credentials();
        const key = randomUUID();
        const body = JSON.stringify(orderRequest({ domain: unlistedDomain(), price: 10000, currency: 'USD' }));
        const first = await postOrder(ctx, { credentials, body, key, deliberate: true });
        expectError(first, 404, 'not_found', 'an order for an unlisted domain');
        expectFresh(first, 'the first request with a key');
        expectReplay(
          first,
          await postOrder(ctx, { credentials, body, key, deliberate: true }),
          'the not_found request retried with the same key',
        );
      },
    },
    {
      id: 'partner.orders.idempotency.per-credential',
      rules: ['spec:partner:createOrder#/x-idempotency'],
      needs: ['admin'],
      name: 'keys are scoped per credential: another credential of the same partner may use the same key for another order',
      async run(ctx) {
        const one = await ctx.mint(['search', 'buy']);
        const two = await ctx.admin!.mint({
          scopes: ['search', 'buy'],
          partner_id: one.partnerId,
          rate_limits: { search: 100_000, write: 100_000, reporting: 100_000 },
        });
        const [a, b] = await listedDomains(ctx, one, 2);
        if (!a || !b) throw new CheckFailure('the inventory search found fewer than two listed, unsold domains');
        const key = randomUUID();
        const first = await postOrder(ctx, { credentials: one, body: JSON.stringify(orderRequest(a)), key });
        expectStatus(first, 201, 'the first credential records an order');
        const second = await postOrder(ctx, { credentials: two, body: JSON.stringify(orderRequest(b)), key });
        expectStatus(second, 201, 'the second credential of the same partner, same Idempotency-Key, another body');
        expectFresh(second, 'the same key under another credential');
        expect(
          (jsonOf(second) as OrderJson).public_id !== (jsonOf(first) as OrderJson).public_id,
          'the two credentials got the same order under the same key',
          [first, second],
        );
      },
    },
  ],
};
