// Error codes of the public REST surface (the public ErrorCode table and each
// response's `x-error-codes`): every code a client can provoke from outside, with its status, the
// `Error` body and request_id; the Bearer challenges of 401 and 403 (RFC 6750, RFC 9728); the
// 405s the contract documents; Idempotency-Key replays and conflicts; and the batch rules: more
// than 20 entries or duplicate ids fail the whole request, a bad entry fails alone, and every
// entry answers exactly as its single call.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { CheckFailure, expect, property, type Context, type Family } from '../context.ts';
import { jsonOf, type Exchange } from '../http.ts';
import { BOGUS_TOKEN, callPublic, expectChallenge, expectPublicCode, okJson, tokensFor } from './public-support.ts';

interface Samples {
  domains: string[];
  tlds: string[];
}

const samplesCache = new WeakMap<Context, Promise<Samples>>();
/** Listed domains and their TLDs, from one listings page (real names of the deployment). */
export function samples(ctx: Context): Promise<Samples> {
  let s = samplesCache.get(ctx);
  if (!s) {
    s = (async () => {
      const e = await callPublic(ctx, 'listMarketListings', { query: { limit: 50, sort: 'domain' } });
      const body = okJson<{ data: Array<{ domain: string; tld: string }> }>(
        e,
        'GET /api/market/listings?limit=50 (names to use)',
      );
      expect(body.data.length > 0, 'GET /api/market/listings lists nothing; the checks need a few listed domains', [e]);
      return { domains: body.data.map((l) => l.domain), tlds: [...new Set(['com', ...body.data.map((l) => l.tld)])] };
    })();
    samplesCache.set(ctx, s);
  }
  return s;
}

const withoutRequestId = (body: unknown) => {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
  const { request_id: _id, ...rest } = body as Record<string, unknown>;
  return rest;
};
const stable = (v: unknown): string =>
  JSON.stringify(v, (_k, value: unknown) =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
      : value,
  );

type Entry = { id: string; op: string; params: Record<string, unknown>; bad: boolean };

/** The single call a batch entry stands for (GET /api/batch's `equivalent`). */
function singleCall(ctx: Context, entry: Entry): Promise<Exchange> {
  const p = entry.params as Record<string, string>;
  switch (entry.op) {
    case 'search_domain':
      return callPublic(ctx, 'searchDomain', { json: p });
    case 'whois_lookup':
      return callPublic(ctx, 'whoisLookup', { json: p });
    case 'tld_registration_price':
      return callPublic(ctx, 'getTldPrice', { query: { tld: p.tld, action: p.op } });
    case 'tld_requirements':
      return callPublic(ctx, 'getTldMetadata', { pathParams: { tld: p.tld ?? '' } });
    default:
      throw new Error(`no single call for ${entry.op}`);
  }
}

function entriesArbitrary(s: Samples): fc.Arbitrary<Entry[]> {
  const good: fc.Arbitrary<Omit<Entry, 'id'>> = fc.oneof(
    fc.constantFrom(...s.domains).map((q) => ({ op: 'search_domain', params: { q }, bad: false })),
    fc
      .constantFrom(...s.domains)
      .map((q) => ({ op: 'search_domain', params: { q: q.split('.')[0] ?? q }, bad: false })),
    fc
      .tuple(
        fc.constantFrom(...s.tlds),
        fc.option(fc.constantFrom('register', 'renew', 'transfer', 'restore'), { nil: undefined }),
      )
      .map(([tld, op]) => ({ op: 'tld_registration_price', params: op ? { tld, op } : { tld }, bad: false })),
    fc.constantFrom(...s.tlds).map((tld) => ({ op: 'tld_requirements', params: { tld }, bad: false })),
    fc.constantFrom(...s.domains).map((domain) => ({ op: 'whois_lookup', params: { domain }, bad: false })),
  );
  const bad: fc.Arbitrary<Omit<Entry, 'id'>> = fc.oneof(
    fc
      .constantFrom('domain_appraisal', 'SEARCH_DOMAIN', 'search-domain', 'bulk_renew')
      .map((op) => ({ op, params: { q: 'bestcoffeebeans.com' }, bad: true })),
    fc
      .constantFrom<Record<string, unknown>>({}, { q: '' }, { q: 42 }, { q: 'a.com', extra: true })
      .map((params) => ({ op: 'search_domain', params, bad: true })),
    fc
      .constantFrom<Record<string, unknown>>({ tld: 'COM' }, { tld: 'com', op: 'buy' }, {}, { tld: 7 })
      .map((params) => ({ op: 'tld_registration_price', params, bad: true })),
    fc
      .constantFrom<Record<string, unknown>>({ domain: 'NOT VALID' }, {}, { domain: ['a.com'] })
      .map((params) => ({ op: 'whois_lookup', params, bad: true })),
    fc
      .constantFrom<Record<string, unknown>>({ tld: '-x' }, { tld: 'io', more: 1 })
      .map((params) => ({ op: 'tld_requirements', params, bad: true })),
  );
  return fc
    .array(fc.oneof({ weight: 3, arbitrary: good }, { weight: 2, arbitrary: bad }), { minLength: 1, maxLength: 20 })
    .chain((entries) =>
      fc
        .uniqueArray(fc.stringMatching(/^[a-z0-9_-]{1,12}$/), { minLength: entries.length, maxLength: entries.length })
        .map((ids) => entries.map((e, i) => ({ ...e, id: ids[i]! }))),
    );
}

const batchBody = (entries: Array<Pick<Entry, 'id' | 'op' | 'params'>>) => ({
  operations: entries.map(({ id, op, params }) => ({ id, op, params })),
});

export const publicErrorsFamily: Family = {
  name: 'public-error-codes',
  surface: 'public',
  description:
    'Every provokable public error code with its status and Error body; Bearer challenges; 405, 413, 415; Idempotency-Key; batch edges',
  needs: [],
  checks: [
    {
      id: 'public.errors.validation-error',
      rules: [
        'spec:public#/components/schemas/ErrorCode/x-status-of-code/validation_error',
        'spec:public#/components/schemas/Error',
      ],
      name: 'validation_error (with details) for bodies and parameters the contract refuses, on search, WHOIS, pricing and metadata',
      async run(ctx) {
        type Bad = {
          operationId: string;
          json?: unknown;
          raw?: string;
          query?: Record<string, string>;
          pathParams?: Record<string, string>;
          details: boolean;
          what: string;
        };
        const cases: fc.Arbitrary<Bad> = fc.oneof(
          fc
            .constantFrom<unknown>(
              {},
              { q: '' },
              { q: 42 },
              { q: null },
              { q: 'bestcoffeebeans.com', extra: 1 },
              { q: 'x'.repeat(254) },
            )
            .map((json) => ({
              operationId: 'searchDomain',
              json,
              details: true,
              what: `POST /api/domain/search ${JSON.stringify(json).slice(0, 60)}`,
            })),
          fc.constantFrom('[]', '"text"', '42', 'null').map((raw) => ({
            operationId: 'searchDomain',
            raw,
            details: false,
            what: `POST /api/domain/search with the body ${raw}`,
          })),
          fc
            .constantFrom<unknown>(
              {},
              { domain: 'NOT VALID' },
              { domain: 'no_dot' },
              { domain: 7 },
              { domain: 'a.com', q: 'a.com' },
            )
            .map((json) => ({
              operationId: 'whoisLookup',
              json,
              details: true,
              what: `POST /api/tools/whois ${JSON.stringify(json)}`,
            })),
          fc
            .constantFrom<Record<string, string>>(
              {},
              { tld: 'COM' },
              { tld: '-io' },
              { tld: 'com', action: 'buy' },
              { tld: 'c' },
            )
            .map((query) => ({
              operationId: 'getTldPrice',
              query,
              details: true,
              what: `GET /api/pricing/tld?${new URLSearchParams(query).toString()}`,
            })),
          fc.constantFrom('IO', 'a_b', '-io', 'x').map((tld) => ({
            operationId: 'getTldMetadata',
            pathParams: { tld },
            details: true,
            what: `GET /api/tlds/${tld}/metadata`,
          })),
        );
        await property(
          ctx,
          cases,
          async (c) => {
            const e = await callPublic(ctx, c.operationId, {
              ...(c.json !== undefined ? { json: c.json } : {}),
              ...(c.raw !== undefined ? { raw: c.raw } : {}),
              ...(c.query ? { query: c.query } : {}),
              ...(c.pathParams ? { pathParams: c.pathParams } : {}),
              deliberate: true,
            });
            expectPublicCode(ctx, e, 'validation_error', c.what);
            if (c.details) {
              const details = (jsonOf(e) as { details?: Array<{ path?: unknown; message?: unknown }> }).details;
              expect(
                Array.isArray(details) &&
                  details.length > 0 &&
                  details.every((d) => typeof d.path === 'string' && typeof d.message === 'string'),
                `${c.what}: the validation_error names each failing member in details [{ path, message }]`,
                [e],
              );
            }
          },
          Math.min(ctx.fc.numRuns, 25),
          { cost: { public: 1 } },
        );
      },
    },
    {
      id: 'public.errors.not-found',
      rules: ['spec:public#/components/schemas/ErrorCode/x-status-of-code/not_found'],
      name: 'not_found: a TLD not offered (pricing, metadata), an unknown docs page, an unknown path',
      async run(ctx) {
        expectPublicCode(
          ctx,
          await callPublic(ctx, 'getTldMetadata', { pathParams: { tld: 'notatld' }, deliberate: true }),
          'not_found',
          'GET /api/tlds/notatld/metadata',
        );
        expectPublicCode(
          ctx,
          await callPublic(ctx, 'getTldPrice', { query: { tld: 'notatld' }, deliberate: true }),
          'not_found',
          'GET /api/pricing/tld?tld=notatld',
        );
        expectPublicCode(
          ctx,
          await callPublic(ctx, 'getDocsPage', {
            pathParams: { page: 'no-such-page' },
            headers: { accept: 'application/json' },
            deliberate: true,
          }),
          'not_found',
          'GET /docs/no-such-page (Accept: application/json)',
        );
        for (const target of ['/api/no-such-operation', '/api/market/listings/extra', '/no-such-page']) {
          expectPublicCode(
            ctx,
            await ctx.http.send({ target, headers: { accept: 'application/json' }, deliberate: true }),
            'not_found',
            `GET ${target} (no such path)`,
          );
        }
      },
    },
    {
      id: 'public.errors.invalid-token',
      rules: [
        'spec:public#/components/schemas/ErrorCode/x-status-of-code/invalid_token',
        'seed:public › Authentication',
      ],
      name: 'a bad bearer token: 401 invalid_token with WWW-Authenticate: Bearer error="invalid_token", resource_metadata (search, batch, /api, /mcp); prices are never served masked instead',
      async run(ctx) {
        const tokens = fc.constantFrom(BOGUS_TOKEN, `${randomUUID()}`, 'at_', 'a'.repeat(200));
        await property(
          ctx,
          tokens,
          async (token) => {
            const search = await callPublic(ctx, 'searchDomain', {
              json: { q: 'bestcoffeebeans.com' },
              bearer: token,
              deliberate: true,
            });
            expectPublicCode(
              ctx,
              search,
              'invalid_token',
              `POST /api/domain/search with the bearer token "${token.slice(0, 40)}"`,
            );
            expectChallenge(ctx, search, { error: 'invalid_token' }, 'POST /api/domain/search with a bad token');
            const batch = await callPublic(ctx, 'runBatch', {
              json: batchBody([{ id: 'a', op: 'tld_requirements', params: { tld: 'com' } }]),
              bearer: token,
              deliberate: true,
            });
            expectPublicCode(ctx, batch, 'invalid_token', 'POST /api/batch with a bad token (the whole request fails)');
            expectChallenge(ctx, batch, { error: 'invalid_token' }, 'POST /api/batch with a bad token');
          },
          3,
          { cost: { public: 2 } },
        );
        const probe = await callPublic(ctx, 'probeApi', { bearer: BOGUS_TOKEN, deliberate: true });
        expectPublicCode(ctx, probe, 'invalid_token', 'GET /api with a bad token');
        expectChallenge(ctx, probe, { error: 'invalid_token', scope: 'pricing:read' }, 'GET /api with a bad token');
        const mcp = await callPublic(ctx, 'postMcpMessage', {
          json: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
          headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
          bearer: BOGUS_TOKEN,
          deliberate: true,
        });
        expectPublicCode(ctx, mcp, 'invalid_token', 'POST /mcp with a bad token');
        expectChallenge(ctx, mcp, { error: 'invalid_token', resourcePath: '/mcp' }, 'POST /mcp with a bad token');
      },
    },
    {
      id: 'public.errors.missing-credentials',
      rules: ['spec:public:probeApi#/description', 'seed:public › Authentication'],
      name: 'no token where one is needed: 401 missing_credentials with a Bearer challenge without error, naming resource_metadata and the scope (GET /api, bulk)',
      async run(ctx) {
        const probe = await callPublic(ctx, 'probeApi', { deliberate: true });
        expectPublicCode(ctx, probe, 'missing_credentials', 'GET /api without a token');
        expectChallenge(ctx, probe, { error: undefined, scope: 'pricing:read' }, 'GET /api without a token');
        const bulk = await callPublic(ctx, 'runBulkDomainOperation', {
          pathParams: { op: 'lock' },
          json: { domains: ['bestcoffeebeans.com'] },
          deliberate: true,
        });
        expectPublicCode(ctx, bulk, 'missing_credentials', 'POST /api/domains/bulk/lock without a token');
        expectChallenge(
          ctx,
          bulk,
          { error: undefined, scope: 'domains:manage' },
          'POST /api/domains/bulk/lock without a token',
        );
        const bad = await callPublic(ctx, 'runBulkDomainOperation', {
          pathParams: { op: 'lock' },
          json: { domains: ['bestcoffeebeans.com'] },
          bearer: BOGUS_TOKEN,
          deliberate: true,
        });
        expectPublicCode(ctx, bad, 'invalid_token', 'POST /api/domains/bulk/lock with a bad token');
        expectChallenge(
          ctx,
          bad,
          { error: 'invalid_token', scope: 'domains:manage' },
          'POST /api/domains/bulk/lock with a bad token',
        );
      },
    },
    {
      id: 'public.errors.insufficient-scope',
      rules: ['spec:public:runBulkDomainOperation#/description'],
      needs: ['oauth-user'],
      name: 'insufficient_scope: a valid pricing:read token on a bulk operation is 403 with error="insufficient_scope", scope="domains:manage"',
      async run(ctx) {
        const { accessToken } = await tokensFor(ctx, 'pricing:read');
        const e = await callPublic(ctx, 'runBulkDomainOperation', {
          pathParams: { op: 'lock' },
          json: { domains: ['bestcoffeebeans.com'] },
          bearer: accessToken,
          deliberate: true,
        });
        expectPublicCode(ctx, e, 'insufficient_scope', 'POST /api/domains/bulk/lock with a pricing:read token');
        expectChallenge(
          ctx,
          e,
          { error: 'insufficient_scope', scope: 'domains:manage' },
          'POST /api/domains/bulk/lock with a pricing:read token',
        );
        const probe = await callPublic(ctx, 'probeApi', { bearer: accessToken });
        expect(
          probe.status === 200,
          `GET /api with a valid token (any scope) answers the API index, got ${probe.status}`,
          [probe],
        );
      },
    },
    {
      id: 'public.errors.body-limits',
      rules: ['spec:public#/components/schemas/ErrorCode/x-status-of-code/payload_too_large'],
      name: 'payload_too_large (a body over 1 MiB) and unsupported_media_type (text/plain, form bodies) on the JSON POSTs',
      async run(ctx) {
        const big = JSON.stringify({ q: 'bestcoffeebeans.com', padding: 'x'.repeat(1024 * 1024 + 16) });
        for (const operationId of ['searchDomain', 'runBatch']) {
          expectPublicCode(
            ctx,
            await callPublic(ctx, operationId, { raw: big, deliberate: true }),
            'payload_too_large',
            `${operationId} with a ${big.length}-byte body`,
          );
          expectPublicCode(
            ctx,
            await callPublic(ctx, operationId, {
              raw: '{"q":"bestcoffeebeans.com"}',
              contentType: 'text/plain',
              deliberate: true,
            }),
            'unsupported_media_type',
            `${operationId} with Content-Type text/plain`,
          );
        }
        expectPublicCode(
          ctx,
          await callPublic(ctx, 'whoisLookup', {
            raw: 'domain=bestcoffeebeans.com',
            contentType: 'application/x-www-form-urlencoded',
            deliberate: true,
          }),
          'unsupported_media_type',
          'POST /api/tools/whois form-encoded',
        );
      },
    },
    {
      id: 'public.errors.method-not-allowed',
      rules: ['spec:public:getMcpStream#/responses/405'],
      name: 'method_not_allowed where documented: GET and DELETE /mcp are 405 with Allow: POST',
      async run(ctx) {
        for (const operationId of ['getMcpStream', 'deleteMcpSession']) {
          const e = await callPublic(ctx, operationId, { headers: { accept: 'text/event-stream' }, deliberate: true });
          expectPublicCode(ctx, e, 'method_not_allowed', `${operationId} (the server is stateless)`);
          const allow = e.responseHeaders.allow ?? '';
          expect(
            allow
              .split(',')
              .map((m) => m.trim().toUpperCase())
              .includes('POST'),
            `a 405 on /mcp must carry Allow listing POST, got ${allow ? `"${allow}"` : 'none'}`,
            [e],
          );
        }
      },
    },
    {
      id: 'public.errors.idempotency',
      rules: ['spec:public#/components/parameters/IdempotencyKey'],
      name: 'Idempotency-Key on POST /api/domain/search: the same key and body replays byte for byte (Idempotent-Replayed: true), another body is 409 conflict',
      async run(ctx) {
        const { domains } = await samples(ctx);
        await property(
          ctx,
          fc.tuple(fc.constantFrom(...domains), fc.constantFrom(...domains)),
          async ([a, b]) => {
            fc.pre(a !== b);
            const client = ctx.http.clients.fresh();
            const key = randomUUID();
            const send = (q: string, spaced = false) =>
              callPublic(ctx, 'searchDomain', {
                raw: spaced ? `{ "q" : ${JSON.stringify(q)} }` : JSON.stringify({ q }),
                headers: { 'idempotency-key': key },
                ...(client ? { client } : {}),
                deliberate: true,
              });
            const first = await send(a);
            expect(
              first.status === 200,
              `POST /api/domain/search {q: ${a}} with a new Idempotency-Key answered ${first.status}`,
              [first],
            );
            const again = await send(a, true);
            expect(
              again.status === first.status && again.responseBody === first.responseBody,
              'the same Idempotency-Key and body (other whitespace) must replay the stored status and body byte for byte',
              [first, again],
            );
            expect(
              again.responseHeaders['idempotent-replayed'] === 'true',
              `a replay must carry Idempotent-Replayed: true, got ${again.responseHeaders['idempotent-replayed'] ?? 'none'}`,
              [again],
            );
            expectPublicCode(ctx, await send(b), 'conflict', `the same Idempotency-Key with another body ({q: ${b}})`);
          },
          3,
          { cost: { public: 3 } },
        );
      },
    },
    {
      id: 'public.batch.whole-request-errors',
      rules: ['spec:public#/components/schemas/BatchRequest', 'seed:public › Limits'],
      name: 'batch: duplicate ids, an entry without params or id, or no operations fail the whole request with 400 validation_error (the size limit: public.batch.max-entries)',
      async run(ctx) {
        const entry = (id: string) => ({ id, op: 'tld_requirements', params: { tld: 'com' } });
        const cases: Array<[string, unknown]> = [
          ['two entries with the id "a"', { operations: [entry('a'), entry('b'), entry('a')] }],
          ['an entry without params', { operations: [entry('a'), { id: 'b', op: 'tld_requirements' }] }],
          ['an entry without id', { operations: [{ op: 'tld_requirements', params: { tld: 'com' } }] }],
          ['no operations', { operations: [] }],
        ];
        // Refused whole, nothing runs: one call.
        for (const [what, body] of cases)
          expectPublicCode(
            ctx,
            await callPublic(ctx, 'runBatch', { json: body, cost: 1, deliberate: true }),
            'validation_error',
            `POST /api/batch with ${what}`,
          );
      },
    },
    {
      id: 'public.batch.per-entry',
      rules: ['spec:public:runBatch#/description', 'seed:public › Endpoints › Public REST'],
      name: 'batch: one result per entry in order; a bad entry gets its own 400 validation_error, the others answer exactly as their single calls',
      async run(ctx) {
        const s = await samples(ctx);
        await property(
          ctx,
          entriesArbitrary(s),
          async (entries) => {
            const e = await callPublic(ctx, 'runBatch', {
              json: batchBody(entries),
              deliberate: entries.some((x) => x.bad),
            });
            const body = okJson<{ results?: Array<{ id?: unknown; op?: unknown; status?: unknown; body?: unknown }> }>(
              e,
              `POST /api/batch with ${entries.length} entries (${entries.filter((x) => x.bad).length} bad)`,
            );
            const results = body.results ?? [];
            expect(
              results.length === entries.length,
              `a batch of ${entries.length} entries answered ${results.length} results`,
              [e],
            );
            for (const [i, entry] of entries.entries()) {
              const r = results[i]!;
              expect(
                r.id === entry.id && r.op === entry.op,
                `result ${i + 1} is ${JSON.stringify({ id: r.id, op: r.op })}; entry ${i + 1} was ${JSON.stringify({ id: entry.id, op: entry.op })} (results come in request order)`,
                [e],
              );
              if (entry.bad) {
                const err = r.body as { code?: unknown; message?: unknown } | undefined;
                expect(
                  r.status === 400 && err?.code === 'validation_error' && typeof err.message === 'string',
                  `the bad entry ${JSON.stringify(entry)} must answer its own 400 validation_error, got ${String(r.status)} ${JSON.stringify(r.body).slice(0, 200)}`,
                  [e],
                );
              } else {
                expect(
                  r.status !== 400 && r.status !== 429,
                  `the well-formed entry ${JSON.stringify(entry)} answered ${String(r.status)} ${JSON.stringify(r.body).slice(0, 200)}`,
                  [e],
                );
              }
            }
            // Up to three good entries against their single calls (the rate limit counts each).
            for (const entry of entries.filter((x) => !x.bad).slice(0, 3)) {
              const r = results[entries.indexOf(entry)]!;
              const single = await singleCall(ctx, entry);
              const same =
                single.status === r.status &&
                stable(withoutRequestId(jsonOf(single))) === stable(withoutRequestId(r.body));
              if (!same)
                throw new CheckFailure(
                  `the batch entry ${JSON.stringify(entry)} answered ${String(r.status)} ${JSON.stringify(r.body).slice(0, 300)}; its single call answers ${single.status} ${single.responseBody.slice(0, 300)}`,
                  [e, single],
                );
            }
          },
          Math.min(ctx.fc.numRuns, 12),
          { cost: { public: 6 } },
        );
      },
    },
  ],
};
