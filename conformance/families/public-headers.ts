// Headers of the public surface (the document's `x-rate-limit-classes` and
// `x-security-headers`): every answer carries X-Request-Id, the security headers and the five
// rate-limit fields of the "public" policy (60 per 60 s per client), consistent with each other
// and counting down one per call, a batch entry being a call; clients are counted apart (per IP, per token); past the quota a 429 rate_limited with
// Retry-After. The 429 is provoked only where allowed (the local reference server, or
// --provoke-rate-limit); elsewhere the suite stays inside the limits.
import fc from 'fast-check';
import { CheckFailure, CheckSkipped, expect, property, type Context, type Family } from '../context.ts';
import { jsonOf, type Exchange } from '../http.ts';
import { formActionCheck } from './form-action.ts';
import { operationOf, rateLimitFields, rateLimitProblems, type RateLimitFields } from './headers.ts';
import { BOGUS_TOKEN, callPublic, tokensFor } from './public-support.ts';

/** The documented policy of the public surface. */
function documented(ctx: Context): { quota: number; window: number } {
  const classes = ctx.spec.documents.public['x-rate-limit-classes'] as
    Record<string, { quota?: number; 'window-seconds'?: number }> | undefined;
  const p = classes?.public;
  if (!p?.quota || !p['window-seconds']) throw new Error('the public document has no x-rate-limit-classes.public');
  return { quota: p.quota, window: p['window-seconds'] };
}

/** The public exchanges of the run (aimed at, or matching, an operation of the public document, or no partner path). */
export function publicExchanges(ctx: Context): Exchange[] {
  return ctx.http.exchanges.filter((e) => {
    const found = operationOf(ctx, e);
    if (found) return found.api === 'public';
    const path = e.url.slice(ctx.http.baseUrl.length);
    return !path.startsWith('/api/partner/') && !path.startsWith('/api/admin/');
  });
}

function fieldsOf(ctx: Context, e: Exchange, why: string): RateLimitFields {
  const problems = rateLimitProblems(ctx, e, operationOf(ctx, e));
  if (problems.length > 0) throw new CheckFailure(`${why}: ${problems.join('; ')}`, [e]);
  const fields = rateLimitFields(e);
  if (!fields)
    throw new CheckFailure(
      `${why}: the answer (${e.status}) carries no RateLimit-Policy/RateLimit/RateLimit-Limit/RateLimit-Remaining/RateLimit-Reset (every public answer does)`,
      [e],
    );
  const { quota, window } = documented(ctx);
  if (fields.policy.name !== 'public' || fields.policy.q !== quota || fields.policy.w !== window) {
    throw new CheckFailure(
      `${why}: RateLimit-Policy "${fields.policy.name}";q=${fields.policy.q};w=${fields.policy.w}; x-rate-limit-classes documents "public";q=${quota};w=${window}`,
      [e],
    );
  }
  return fields;
}

const reset = (before: RateLimitFields, after: RateLimitFields) =>
  after.current.t > before.current.t || after.current.r >= before.current.r;

/** Cheap reads that create nothing, one per kind of answer. */
const PROBES: Array<[string, Parameters<typeof callPublic>[2]]> = [
  ['getBatchCatalogue', {}],
  ['getAuthorizationServerMetadata', {}],
  ['getTldMetadata', { pathParams: { tld: 'com' } }],
  ['listMarketListings', { query: { limit: 1 } }],
];

export const publicHeadersFamily: Family = {
  name: 'public-headers',
  surface: 'public',
  description:
    'X-Request-Id, the security headers and the "public" RateLimit fields on every answer, counting down per call and per client; 429 with Retry-After',
  needs: [],
  checks: [
    {
      id: 'public.headers.rate-limit',
      rules: ['spec:public#/x-rate-limit-classes', 'seed:public › Limits'],
      name: 'RateLimit-Policy is "public";q=60;w=60 (x-rate-limit-classes), the older trio agrees, and r drops by exactly one per call',
      async run(ctx) {
        await property(
          ctx,
          fc.array(fc.integer({ min: 0, max: PROBES.length - 1 }), { minLength: 2, maxLength: 5 }),
          async (sequence) => {
            const client = ctx.http.clients.fresh();
            let previous: { e: Exchange; f: RateLimitFields } | undefined;
            for (const [n, i] of sequence.entries()) {
              const [operationId, request] = PROBES[i]!;
              const e = await callPublic(ctx, operationId, { ...request, ...(client ? { client } : {}) });
              expect(e.status === 200, `${operationId} answered ${e.status}`, [e]);
              const f = fieldsOf(ctx, e, `${operationId} (call ${n + 1})`);
              // A window that this call opened (t = w) started from the full quota; a client address
              // reused within a minute of an earlier run continues its window instead.
              if (client && n === 0 && f.current.t === f.policy.w)
                expect(
                  f.current.r === f.policy.q - 1,
                  `the first call of a new window should leave q-1 = ${f.policy.q - 1}; RateLimit says r=${f.current.r}`,
                  [e],
                );
              if (previous && !reset(previous.f, f))
                expect(
                  f.current.r === previous.f.current.r - 1,
                  `RateLimit r went from ${previous.f.current.r} to ${f.current.r} in one call within the window (t ${previous.f.current.t} → ${f.current.t}); it should drop by exactly one`,
                  [previous.e, e],
                );
              previous = { e, f };
            }
          },
          ctx.http.clients.size > 0 ? Math.min(ctx.fc.numRuns, 10) : 2,
        );
      },
    },
    {
      id: 'public.headers.batch-cost',
      rules: ['spec:public#/x-rate-limit-classes', 'seed:public › Endpoints › Public REST'],
      name: 'a batch of n entries counts n calls (the request itself not again)',
      async run(ctx) {
        // One client for the whole run (a remote deployment): small batches, its window is the run's.
        await property(
          ctx,
          fc.integer({ min: 1, max: ctx.http.clients.size > 0 ? 20 : 4 }),
          async (n) => {
            const client = ctx.http.clients.fresh();
            const before = await callPublic(ctx, 'getBatchCatalogue', client ? { client } : {});
            const a = fieldsOf(ctx, before, 'GET /api/batch before the batch');
            const operations = Array.from({ length: n }, (_, i) => ({
              id: `t${i}`,
              op: 'tld_requirements',
              params: { tld: 'com' },
            }));
            const batch = await callPublic(ctx, 'runBatch', { json: { operations }, ...(client ? { client } : {}) });
            expect(batch.status === 200, `POST /api/batch with ${n} entries answered ${batch.status}`, [batch]);
            const b = fieldsOf(ctx, batch, `POST /api/batch with ${n} entries`);
            if (!reset(a, b))
              expect(
                b.current.r === a.current.r - n,
                `a batch of ${n} entries moved RateLimit r from ${a.current.r} to ${b.current.r}; each entry counts as one call, so it should be ${a.current.r - n}`,
                [before, batch],
              );
          },
          ctx.http.clients.size > 0 ? Math.min(ctx.fc.numRuns, 6) : 1,
        );
      },
    },
    {
      id: 'public.headers.every-answer',
      rules: ['spec:public#/info/description'],
      name: 'every public answer of the run (errors, pages, OAuth, MCP included) carries X-Request-Id and consistent RateLimit fields (none on the x-rate-limit: none probes)',
      async run(ctx) {
        // A few answers of other kinds, so the rule is tried on them even in a short run (each
        // only when the run has no answer of that kind yet).
        const had = (status: number, path: string) =>
          publicExchanges(ctx).some((e) => e.status === status && new URL(e.url).pathname.startsWith(path));
        if (!had(404, '/docs/'))
          await callPublic(ctx, 'getDocsPage', { pathParams: { page: 'no-such-page' }, deliberate: true });
        if (!had(405, '/mcp')) await callPublic(ctx, 'getMcpStream', { deliberate: true });
        if (!had(401, '/api/domain/search'))
          await callPublic(ctx, 'searchDomain', {
            json: { q: 'bestcoffeebeans.com' },
            bearer: BOGUS_TOKEN,
            deliberate: true,
          });
        if (!had(400, '/api/oauth/token'))
          await callPublic(ctx, 'requestToken', {
            raw: 'grant_type=password',
            contentType: 'application/x-www-form-urlencoded',
            deliberate: true,
          });
        if (!had(404, '/api/no-such')) await ctx.http.send({ target: '/api/no-such-operation', deliberate: true });
        const seen = publicExchanges(ctx);
        const problems: Array<[Exchange, string]> = [];
        const ids = new Map<string, Exchange>();
        for (const e of seen) {
          const id = e.responseHeaders['x-request-id'];
          if (!id) problems.push([e, 'no X-Request-Id']);
          else if (ids.has(id) && e.responseHeaders['idempotent-replayed'] !== 'true')
            problems.push([e, `X-Request-Id "${id}" was already given to another answer`]);
          else ids.set(id, e);
          // A 500 may come before the client is counted (the document says so); the rest carry all five.
          if (e.status === 500) continue;
          // The health probes are not counted at all (`x-rate-limit: none`): they carry none.
          if (operationOf(ctx, e)?.op.rateClass === 'none') {
            if (rateLimitFields(e) !== undefined)
              problems.push([e, 'RateLimit fields on an operation the document marks x-rate-limit: none']);
            continue;
          }
          if (rateLimitFields(e) === undefined) problems.push([e, 'no (or incomplete) RateLimit fields']);
          else for (const p of rateLimitProblems(ctx, e, operationOf(ctx, e))) problems.push([e, p]);
        }
        ctx.log(`  reviewed ${seen.length} public answers`);
        if (problems.length > 0) {
          const lines = problems
            .slice(0, 10)
            .map(([e, p]) => `  ${e.method} ${e.url.slice(ctx.http.baseUrl.length)} → ${e.status}: ${p}`);
          throw new CheckFailure(
            `${problems.length} of ${seen.length} public answers break the header rules:\n${lines.join('\n')}`,
            problems.slice(0, 2).map(([e]) => e),
          );
        }
      },
    },
    {
      id: 'public.headers.cors',
      rules: ['spec:public#/x-cors'],
      name: 'CORS (x-cors): every answer of an any-origin path, errors included, carries Access-Control-Allow-Origin: * and never allows credentials; a foreign Origin changes nothing',
      async run(ctx) {
        // One answer with a foreign Origin and one error, so the rule is tried on them in a short run.
        await callPublic(ctx, 'listMarketListings', {
          query: { limit: 1 },
          headers: { origin: 'https://elsewhere.example.net' },
        });
        await callPublic(ctx, 'getDocsPage', { pathParams: { page: 'no-such-page' }, deliberate: true });
        const problems: Array<[Exchange, string]> = [];
        let reviewed = 0;
        for (const e of publicExchanges(ctx)) {
          if (operationOf(ctx, e)?.op.cors !== 'any-origin') continue;
          reviewed++;
          const allow = e.responseHeaders['access-control-allow-origin'];
          if (allow !== '*') problems.push([e, `Access-Control-Allow-Origin is ${allow ?? '(none)'}, not *`]);
          if (e.responseHeaders['access-control-allow-credentials'] !== undefined)
            problems.push([e, 'Access-Control-Allow-Credentials on a path whose credentials are "never"']);
        }
        expect(reviewed > 0, 'the run has no answer of an any-origin path to review');
        ctx.log(`  reviewed ${reviewed} answers of any-origin paths`);
        if (problems.length > 0)
          throw new CheckFailure(
            `${problems.length} of ${reviewed} answers of any-origin paths break x-cors:\n${problems
              .slice(0, 10)
              .map(([e, p]) => `  ${e.method} ${e.url.slice(ctx.http.baseUrl.length)} → ${e.status}: ${p}`)
              .join('\n')}`,
            problems.slice(0, 2).map(([e]) => e),
          );
      },
    },
    {
      id: 'public.headers.security',
      rules: ['spec:public#/x-security-headers'],
      name: 'security headers (x-security-headers): nosniff on every public answer; every HTML answer allows no script, frames nowhere and sends no referrer; HSTS on an https deployment',
      async run(ctx) {
        // HTML answers of two kinds, so the rule is tried on pages even in a short run.
        await callPublic(ctx, 'getDocsIndex', { headers: { accept: 'text/html' } });
        await callPublic(ctx, 'getDocsPage', {
          pathParams: { page: 'no-such-page' },
          headers: { accept: 'text/html' },
          deliberate: true,
        });
        const policy = ctx.spec.documents.public['x-security-headers'] as
          Record<string, Record<string, string>> | undefined;
        if (!policy) throw new Error('the public document has no x-security-headers');
        const https = ctx.http.baseUrl.startsWith('https://');
        const problems: Array<[Exchange, string]> = [];
        const seen = publicExchanges(ctx);
        let pages = 0;
        for (const e of seen) {
          const headers = e.responseHeaders;
          const expected = { ...policy['every-answer'], ...(https ? policy['https-deployments'] : {}) };
          for (const [name, value] of Object.entries(expected))
            if (headers[name.toLowerCase()] !== value)
              problems.push([e, `${name} is ${JSON.stringify(headers[name.toLowerCase()])}, not "${value}"`]);
          if (!/^text\/html\b/i.test(headers['content-type'] ?? '')) continue;
          pages++;
          for (const [name, value] of Object.entries(policy['html-answers'] ?? {})) {
            if (name.toLowerCase() !== 'content-security-policy' && headers[name.toLowerCase()] !== value)
              problems.push([e, `${name} is ${JSON.stringify(headers[name.toLowerCase()])}, not "${value}"`]);
          }
          const csp = new Map(
            (headers['content-security-policy'] ?? '')
              .split(';')
              .map((d) => d.trim().split(/\s+/))
              .filter((d) => d[0])
              .map((d) => [d[0]!.toLowerCase(), d.slice(1)] as const),
          );
          if (csp.get('default-src')?.join(' ') !== "'none'")
            problems.push([
              e,
              `the CSP's default-src is not 'none' (${headers['content-security-policy'] ?? 'no CSP'})`,
            ]);
          if (csp.get('frame-ancestors')?.join(' ') !== "'none'")
            problems.push([e, "the CSP does not say frame-ancestors 'none'"]);
          if (csp.has('script-src') || /unsafe-inline|unsafe-eval/.test(headers['content-security-policy'] ?? ''))
            problems.push([e, 'the CSP allows scripts or unsafe-inline']);
        }
        ctx.log(`  reviewed ${seen.length} public answers, ${pages} of them HTML`);
        expect(pages >= 2, 'the docs pages were answered as HTML', seen.slice(-2));
        if (problems.length > 0) {
          const lines = problems
            .slice(0, 10)
            .map(([e, p]) => `  ${e.method} ${e.url.slice(ctx.http.baseUrl.length)} → ${e.status}: ${p}`);
          throw new CheckFailure(
            `${problems.length} security-header problems in ${seen.length} public answers:\n${lines.join('\n')}`,
            problems.slice(0, 2).map(([e]) => e),
          );
        }
      },
    },
    formActionCheck,
    {
      id: 'public.headers.429',
      rules: ['spec:public#/components/schemas/ErrorCode/x-status-of-code/rate_limited', 'seed:public › Limits'],
      name: 'past the quota: 429 rate_limited with Retry-After (whole seconds, >= 1) and r=0; another client and a bearer token are counted apart',
      async run(ctx) {
        if (!ctx.provokeRateLimit)
          throw new CheckSkipped(
            '--provoke-rate-limit: the suite spends a public rate-limit window on purpose only when allowed (always against the in-process reference server)',
          );
        const client = ctx.http.clients.fresh();
        const { quota } = documented(ctx);
        const send = (operationId: string, request: Parameters<typeof callPublic>[2] = {}) =>
          callPublic(ctx, operationId, {
            ...request,
            ...(client ? { client } : {}),
            acceptRateLimit: true,
            deliberate: true,
          });
        // Spend the window: batches of 20 (each entry one call), then single calls.
        let spent: RateLimitFields | undefined;
        const sent: Exchange[] = [];
        for (let i = 0; i < Math.ceil(quota / 20) + 2 && (spent?.current.r ?? 1) > 0; i++) {
          const left = spent?.current.r ?? quota;
          const n = Math.max(1, Math.min(20, left));
          const e = await send('runBatch', {
            json: {
              operations: Array.from({ length: n }, (_, j) => ({
                id: `q${j}`,
                op: 'tld_requirements',
                params: { tld: 'com' },
              })),
            },
          });
          sent.push(e);
          if (e.status !== 200) break;
          spent = fieldsOf(ctx, e, `batch ${i + 1} spending the quota`);
        }
        expect(
          spent?.current.r === 0,
          `after ${sent.length} batches the window is not spent (RateLimit r=${spent?.current.r ?? '?'})`,
          sent.slice(-1),
        );
        const refused = await send('getBatchCatalogue');
        const body = jsonOf(refused) as { code?: unknown } | undefined;
        expect(
          refused.status === 429 && body?.code === 'rate_limited',
          `a call after the quota of ${quota} is spent should be 429 rate_limited, got ${refused.status} ${String(body?.code ?? '')}`,
          [sent[sent.length - 1]!, refused],
        );
        const retry = refused.responseHeaders['retry-after'];
        expect(
          retry !== undefined && /^\d+$/.test(retry) && Number(retry) >= 1,
          `a 429 must carry Retry-After in whole seconds >= 1, got ${retry === undefined ? 'none' : `"${retry}"`}`,
          [refused],
        );
        const f = fieldsOf(ctx, refused, 'the 429');
        expect(f.current.r === 0, `the 429 should say r=0, got r=${f.current.r}`, [refused]);
        expect(
          Number(retry) <= f.current.t + 1,
          `Retry-After ${retry} is later than the window reset (t=${f.current.t})`,
          [refused],
        );
        if (client) {
          const other = ctx.http.clients.fresh();
          if (other) {
            const e = await callPublic(ctx, 'getBatchCatalogue', { client: other });
            expect(
              e.status === 200,
              `another client (${other}) is refused too (${e.status}): the limit is per client`,
              [refused, e],
            );
          }
        }
        if (ctx.options.oauthUser) {
          const { accessToken } = await tokensFor(ctx);
          const e = await send('searchDomain', { json: { q: 'bestcoffeebeans.com' }, bearer: accessToken });
          expect(
            e.status === 200,
            `a call with a valid bearer token from the spent client answered ${e.status}; calls with a token are counted per token`,
            [refused, e],
          );
        }
      },
    },
  ],
};
