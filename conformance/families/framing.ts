// How each surface reads the HTTP request itself, before any operation runs (the root
// `x-head`, `x-single-headers`, `x-request-target` and `x-unknown-query-parameters` of the
// partner and public documents, and x-signing `request-target` and `repeated-headers`): HEAD is
// the GET without its body (signed as HEAD on the partner API); a repeated Host, credential or
// signing header is a 400, never joined or read as one copy; a target in absolute form is
// routed on its path (refused by the partner API), a malformed one is a JSON 400; an undocumented
// query parameter is a 400; the refusals made before any operation (`x-protocol-refusals`:
// HTTP/2.0, CONNECT, an unknown Expect, an early 413) are the contract's Error (protocol-refusals.ts).
// Requests no client library sends as written go out as raw bytes (raw-http.ts).
import { randomUUID } from 'node:crypto';
import { canonicalString, HEADERS, signatureHex } from '../../client/protocol/index.ts';
import { CheckFailure, expect, expectStatus, oncePerRun, type Context, type Family } from '../context.ts';
import { jsonOf, splitOnce, type Credentials, type Exchange } from '../http.ts';
import { headerValue, sendRaw, type RawAnswer } from '../raw-http.ts';
import { expectCode } from './errors.ts';
import { partnerOp, partnerScopes, unlistedDomain } from './orders-support.ts';
import { protocolRefusalChecks } from './protocol-refusals.ts';
import { callPublic, publicOp } from './public-support.ts';

/** The signature headers of a partner request, signed with METHOD `signMethod` (the method sent, unless a check errs on purpose). */
function signatureHeaders(
  ctx: Context,
  credentials: Credentials,
  signMethod: string,
  target: string,
  body = '',
): Array<[string, string]> {
  const [path, query] = splitOnce(target, '?');
  const timestamp = String(ctx.http.nowSeconds());
  const nonce = randomUUID();
  const canonical = canonicalString({ method: signMethod, path, query, timestamp, nonce, body });
  return [
    [HEADERS.keyId, credentials.keyId],
    [HEADERS.timestamp, timestamp],
    [HEADERS.nonce, nonce],
    [HEADERS.signature, `v1=${signatureHex(credentials.secret, canonical)}`],
  ];
}

/** The raw exchange of an answer, for a failure's evidence. */
const ev = (...answers: Array<RawAnswer | Exchange>): Exchange[] =>
  answers.map((a) => ('exchange' in a ? a.exchange : a));

/**
 * Fails unless the HEAD answer is the GET's status and headers without the body (`x-head`):
 * the same status and Content-Type, a Content-Length equal to the GET body's length in bytes,
 * the headers a GET answer derives from its body (a page's CSP) equal, and no byte of body.
 */
function expectHeadAsGet(head: RawAnswer, get: Exchange, why: string, sameHeaders: string[] = []): void {
  const problems: string[] = [];
  if (head.status !== get.status) problems.push(`status ${head.status}, the GET's is ${get.status}`);
  if (headerValue(head, 'content-type') !== get.responseHeaders['content-type'])
    problems.push(
      `Content-Type ${JSON.stringify(headerValue(head, 'content-type'))}, the GET's is ${JSON.stringify(get.responseHeaders['content-type'])}`,
    );
  const getLength = Buffer.byteLength(get.responseBody);
  const length = headerValue(head, 'content-length');
  if (length !== String(getLength))
    problems.push(
      `Content-Length ${length === undefined ? '(none)' : length}, the GET's body is ${getLength} bytes (HEAD carries the GET's Content-Length)`,
    );
  for (const name of sameHeaders)
    if (headerValue(head, name) !== get.responseHeaders[name])
      problems.push(`${name} differs from the GET's (${JSON.stringify(headerValue(head, name))})`);
  if (headerValue(head, 'x-request-id') === undefined) problems.push('no X-Request-Id');
  if (head.body.length > 0) problems.push(`${head.body.length} bytes of body follow the header block (HEAD has none)`);
  if (!head.closed) problems.push('the connection was neither closed nor finished after Connection: close');
  if (problems.length > 0)
    throw new CheckFailure(
      `${why}: the HEAD answer is not the GET's without its body: ${problems.join('; ')}`,
      ev(head, get),
    );
}

/** The error code of a raw answer's JSON Error body (validation_error...), checked like any other. */
function expectRawCode(ctx: Context, answer: RawAnswer, code: string, why: string, api: 'partner' | 'public'): void {
  expectCode(ctx, answer.exchange, code, why, api);
}

/** A credential of the run: every scope the operations read here ask for. */
async function partnerCredentials(ctx: Context): Promise<Credentials> {
  return ctx.admin ? oncePerRun(ctx, 'http-framing credential', () => ctx.mint(partnerScopes(ctx))) : ctx.credentials();
}

const AVAILABILITY = 'getAvailability';

export const framingFamily: Family = {
  name: 'http-framing',
  surface: 'partner',
  description:
    'The partner API reads the request line and headers as the contract says: HEAD signed as HEAD, repeated signing headers and Host refused, no absolute-form target, undocumented query parameters refused, HTTP/2.0, CONNECT, unknown Expect and an oversized 100-continue refused with the Error body',
  needs: ['credentials'],
  checks: [
    {
      id: 'partner.http.head.as-get',
      rules: ['spec:partner#/x-head', 'spec:partner#/info/description'],
      name: 'HEAD signed as HEAD answers as the GET does, without a body: same status, Content-Type and Content-Length',
      async run(ctx) {
        const credentials = await partnerCredentials(ctx);
        const op = partnerOp(ctx, AVAILABILITY);
        // An unlisted name: its answer (available false) cannot change between the two requests.
        const target = `${op.operation.path}?domain=${unlistedDomain()}`;
        const get = await ctx.http.signed({ target, credentials, operation: op.operation, rateClass: op.rateClass });
        expectStatus(get, 200, `GET ${target}`);
        const head = await sendRaw(ctx, {
          method: 'HEAD',
          target,
          headers: signatureHeaders(ctx, credentials, 'HEAD', target),
        });
        expectHeadAsGet(head, get, `HEAD ${target} signed with METHOD HEAD`);
        expect(
          headerValue(head, 'ratelimit-policy') !== undefined,
          `HEAD ${target}: no RateLimit-Policy (HEAD counts against the rate limit like the GET, with its headers)`,
          ev(head, get),
        );
      },
    },
    {
      id: 'partner.http.head.signed-as-head',
      rules: ['spec:partner#/x-head', 'spec:partner#/x-signing/canonical-string'],
      name: "a HEAD carrying a signature made for GET is refused with 401: HEAD's canonical METHOD line is HEAD",
      async run(ctx) {
        const credentials = await partnerCredentials(ctx);
        const op = partnerOp(ctx, AVAILABILITY);
        const target = `${op.operation.path}?domain=${unlistedDomain()}`;
        const head = await sendRaw(ctx, {
          method: 'HEAD',
          target,
          headers: signatureHeaders(ctx, credentials, 'GET', target),
        });
        // A HEAD answer has no body to name the code in: the status is the refusal.
        expect(
          head.status === 401,
          `HEAD ${target} signed over METHOD GET answered ${head.status}; the signature names the method sent (HEAD), so it is 401 invalid_signature`,
          ev(head),
        );
      },
    },
    {
      id: 'partner.http.single-headers',
      rules: ['spec:partner#/x-single-headers', 'spec:partner#/x-signing/repeated-headers'],
      name: 'a request carrying Host, X-Service-Key-Id, X-Service-Nonce or X-Service-Signature twice is 400 validation_error, whichever copy the signature is over',
      async run(ctx) {
        const credentials = await partnerCredentials(ctx);
        const op = partnerOp(ctx, AVAILABILITY);
        const target = `${op.operation.path}?domain=${unlistedDomain()}`;
        const host = new URL(ctx.http.baseUrl).host;
        const cases: Array<[string, (signed: Array<[string, string]>) => Array<[string, string]>]> = [
          ['Host twice (the same value)', (s) => [['Host', host], ['Host', host], ...s]],
          // The signature is over the first nonce: a verifier reading the first copy would accept it.
          ['X-Service-Nonce twice', (s) => [...s, [HEADERS.nonce, randomUUID()]]],
          [
            'X-Service-Signature twice (the valid one first)',
            (s) => [...s, [HEADERS.signature, `v1=${'0'.repeat(64)}`]],
          ],
          ['X-Service-Key-Id twice (the same key id)', (s) => [...s, [HEADERS.keyId, credentials.keyId]]],
        ];
        for (const [what, headers] of cases) {
          const answer = await sendRaw(ctx, {
            method: 'GET',
            target,
            headers: headers(signatureHeaders(ctx, credentials, 'GET', target)),
          });
          expectRawCode(ctx, answer, 'validation_error', `GET ${target} with ${what}`, 'partner');
        }
      },
    },
    {
      id: 'partner.http.request-target',
      rules: ['spec:partner#/x-request-target', 'spec:partner#/x-signing/request-target'],
      name: 'a correctly signed request whose target is in absolute form (http://host/path) or carries a fragment is 400 validation_error: only the origin form has a PATH line',
      async run(ctx) {
        const credentials = await partnerCredentials(ctx);
        const op = partnerOp(ctx, AVAILABILITY);
        const target = `${op.operation.path}?domain=${unlistedDomain()}`;
        const absolute = `${ctx.http.baseUrl}${target}`;
        // Signed over the path and query it names, as a signer that ignores the form would.
        const sent = await sendRaw(ctx, {
          method: 'GET',
          target: absolute,
          headers: signatureHeaders(ctx, credentials, 'GET', target),
        });
        expectRawCode(ctx, sent, 'validation_error', `GET ${absolute} (absolute form)`, 'partner');
        const fragment = await sendRaw(ctx, {
          method: 'GET',
          target: `${target}#frag`,
          headers: signatureHeaders(ctx, credentials, 'GET', target),
        });
        expectRawCode(ctx, fragment, 'validation_error', `GET ${target}#frag (a fragment)`, 'partner');
      },
    },
    {
      id: 'partner.http.unknown-query-parameters',
      rules: ['spec:partner#/x-unknown-query-parameters', 'spec:partner#/info/description'],
      name: 'a correctly signed request with a query parameter its operation does not document (a misspelt filter) is 400 validation_error, never answered unfiltered',
      async run(ctx) {
        const credentials = await partnerCredentials(ctx);
        for (const [operationId, query, name] of [
          [AVAILABILITY, `domain=${unlistedDomain()}&colour=red`, 'colour'],
          ['listOrders', 'statuss=PAID&limit=5', 'statuss'],
        ] as const) {
          const op = partnerOp(ctx, operationId);
          undocumented(ctx, operationId, name);
          const e = await ctx.http.signed({
            target: `${op.operation.path}?${query}`,
            credentials,
            operation: op.operation,
            rateClass: op.rateClass,
            deliberate: true,
          });
          expectCode(
            ctx,
            e,
            'validation_error',
            `GET ${op.operation.path}?${query} (${name} is not a parameter of ${operationId})`,
          );
        }
      },
    },
    // Unsigned requests: each refusal comes before any operation, hence any signature, is looked at.
    ...protocolRefusalChecks('partner', () => undefined),
  ],
};

/** Throws (a kit defect, not the deployment's) when the contract documents `name` after all. */
function undocumented(ctx: Context, operationId: string, name: string): void {
  if (ctx.spec.byId(operationId).parameters.some((p) => p.in === 'query' && p.name === name))
    throw new Error(`${operationId} documents the query parameter ${name}: pick another undocumented one`);
}

// ---------------------------------------------------------------------------------------------
// The public surface

/** A client of the run's pool for the raw requests of one check (its own rate-limit window), if any. */
const poolClient = (ctx: Context) => ctx.http.clients.fresh();

function publicTarget(ctx: Context, operationId: string, params: Record<string, string>, query = ''): string {
  const op = publicOp(ctx, operationId);
  const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? name));
  return query ? `${path}?${query}` : path;
}

export const publicFramingFamily: Family = {
  name: 'public-http-framing',
  surface: 'public',
  description:
    'The public surface reads the request line and headers as the contract says: HEAD as GET without a body, repeated Host, Authorization or Idempotency-Key refused, absolute-form targets routed, malformed ones a JSON 400, undocumented query parameters refused, HTTP/2.0, CONNECT, unknown Expect and an oversized 100-continue refused with the Error body',
  needs: [],
  checks: [
    {
      id: 'public.http.head.as-get',
      rules: ['spec:public#/x-head', 'spec:public#/info/description'],
      name: 'HEAD answers as the GET does, without a body, on a JSON read and an HTML page: same status, Content-Type, Content-Length and page CSP',
      async run(ctx) {
        const localAddress = poolClient(ctx);
        for (const [operationId, params, accept, same] of [
          ['getTldMetadata', { tld: 'com' }, 'application/json', []],
          ['getDocsIndex', {}, 'text/html', ['content-security-policy']],
        ] as const) {
          const target = publicTarget(ctx, operationId, params);
          const get = await callPublic(ctx, operationId, {
            pathParams: params,
            headers: { accept },
            ...(localAddress ? { client: localAddress } : {}),
          });
          expectStatus(get, 200, `GET ${target}`);
          const head = await sendRaw(ctx, { method: 'HEAD', target, headers: [['Accept', accept]], localAddress });
          expectHeadAsGet(head, get, `HEAD ${target}`, [...same]);
        }
      },
    },
    {
      id: 'public.http.single-headers',
      rules: ['spec:public#/x-single-headers'],
      name: 'a request carrying Host, Authorization or Idempotency-Key twice is 400 validation_error, never read as one copy',
      async run(ctx) {
        const localAddress = poolClient(ctx);
        const host = new URL(ctx.http.baseUrl).host;
        const metadata = publicTarget(ctx, 'getTldMetadata', { tld: 'com' });
        const probe = publicTarget(ctx, 'probeApi', {});
        const search = publicTarget(ctx, 'searchDomain', {});
        const cases: Array<[string, string, string, Array<[string, string]>, string?]> = [
          [
            'Host twice (the same value)',
            'GET',
            metadata,
            [
              ['Host', host],
              ['Host', host],
            ],
          ],
          // Two tokens no deployment issued: read as one copy, either is a 401 invalid_token.
          [
            'Authorization twice',
            'GET',
            probe,
            [
              ['Authorization', 'Bearer at_conformance_first_copy_0123456789abcdef'],
              ['Authorization', 'Bearer at_conformance_second_copy_0123456789abcde'],
            ],
          ],
          [
            'Idempotency-Key twice',
            'POST',
            search,
            [
              ['Content-Type', 'application/json'],
              ['Idempotency-Key', randomUUID()],
              ['Idempotency-Key', randomUUID()],
            ],
            JSON.stringify({ query: 'coffee' }),
          ],
        ];
        for (const [what, method, target, headers, body] of cases) {
          const answer = await sendRaw(ctx, {
            method,
            target,
            headers: [['Accept', 'application/json'], ...headers],
            localAddress,
            ...(body !== undefined ? { body } : {}),
          });
          expectRawCode(ctx, answer, 'validation_error', `${method} ${target} with ${what}`, 'public');
        }
      },
    },
    {
      id: 'public.http.request-target',
      rules: ['spec:public#/x-request-target'],
      name: 'an absolute-form target (http://host/path) is answered as its path; `*` is 404 not_found; a malformed target (http://[, http://) is 400 validation_error with the Error body and X-Request-Id',
      async run(ctx) {
        const localAddress = poolClient(ctx);
        const target = publicTarget(ctx, 'getTldMetadata', { tld: 'com' });
        const accept: Array<[string, string]> = [['Accept', 'application/json']];
        const origin = await callPublic(ctx, 'getTldMetadata', {
          pathParams: { tld: 'com' },
          ...(localAddress ? { client: localAddress } : {}),
        });
        expectStatus(origin, 200, `GET ${target}`);
        const absolute = await sendRaw(ctx, {
          method: 'GET',
          target: `${ctx.http.baseUrl}${target}`,
          headers: accept,
          localAddress,
        });
        expect(
          absolute.status === 200 && absolute.body.toString('utf8') === origin.responseBody,
          `GET ${ctx.http.baseUrl}${target} (absolute form) answered ${absolute.status}; it is routed on its path and query, as GET ${target} (200, the same body)`,
          ev(absolute, origin),
        );
        const asterisk = await sendRaw(ctx, { method: 'GET', target: '*', headers: accept, localAddress });
        expectRawCode(ctx, asterisk, 'not_found', 'GET * (the asterisk form: no operation takes it)', 'public');
        for (const malformed of ['http://[', 'http://']) {
          const answer = await sendRaw(ctx, { method: 'GET', target: malformed, headers: accept, localAddress });
          expectRawCode(ctx, answer, 'validation_error', `GET ${malformed} (a malformed target)`, 'public');
        }
      },
    },
    {
      id: 'public.http.unknown-query-parameters',
      rules: ['spec:public#/x-unknown-query-parameters', 'spec:public#/info/description'],
      name: 'a query parameter an operation does not document (a misspelt filter) is 400 validation_error; the browser entry points (x-eov-allow-unknown-query-parameters) ignore it',
      async run(ctx) {
        for (const [operationId, params, query, name] of [
          ['listMarketListings', {}, 'sortt=price_asc&limit=5', 'sortt'],
          ['getTldMetadata', { tld: 'com' }, 'colour=red', 'colour'],
        ] as const) {
          undocumented(ctx, operationId, name);
          const e = await callPublic(ctx, operationId, { pathParams: params, query, deliberate: true });
          expectCode(
            ctx,
            e,
            'validation_error',
            `GET ${publicTarget(ctx, operationId, params, query)} (a parameter the operation does not document)`,
            'public',
          );
        }
        // An entry point that ignores them: an unknown link is still its 404, not a 400.
        const link = await callPublic(ctx, 'followReferralLink', {
          pathParams: { code: `conformance${randomUUID().slice(0, 8)}` },
          query: 'utm_source=conformance',
          headers: { accept: 'application/json' },
          deliberate: true,
        });
        expect(
          link.status !== 400,
          `GET /r/{code}?utm_source=… answered 400: the referral entry point accepts and ignores parameters it does not document (x-eov-allow-unknown-query-parameters)`,
          [link],
        );
        const body = jsonOf(link) as { code?: unknown } | undefined;
        expect(
          link.status === 404 && body?.code === 'not_found',
          `GET /r/{unknown code} answered ${link.status} ${String(body?.code)}, expected 404 not_found`,
          [link],
        );
      },
    },
    ...protocolRefusalChecks('public', poolClient),
  ],
};
