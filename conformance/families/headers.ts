// Response headers the contract gives a meaning beyond their syntax (spec/shared/headers.yaml, x-rate-limit-classes): the rate-limit
// fields agree with their policy and with the operation's `x-rate-limit` class, count down one
// request at a time, are absent from the partner 401s (the caller is not identified), and a 429
// says how long to wait; `Deprecation`, `Sunset` and `Link` are well-formed where they appear.
// The per-answer rules are exported: the schema family applies them to every exchange of a run.
import { CheckFailure, expect, type Context, type Family } from '../context.ts';
import { jsonOf, splitOnce, type Credentials, type Exchange } from '../http.ts';
import type { SpecOperation } from '../spec.ts';
import { openCheckout } from './checkout-support.ts';
import { listedDomain } from './orders-support.ts';

type Json = Record<string, unknown>;
export type Api = 'partner' | 'public';

// ---------------------------------------------------------------------------------------------
// Shared helpers: which operation an exchange was aimed at

/** The request path of an exchange without the base URL and query, as sent (escapes untouched). */
export function concretePath(ctx: Context, exchange: Exchange): string {
  const target = exchange.url.startsWith(ctx.http.baseUrl)
    ? exchange.url.slice(ctx.http.baseUrl.length)
    : new URL(exchange.url).pathname;
  return splitOnce(target, '?')[0] || '/';
}

/** The contract operation an exchange belongs to (the sender's declared one first), with its document. */
export function operationOf(ctx: Context, exchange: Exchange): { api: Api; op: SpecOperation } | undefined {
  const apis: Api[] = ['partner', 'public'];
  if (exchange.operation) {
    for (const api of apis) {
      const op = ctx.spec.find(api, exchange.operation.method, exchange.operation.path);
      if (op) return { api, op };
    }
  }
  const path = concretePath(ctx, exchange);
  for (const api of apis) {
    const op = ctx.spec.match(api, exchange.method, path);
    if (op) return { api, op };
  }
  return undefined;
}

/** Which surface an exchange belongs to: its operation's document, else partner for /api/partner and /api/admin paths. */
export function surfaceOf(ctx: Context, exchange: Exchange): Api {
  const found = operationOf(ctx, exchange);
  if (found) return found.api;
  const path = concretePath(ctx, exchange);
  return path.startsWith('/api/partner/') || path.startsWith('/api/admin/') ? 'partner' : 'public';
}

/** Follows `$ref`s inside one document. */
export function resolveRef(doc: Json, node: Json): Json {
  let current = node;
  for (let i = 0; typeof current.$ref === 'string' && i < 20; i++)
    current = nodeAt(doc, current.$ref.replace(/^#/, '')) ?? {};
  return current;
}

/** The node at a JSON pointer of a document. */
export function nodeAt(doc: Json, pointer: string): Json | undefined {
  let target: unknown = doc;
  for (const part of pointer.replace(/^\//, '').split('/')) {
    if (part === '') continue;
    if (target === null || typeof target !== 'object') return undefined;
    target = (target as Json)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return target && typeof target === 'object' ? (target as Json) : undefined;
}

/** The pointer a node's `$ref` chain ends at (the pointer itself when it is no reference). */
export function finalPointer(doc: Json, pointer: string): string {
  let current = pointer;
  for (let i = 0; i < 20; i++) {
    const node = nodeAt(doc, current);
    if (!node || typeof node.$ref !== 'string') return current;
    current = node.$ref.replace(/^#/, '');
  }
  return current;
}

export const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

// ---------------------------------------------------------------------------------------------
// Rate-limit fields

const POLICY = /^"([a-z_]+)";q=(\d+);w=(\d+)$/;
const CURRENT = /^"([a-z_]+)";r=(\d+);t=(\d+)$/;
const FIELDS = ['ratelimit-policy', 'ratelimit', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'] as const;

export interface RateLimitFields {
  policy: { name: string; q: number; w: number };
  current: { name: string; r: number; t: number };
  limit: number;
  remaining: number;
  reset: number;
}

/** Parses the five fields; undefined when they are absent, incomplete or malformed. */
export function rateLimitFields(exchange: Exchange): RateLimitFields | undefined {
  const h = exchange.responseHeaders;
  const policy = POLICY.exec(h['ratelimit-policy'] ?? '');
  const current = CURRENT.exec(h.ratelimit ?? '');
  const int = (v: string | undefined) => (v !== undefined && /^\d+$/.test(v.trim()) ? Number(v.trim()) : undefined);
  const limit = int(h['ratelimit-limit']);
  const remaining = int(h['ratelimit-remaining']);
  const reset = int(h['ratelimit-reset']);
  if (!policy || !current || limit === undefined || remaining === undefined || reset === undefined) return undefined;
  return {
    policy: { name: policy[1] ?? '', q: Number(policy[2]), w: Number(policy[3]) },
    current: { name: current[1] ?? '', r: Number(current[2]), t: Number(current[3]) },
    limit,
    remaining,
    reset,
  };
}

/** The documented window of a rate-limit class (`x-rate-limit-classes`), when the document has it. */
function documentedWindow(ctx: Context, api: Api, name: string): number | undefined {
  const classes = ctx.spec.documents[api]['x-rate-limit-classes'] as
    Record<string, { 'window-seconds'?: number }> | undefined;
  return classes?.[name]?.['window-seconds'];
}

/** Whether class `name` is documented as a ceiling over class `of` (its `ceiling-of`): an answer may report either window. */
function isCeilingOf(ctx: Context, api: Api, name: string, of: string): boolean {
  const classes = ctx.spec.documents[api]['x-rate-limit-classes'] as
    Record<string, { 'ceiling-of'?: unknown }> | undefined;
  return classes?.[name]?.['ceiling-of'] === of;
}

/**
 * What is wrong with the rate-limit fields of one answer. Presence where the contract requires
 * them is the schema family's rule; this checks that the fields present agree with each other,
 * with the operation's class and, on the partner surface, that a 401 carries none.
 */
export function rateLimitProblems(
  ctx: Context,
  exchange: Exchange,
  found: { api: Api; op: SpecOperation } | undefined,
): string[] {
  const h = exchange.responseHeaders;
  const present = FIELDS.filter((f) => h[f] !== undefined);
  const problems: string[] = [];
  if (found?.api === 'partner' && exchange.status === 401) {
    if (present.length > 0)
      problems.push(
        `a partner 401 carries ${present.join(', ')}: the credential is not identified, so the contract sends no rate-limit fields`,
      );
    return problems;
  }
  if (exchange.status === 429) {
    const retry = h['retry-after'];
    if (retry === undefined) problems.push('a 429 without Retry-After');
    else if (!/^\d+$/.test(retry.trim()) || Number(retry) < 1)
      problems.push(`Retry-After "${retry}" is not whole seconds >= 1`);
  }
  if (present.length === 0) return problems;
  if (present.length < FIELDS.length) {
    problems.push(`only some rate-limit fields are sent (${present.join(', ')}); the contract sends all five together`);
    return problems;
  }
  const fields = rateLimitFields(exchange);
  if (!fields) {
    problems.push(
      `malformed rate-limit fields: RateLimit-Policy "${h['ratelimit-policy']}", RateLimit "${h.ratelimit}", RateLimit-Limit "${h['ratelimit-limit']}", RateLimit-Remaining "${h['ratelimit-remaining']}", RateLimit-Reset "${h['ratelimit-reset']}"`,
    );
    return problems;
  }
  const { policy, current, limit, remaining, reset } = fields;
  if (current.name !== policy.name)
    problems.push(`RateLimit names "${current.name}" but RateLimit-Policy names "${policy.name}"`);
  const cls = found?.op.rateClass;
  if (cls !== undefined && policy.name !== cls && !(found && isCeilingOf(ctx, found.api, policy.name, cls)))
    problems.push(
      `RateLimit-Policy names class "${policy.name}"; the operation's x-rate-limit is "${cls}" (or a class documented as its ceiling)`,
    );
  if (limit !== policy.q) problems.push(`RateLimit-Limit ${limit} differs from the policy's q=${policy.q}`);
  if (remaining !== current.r) problems.push(`RateLimit-Remaining ${remaining} differs from RateLimit r=${current.r}`);
  if (reset !== current.t) problems.push(`RateLimit-Reset ${reset} differs from RateLimit t=${current.t}`);
  if (current.t > policy.w) problems.push(`RateLimit t=${current.t} is beyond the window w=${policy.w}`);
  if (current.r > policy.q) problems.push(`RateLimit r=${current.r} is above the quota q=${policy.q}`);
  const window = found ? documentedWindow(ctx, found.api, policy.name) : undefined;
  if (window !== undefined && policy.w !== window)
    problems.push(
      `RateLimit-Policy w=${policy.w}; x-rate-limit-classes documents a ${window} s window for "${policy.name}"`,
    );
  if (exchange.status === 429 && current.r !== 0)
    problems.push(`a 429 with RateLimit r=${current.r} (requests still left)`);
  if (exchange.status === 429) {
    const retry = Number(h['retry-after']);
    if (Number.isInteger(retry) && retry > policy.w)
      problems.push(`Retry-After ${retry} is longer than the window w=${policy.w}`);
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------
// Deprecation

const IMF_FIXDATE =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;
const DEPRECATION_LINK =
  /<[^>]+>[^,]*;\s*rel\s*=\s*(?:"(?:[^"]*\s)?deprecation(?:\s[^"]*)?"|deprecation(?=\s*(?:;|,|$)))/i;

/** What is wrong with `Deprecation`, `Sunset` and `Link` of one answer (nothing when it has no Deprecation). */
export function deprecationProblems(exchange: Exchange): string[] {
  const h = exchange.responseHeaders;
  const deprecation = h.deprecation;
  const sunset = h.sunset;
  const problems: string[] = [];
  let sunsetSeconds: number | undefined;
  if (sunset !== undefined) {
    const ms = Date.parse(sunset);
    if (!IMF_FIXDATE.test(sunset) || Number.isNaN(ms) || new Date(ms).toUTCString() !== sunset)
      problems.push(`Sunset "${sunset}" is not an IMF-fixdate (e.g. "Sun, 06 Nov 1994 08:49:37 GMT")`);
    else sunsetSeconds = ms / 1000;
  }
  if (deprecation === undefined) return problems;
  const match = /^@(\d+)$/.exec(deprecation);
  if (!match) problems.push(`Deprecation "${deprecation}" is not @<unix-seconds>`);
  if (sunset === undefined) problems.push('Deprecation without Sunset');
  else if (match && sunsetSeconds !== undefined && sunsetSeconds < Number(match[1]))
    problems.push(
      `Sunset ${sunset} is earlier than the deprecation (@${match[1]} = ${new Date(Number(match[1]) * 1000).toUTCString()})`,
    );
  const link = h.link;
  if (link === undefined) problems.push('Deprecation without a Link to the deprecation documentation');
  else if (!DEPRECATION_LINK.test(link)) problems.push(`Link "${link}" has no <url>; rel="deprecation" entry`);
  return problems;
}

// ---------------------------------------------------------------------------------------------
// The family

const SEARCH = { method: 'GET', path: '/api/partner/v1/availability' };
const REPORTING = { method: 'GET', path: '/api/partner/v1/events' };
const WRITE = { method: 'POST', path: '/api/partner/v1/quotes' };

/** One request of each rate-limit class that creates nothing (the write is refused by validation). */
const PROBES: Record<
  string,
  { operation: { method: string; path: string }; target: string; body?: string; deliberate?: boolean }
> = {
  search: { operation: SEARCH, target: `${SEARCH.path}?domain=bestcoffeebeans.com` },
  reporting: { operation: REPORTING, target: `${REPORTING.path}?limit=1` },
  write: { operation: WRITE, target: WRITE.path, body: '{}', deliberate: true },
};

/** A credential of its own (fresh counters) when the operator API is there, else the run's. */
async function probeCredential(ctx: Context): Promise<{ credentials: Credentials; fresh: boolean }> {
  if (ctx.admin) return { credentials: await ctx.mint(['search', 'buy', 'webhook']), fresh: true };
  return { credentials: await ctx.credentials(), fresh: false };
}

async function probe(ctx: Context, credentials: Credentials, cls: string, acceptRateLimit = false): Promise<Exchange> {
  const p = PROBES[cls];
  if (!p) throw new Error(`no probe for class ${cls}`);
  return ctx.http.signed({
    method: p.operation.method,
    target: p.target,
    credentials,
    operation: p.operation,
    rateClass: cls,
    acceptRateLimit,
    ...(p.body !== undefined ? { body: p.body } : {}),
    ...(p.deliberate ? { deliberate: true } : {}),
  });
}

function expectFields(ctx: Context, exchange: Exchange, why: string): RateLimitFields {
  const found = operationOf(ctx, exchange);
  const problems = rateLimitProblems(ctx, exchange, found);
  if (problems.length > 0) throw new CheckFailure(`${why}: ${problems.join('; ')}`, [exchange]);
  const fields = rateLimitFields(exchange);
  if (!fields)
    throw new CheckFailure(
      `${why}: the answer (${exchange.status}) carries no rate-limit fields, though the credential is identified`,
      [exchange],
    );
  return fields;
}

/** True when the window reset between two answers (the count may then start again). */
const windowReset = (before: RateLimitFields, after: RateLimitFields) =>
  after.current.t > before.current.t || after.current.r >= before.current.r;

export const headersFamily: Family = {
  name: 'headers',
  surface: 'partner',
  description:
    'RateLimit fields agree with their policy and count down; 401s carry none; 429 has Retry-After; Deprecation/Sunset/Link well-formed',
  needs: ['credentials'],
  checks: [
    {
      id: 'partner.headers.security',
      rules: ['spec:partner#/x-security-headers'],
      name: 'security headers (x-security-headers) on partner answers: every-answer headers (nosniff) on a 200, a 401 and a 404; HSTS on an https deployment',
      async run(ctx) {
        const policy = (ctx.spec.documents.partner['x-security-headers'] ?? {}) as {
          'every-answer'?: Record<string, string>;
          'https-deployments'?: Record<string, string>;
        };
        const wanted = {
          ...policy['every-answer'],
          ...(ctx.http.baseUrl.startsWith('https://') ? policy['https-deployments'] : {}),
        };
        expect(Object.keys(wanted).length > 0, "the partner document's x-security-headers lists no header");
        const { credentials } = await probeCredential(ctx);
        const answers: Array<[string, Exchange]> = [
          ['a signed GET /availability (200)', await probe(ctx, credentials, 'search')],
          [
            'an unsigned GET /availability (401)',
            await ctx.http.send({
              target: PROBES.search!.target,
              operation: PROBES.search!.operation,
              deliberate: true,
            }),
          ],
          [
            'a signed GET of an unknown partner path (404)',
            await ctx.http.signed({
              target: '/api/partner/v1/no-such-resource',
              credentials,
              rateClass: 'reporting',
              deliberate: true,
            }),
          ],
        ];
        for (const [what, e] of answers)
          for (const [name, value] of Object.entries(wanted)) {
            const got = e.responseHeaders[name.toLowerCase()];
            expect(
              got?.toLowerCase() === value.toLowerCase(),
              `${what} answered ${e.status} with ${name}: ${got ?? '(none)'}; x-security-headers puts ${name}: ${value} on every answer`,
              [e],
            );
          }
      },
    },
    {
      id: 'partner.headers.no-store',
      rules: ['spec:partner#/x-security-headers', 'spec:partner#/info/description'],
      name: 'Cache-Control: no-store on partner answers that carry capabilities or buyer data (a new checkout session, the event history, HEAD alike) and on their refusals (400, 401, 404): X-Service-* authentication does not keep a shared cache from storing them',
      async run(ctx) {
        const policy = (ctx.spec.documents.partner['x-security-headers'] ?? {}) as {
          'every-answer'?: Record<string, string>;
        };
        const wanted = policy['every-answer']?.['Cache-Control'];
        expect(
          wanted === 'no-store',
          `the partner document's x-security-headers every-answer gives Cache-Control ${String(wanted)}, not no-store`,
        );
        const credentials = ctx.admin ? await ctx.mint(['search', 'buy', 'embed', 'webhook']) : await ctx.credentials();
        const events = PROBES.reporting!;
        const answers: Array<[string, Exchange]> = [
          ['a signed GET /events (200, the event history)', await probe(ctx, credentials, 'reporting')],
          [
            'a signed HEAD /events (200)',
            await ctx.http.signed({
              method: 'HEAD',
              target: events.target,
              credentials,
              operation: events.operation,
              rateClass: 'reporting',
            }),
          ],
          ['a signed POST /quotes with an empty body (400)', await probe(ctx, credentials, 'write')],
          [
            'an unsigned GET /events (401)',
            await ctx.http.send({ target: events.target, operation: events.operation, deliberate: true }),
          ],
          [
            'a signed GET of an unknown partner path (404)',
            await ctx.http.signed({
              target: '/api/partner/v1/no-such-resource',
              credentials,
              rateClass: 'reporting',
              deliberate: true,
            }),
          ],
        ];
        // The answer that holds a bearer link to pay: only where the run may create things.
        if (ctx.writesAllowed) {
          const session = await openCheckout(ctx, credentials, await listedDomain(ctx, credentials));
          answers.unshift(['a signed POST /checkout-session (201, checkout_url with its pt token)', session.exchange]);
        }
        for (const [what, e] of answers) {
          const got = e.responseHeaders['cache-control'];
          expect(
            got?.toLowerCase() === 'no-store',
            `${what} answered ${e.status} with Cache-Control: ${got ?? '(none)'}; x-security-headers puts Cache-Control: no-store on every partner answer`,
            [e],
          );
        }
      },
    },
    {
      id: 'partner.headers.rate-limit.per-class',
      rules: ['spec:partner#/x-rate-limit-classes', 'spec:partner#/components/headers/RateLimit-Policy'],
      name: 'each class (search, reporting, write) answers with its own policy, and RateLimit r counts down by one per request',
      async run(ctx) {
        const { credentials, fresh } = await probeCredential(ctx);
        const classes = ctx.writesAllowed ? ['search', 'reporting', 'write'] : ['search', 'reporting'];
        for (const cls of classes) {
          let previous: { exchange: Exchange; fields: RateLimitFields } | undefined;
          for (let i = 0; i < 3; i++) {
            const exchange = await probe(ctx, credentials, cls);
            if (exchange.status >= 500 || exchange.status === 401)
              throw new CheckFailure(`a well-formed ${cls} request answered ${exchange.status}`, [exchange]);
            const fields = expectFields(ctx, exchange, `request ${i + 1} of class "${cls}"`);
            if (fresh && i === 0) {
              expect(
                fields.current.r === fields.policy.q - 1,
                `the first request of a new credential in class "${cls}" should leave q-1 = ${fields.policy.q - 1}, RateLimit says r=${fields.current.r}`,
                [exchange],
              );
            }
            if (previous && !windowReset(previous.fields, fields)) {
              expect(
                fields.current.r === previous.fields.current.r - 1,
                `class "${cls}": RateLimit r went from ${previous.fields.current.r} to ${fields.current.r} in one request within the window (t ${previous.fields.current.t} → ${fields.current.t}); it should drop by exactly one`,
                [previous.exchange, exchange],
              );
            }
            previous = { exchange, fields };
          }
        }
      },
    },
    {
      id: 'partner.headers.rate-limit.separate-classes',
      rules: ['spec:partner#/x-rate-limit-classes'],
      name: 'classes are counted separately: a reporting request leaves the search count alone',
      async run(ctx) {
        const { credentials } = await probeCredential(ctx);
        const first = await probe(ctx, credentials, 'search');
        const a = expectFields(ctx, first, 'first search request');
        const other = await probe(ctx, credentials, 'reporting');
        const b = expectFields(ctx, other, 'reporting request');
        expect(b.policy.name === 'reporting', `GET /events answered with policy "${b.policy.name}"`, [other]);
        const second = await probe(ctx, credentials, 'search');
        const c = expectFields(ctx, second, 'second search request');
        if (!windowReset(a, c)) {
          expect(
            c.current.r === a.current.r - 1,
            `search r went from ${a.current.r} to ${c.current.r} across one search and one reporting request; the reporting request must not count against "search"`,
            [first, other, second],
          );
        }
      },
    },
    {
      id: 'partner.headers.rate-limit.none-on-401',
      rules: ['spec:partner#/info/description'],
      name: '401 answers carry no rate-limit fields (the credential is not identified)',
      async run(ctx) {
        const credentials = await ctx.credentials();
        const unsigned = await ctx.http.send({ target: PROBES.search!.target, operation: SEARCH, deliberate: true });
        const badSignature = await ctx.http.signed({
          target: PROBES.search!.target,
          credentials,
          operation: SEARCH,
          deliberate: true,
          signatureOverride: (s) => s.replace(/.$/, (c) => (c === '0' ? '1' : '0')),
        });
        const unknownKey = await ctx.http.signed({
          target: PROBES.search!.target,
          credentials: { keyId: `${credentials.keyId}x`, secret: credentials.secret },
          operation: SEARCH,
          deliberate: true,
        });
        for (const [exchange, what] of [
          [unsigned, 'an unsigned request'],
          [badSignature, 'a wrong signature'],
          [unknownKey, 'an unknown key id'],
        ] as const) {
          expect(exchange.status === 401, `${what} should be refused with 401, got ${exchange.status}`, [exchange]);
          const problems = rateLimitProblems(ctx, exchange, operationOf(ctx, exchange));
          if (problems.length > 0) throw new CheckFailure(`${what}: ${problems.join('; ')}`, [exchange]);
        }
        // And every partner 401 the run has seen so far.
        for (const exchange of ctx.http.exchanges) {
          if (exchange.status !== 401) continue;
          const found = operationOf(ctx, exchange);
          if (found?.api !== 'partner') continue;
          const problems = rateLimitProblems(ctx, exchange, found);
          if (problems.length > 0)
            throw new CheckFailure(`a 401 of ${exchange.family} › ${exchange.check}: ${problems.join('; ')}`, [
              exchange,
            ]);
        }
      },
    },
    {
      id: 'partner.headers.rate-limit.429',
      rules: ['spec:partner#/components/schemas/ErrorCode/x-status-of-code/rate_limited', 'seed:partner › Limits'],
      needs: ['admin'],
      name: 'past the quota: 429 rate_limited with Retry-After in whole seconds >= 1 and r=0',
      async run(ctx) {
        const credentials = await ctx.mint(['search'], { rate_limits: { search: 2 } });
        const first = await probe(ctx, credentials, 'search', true);
        const a = expectFields(ctx, first, 'first request with quota 2');
        expect(
          a.policy.q === 2 && a.current.r === 1,
          `a credential minted with rate_limits {search: 2} should answer q=2 and r=1 to its first request, got q=${a.policy.q}, r=${a.current.r}`,
          [first],
        );
        // Sent together: the suite's recorder would otherwise wait out the spent window politely.
        const rest = await Promise.all([
          probe(ctx, credentials, 'search', true),
          probe(ctx, credentials, 'search', true),
        ]);
        const limited = rest.filter((e) => e.status === 429);
        const passed = rest.filter((e) => e.status !== 429);
        expect(
          limited.length === 1 && passed.length === 1,
          `with quota 2, the 2nd and 3rd requests in one window should be one accepted and one 429, got ${rest.map((e) => e.status).join(' and ')}`,
          rest,
        );
        const ok = passed[0]!;
        const last = expectFields(ctx, ok, 'the request that spends the quota');
        expect(
          last.current.r === 0,
          `the request that spends a quota of 2 should answer r=0, got r=${last.current.r}`,
          [ok],
        );
        const refused = limited[0]!;
        const body = jsonOf(refused) as { code?: unknown } | undefined;
        expect(
          body?.code === 'rate_limited',
          `a 429 should carry the Error code rate_limited, got ${JSON.stringify(body?.code)}`,
          [refused],
        );
        const retry = refused.responseHeaders['retry-after'];
        expect(
          retry !== undefined && /^\d+$/.test(retry) && Number(retry) >= 1,
          `a 429 should carry Retry-After in whole seconds >= 1, got ${retry === undefined ? 'none' : `"${retry}"`}`,
          [refused],
        );
        const fields = expectFields(ctx, refused, 'the 429');
        expect(fields.current.r === 0, `the 429 should say r=0, got r=${fields.current.r}`, [refused]);
        expect(
          Number(retry) <= fields.current.t + 1,
          `Retry-After ${retry} is later than the window reset (t=${fields.current.t})`,
          [refused],
        );
      },
    },
    {
      id: 'partner.headers.deprecation',
      rules: ['spec:partner#/info/description'],
      name: 'Deprecation is @<unix-seconds> with an IMF-fixdate Sunset not earlier and a rel="deprecation" Link, wherever it appears',
      async run(ctx) {
        const credentials = await ctx.credentials();
        // Deprecated operations of the contract must announce it; call the GET ones once.
        const deprecated = ctx.spec.operations.filter((o) => o.api === 'partner' && o.deprecated);
        for (const op of deprecated.filter(
          (o) => o.method === 'GET' && !o.path.includes('{') && o.parameters.every((p) => p.required !== true),
        )) {
          const exchange = await ctx.http.signed({
            target: op.path,
            credentials,
            operation: { method: op.method, path: op.path },
            ...(op.rateClass ? { rateClass: op.rateClass } : {}),
          });
          expect(
            exchange.responseHeaders.deprecation !== undefined || exchange.status >= 500,
            `${op.method} ${op.path} is deprecated in the contract but its answer has no Deprecation field`,
            [exchange],
          );
        }
        let seen = 0;
        for (const exchange of ctx.http.exchanges) {
          if (exchange.responseHeaders.deprecation === undefined && exchange.responseHeaders.sunset === undefined)
            continue;
          seen++;
          const problems = deprecationProblems(exchange);
          if (problems.length > 0)
            throw new CheckFailure(`deprecation fields of ${exchange.method} ${exchange.url}: ${problems.join('; ')}`, [
              exchange,
            ]);
          const found = operationOf(ctx, exchange);
          if (found && !found.op.deprecated)
            ctx.log(
              `  note: ${found.op.method} ${found.op.path} answers with Deprecation but the bundled contract does not mark it deprecated`,
            );
        }
        if (seen === 0)
          ctx.log(
            `  no answer so far carried Deprecation (${deprecated.length} operations are deprecated in the contract); the schema family checks the rest of the run`,
          );
      },
    },
  ],
};
