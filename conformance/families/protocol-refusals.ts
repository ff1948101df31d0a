// The refusals each surface makes before any operation is looked at (the root
// `x-protocol-refusals` of the partner and public documents): a request line naming another HTTP
// major version (`HTTP/2.0`), `CONNECT`, an `Expect` other than `100-continue`, and a body
// announced with `Expect: 100-continue` over `x-body-limits` `max-bytes`, refused before it is
// sent. Each answer is the contract's `Error` with the status and code the document names for
// it, `X-Request-Id`, the headers every answer carries (`x-security-headers`) and
// `Connection: close`. No client library sends these requests as written: they go out as raw
// bytes (raw-http.ts), so whatever answers at the base URL (a proxy in front included) is what
// the check judges, as for the rest of the http-framing families.
//
// The parser's other refusals are left out: a lowercase method, two Content-Lengths or 16 KiB of
// header fields are answered by whichever front reads the bytes first, with limits of its own,
// and the request timeout costs 10 s or more of waiting.
import { CheckFailure, expect, type Check, type Context } from '../context.ts';
import { headerValue, sendRaw, type RawAnswer } from '../raw-http.ts';
import { expectCode } from './errors.ts';
import { partnerOp } from './orders-support.ts';
import { publicOp } from './public-support.ts';

type Api = 'partner' | 'public';
type RefusalName = 'http-version' | 'connect' | 'expectation' | 'continue';

/** The status and code the document gives a refusal; throws (a kit or contract defect) when they disagree with x-status-of-code. */
function refusalOf(ctx: Context, api: Api, name: RefusalName): { status: number; code: string } {
  const root = ctx.spec.documents[api]['x-protocol-refusals'] as
    Record<string, { status?: unknown; code?: unknown } | undefined> | undefined;
  const entry = root?.[name];
  const code = entry?.code;
  if (typeof code !== 'string' || typeof entry?.status !== 'number')
    throw new Error(`the ${api} document's x-protocol-refusals has no status and code for ${name}`);
  if (ctx.spec.errorStatuses(api)[code] !== entry.status)
    throw new Error(
      `the ${api} x-protocol-refusals.${name} names ${entry.status} ${code}, which x-status-of-code does not`,
    );
  return { status: entry.status, code };
}

type EveryAnswer = Record<string, string>;

const everyAnswerOf = (ctx: Context, api: Api): EveryAnswer =>
  (ctx.spec.documents[api]['x-security-headers'] as { 'every-answer'?: EveryAnswer } | undefined)?.['every-answer'] ??
  {};

/**
 * The headers `x-security-headers` puts on this refusal. A CONNECT names an authority, never a
 * path under either surface, so it carries only what every document puts on every answer (the
 * partner document's `every-answer-means` leaves such refusals out of its own headers).
 */
function everyAnswer(ctx: Context, api: Api, name: RefusalName): EveryAnswer {
  const own = everyAnswerOf(ctx, api);
  if (name !== 'connect') return own;
  const others = (['partner', 'public'] as const).map((a) => everyAnswerOf(ctx, a));
  return Object.fromEntries(Object.entries(own).filter(([h, v]) => others.every((o) => o[h] === v)));
}

/**
 * Fails unless `answer` is the refusal `name` as `x-protocol-refusals` words it: its status and
 * code in the `Error` body (with X-Request-Id, checked like every Error), the headers every
 * answer carries and `Connection: close`, the connection then closed.
 */
function expectRefusal(ctx: Context, api: Api, name: RefusalName, answer: RawAnswer, why: string): void {
  const { code } = refusalOf(ctx, api, name);
  expectCode(ctx, answer.exchange, code, why, api);
  const problems: string[] = [];
  for (const [header, value] of Object.entries(everyAnswer(ctx, api, name)))
    if (headerValue(answer, header) !== value)
      problems.push(
        `${header}: ${headerValue(answer, header) ?? '(none)'}, x-security-headers puts ${value} on every answer`,
      );
  if (!/(^|,)\s*close\s*(,|$)/i.test(headerValue(answer, 'connection') ?? ''))
    problems.push(`Connection: ${headerValue(answer, 'connection') ?? '(none)'}, the refusal closes the connection`);
  if (!answer.closed) problems.push('the connection stayed open after the refusal');
  if (problems.length > 0) throw new CheckFailure(`${why}: ${problems.join('; ')}`, [answer.exchange]);
}

/** A request the surface takes, for the refusals to be made on: what it reads, and one that carries a body. */
function targets(ctx: Context, api: Api): { read: string; write: string } {
  if (api === 'partner')
    // Unsigned: each refusal comes before the signature is looked at.
    return {
      read: `${partnerOp(ctx, 'getAvailability').operation.path}?domain=bestcoffeebeans.com`,
      write: partnerOp(ctx, 'createQuote').operation.path,
    };
  return {
    read: publicOp(ctx, 'getTldMetadata').path.replace('{tld}', 'com'),
    write: publicOp(ctx, 'searchDomain').path,
  };
}

/** The authority of the base URL with its port, as a CONNECT target names it. */
function authority(ctx: Context): string {
  const base = new URL(ctx.http.baseUrl);
  return `${base.hostname}:${base.port || (base.protocol === 'https:' ? '443' : '80')}`;
}

const rule = (api: Api, name: RefusalName) => [`spec:${api}#/x-protocol-refusals/${name}`];

/** The checks of one surface; `client` gives the source address of a check's requests (the public pool's). */
export function protocolRefusalChecks(api: Api, client: (ctx: Context) => string | undefined): Check[] {
  return [
    {
      id: `${api}.http.refusal.http-version`,
      rules: [...rule(api, 'http-version'), `spec:${api}#/info/description`],
      name: 'a request line naming HTTP/2.0 is refused with the http-version refusal of x-protocol-refusals (505 http_version_not_supported, Error body, Connection: close); HTTP/1.0 is served',
      async run(ctx) {
        const localAddress = client(ctx);
        const { read } = targets(ctx, api);
        const accept: Array<[string, string]> = [['Accept', 'application/json']];
        const two = await sendRaw(ctx, {
          method: 'GET',
          target: read,
          version: 'HTTP/2.0',
          headers: accept,
          localAddress,
        });
        expectRefusal(ctx, api, 'http-version', two, `GET ${read} HTTP/2.0 (another major version)`);
        // Only the major version is refused: an HTTP/1.0 request reaches its operation (the
        // partner one unsigned: its 401, not the version's refusal).
        const one = await sendRaw(ctx, {
          method: 'GET',
          target: read,
          version: 'HTTP/1.0',
          headers: accept,
          localAddress,
        });
        const served = api === 'public' ? one.status === 200 : one.status === 401;
        expect(
          served,
          `GET ${read} HTTP/1.0 answered ${one.status}; HTTP/1.0 is served like HTTP/1.1 (${api === 'public' ? '200' : '401, the request being unsigned'})`,
          [one.exchange, two.exchange],
        );
      },
    },
    {
      id: `${api}.http.refusal.connect`,
      rules: rule(api, 'connect'),
      name: 'CONNECT is refused with the connect refusal of x-protocol-refusals (405 method_not_allowed with an empty Allow, Error body, Connection: close): the deployment is no proxy',
      async run(ctx) {
        const target = authority(ctx);
        const answer = await sendRaw(ctx, {
          method: 'CONNECT',
          target,
          headers: [['Host', target]],
          localAddress: client(ctx),
        });
        expectRefusal(ctx, api, 'connect', answer, `CONNECT ${target}`);
        expect(
          headerValue(answer, 'allow') === '',
          `CONNECT ${target}: Allow ${JSON.stringify(headerValue(answer, 'allow') ?? '(none)')}; the refusal carries an empty Allow (no method takes an authority-form target)`,
          [answer.exchange],
        );
      },
    },
    {
      id: `${api}.http.refusal.expectation`,
      rules: rule(api, 'expectation'),
      name: 'an Expect other than 100-continue is refused with the expectation refusal of x-protocol-refusals (417 expectation_failed, Error body, Connection: close), never ignored',
      async run(ctx) {
        const { read } = targets(ctx, api);
        const answer = await sendRaw(ctx, {
          method: 'GET',
          target: read,
          headers: [
            ['Accept', 'application/json'],
            ['Expect', 'x-conformance-expectation'],
          ],
          localAddress: client(ctx),
        });
        expectRefusal(ctx, api, 'expectation', answer, `GET ${read} with Expect: x-conformance-expectation`);
      },
    },
    {
      id: `${api}.http.refusal.continue-too-large`,
      rules: [...rule(api, 'continue'), `spec:${api}#/x-body-limits/max-bytes`],
      name: 'Expect: 100-continue with a Content-Length over x-body-limits max-bytes is refused with the continue refusal of x-protocol-refusals (413 payload_too_large) at once, without 100 Continue and before any byte of body is sent',
      async run(ctx) {
        const { write } = targets(ctx, api);
        const limits = ctx.spec.documents[api]['x-body-limits'] as { 'max-bytes'?: unknown } | undefined;
        const max = limits?.['max-bytes'];
        if (typeof max !== 'number') throw new Error(`the ${api} document's x-body-limits has no max-bytes`);
        const why = `POST ${write} with Expect: 100-continue and Content-Length ${max + 1} (the body not sent)`;
        // The body is never sent: a deployment that invites it (100 Continue) is wrong at once,
        // and one that waits for it answers nothing until the kit stops waiting.
        const answer = await sendRaw(ctx, {
          method: 'POST',
          target: write,
          headers: [
            ['Accept', 'application/json'],
            ['Content-Type', 'application/json'],
            ['Content-Length', String(max + 1)],
            ['Expect', '100-continue'],
          ],
          localAddress: client(ctx),
          until: (received) =>
            /^HTTP\/1\.[01] 100\b[^\r\n]*\r\n(?:[^\r\n]+\r\n)*\r\n/.test(received.toString('latin1')),
        });
        expect(
          answer.status !== 100,
          `${why}: the deployment answered 100 Continue, inviting a body over max-bytes (${max}); it is refused with 413 at once`,
          [answer.exchange],
        );
        expectRefusal(ctx, api, 'continue', answer, why);
      },
    },
  ];
}
