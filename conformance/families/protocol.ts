// The signing protocol, which generic tools cannot check: canonical query encoding, clock skew
// and nonce replay (seed "Authentication", x-signing). The probe is GET /availability: the
// signature is checked before the parameters, so a correctly signed request with odd extra
// parameters must pass authentication (and may then fail validation), never answer 401.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { canonicalQuery } from '../../client/protocol/index.ts';
import { canonicalOf, encodeLoosely, MISTAKES, pairsArbitrary } from '../arbitraries/query.ts';
import { CheckFailure, CheckSkipped, expect, expectError, property, type Context, type Family } from '../context.ts';
import { jsonOf, type Exchange } from '../http.ts';
import { reserialise, styleArbitrary } from './idempotency.ts';
import { unlistedDomain } from './orders-support.ts';

const PROBE_PATH = '/api/partner/v1/availability';
const PROBE = { method: 'GET', path: PROBE_PATH };
const probeTarget = (query: string) => `${PROBE_PATH}?${query}`;

/** Requirement ID suffixes of the signing mistakes (stable: the mistakes' wording may change). */
const MISTAKE_IDS: Record<string, string> = {
  'unsorted pairs': 'unsorted-pairs',
  'lowercase hex escapes': 'lowercase-hex',
  "!'()* left literal (encodeURIComponent)": 'reserved-literal',
  'UTF-16 code-unit ordering': 'utf16-order',
  'space as +': 'space-as-plus',
  'query signed as sent, not canonicalised': 'signed-as-sent',
};

function expectAuthenticated(exchange: Exchange, why: string): void {
  if (exchange.status === 401) {
    const code = (jsonOf(exchange) as { code?: string } | undefined)?.code;
    throw new CheckFailure(`${why}: the deployment refused a correctly signed request (401 ${code ?? ''})`, [exchange]);
  }
}

async function withTimestamp(ctx: Context, timestamp: string, query = 'domain=bestcoffeebeans.com'): Promise<Exchange> {
  return ctx.http.signed({
    target: probeTarget(query),
    credentials: await ctx.credentials(),
    timestamp,
    operation: PROBE,
    rateClass: 'search',
  });
}

export const canonicalQueryFamily: Family = {
  name: 'canonical-query',
  surface: 'partner',
  description:
    'Canonical query encoding: correctly signed odd queries pass, each common signing mistake gives invalid_signature',
  needs: ['credentials'],
  checks: [
    {
      id: 'partner.auth.canonical-query.accepted',
      rules: ['spec:partner#/x-signing/canonical-query', 'seed:partner › Authentication › Canonical query'],
      name: 'correctly signed queries with unicode, reserved characters, repeats and empty values are accepted',
      async run(ctx) {
        const credentials = await ctx.credentials();
        await property(
          ctx,
          fc.tuple(pairsArbitrary, fc.boolean()),
          async ([pairs, loose]) => {
            const sent = loose ? encodeLoosely(pairs) : canonicalOf(pairs);
            const exchange = await ctx.http.signed({
              target: probeTarget(sent),
              credentials,
              operation: PROBE,
              rateClass: 'search',
              deliberate: true,
            });
            expectAuthenticated(exchange, `query ${sent}`);
          },
          undefined,
          { credentials, cost: { search: 1 } },
        );
      },
    },
    ...Object.entries(MISTAKES).map(([mistake, line]) => ({
      id: `partner.auth.canonical-query.mistake.${MISTAKE_IDS[mistake] ?? mistake}`,
      rules: ['spec:partner#/x-signing/canonical-query', 'seed:partner › Authentication › Canonical query'],
      name: `signing mistake "${mistake}" gives 401 invalid_signature`,
      async run(ctx: Context) {
        const credentials = await ctx.credentials();
        // Only inputs where the mistake actually changes the QUERY_STRING line prove anything.
        const arb = pairsArbitrary.filter((pairs) => line(pairs) !== canonicalQuery(encodeLoosely(pairs)));
        await property(ctx, arb, async (pairs) => {
          const exchange = await ctx.http.signed({
            target: probeTarget(encodeLoosely(pairs)),
            credentials,
            queryLine: line(pairs),
            operation: PROBE,
            rateClass: 'search',
            deliberate: true,
          });
          expectError(exchange, 401, 'invalid_signature', `signed with mistake "${mistake}"`);
        });
      },
    })),
  ],
};

canonicalQueryFamily.checks.push(
  {
    id: 'partner.auth.signature.key-id-as-secret',
    rules: ['spec:partner#/x-signing/algorithm', 'seed:partner › Authentication › Signature'],
    name: 'signing with the key id instead of the secret gives 401 invalid_signature',
    async run(ctx) {
      const credentials = await ctx.credentials();
      const exchange = await ctx.http.signed({
        target: probeTarget('domain=bestcoffeebeans.com'),
        credentials: { keyId: credentials.keyId, secret: credentials.keyId },
        operation: PROBE,
        rateClass: 'search',
        deliberate: true,
      });
      expectError(exchange, 401, 'invalid_signature', 'signed with the key id as the secret');
    },
  },
  {
    id: 'partner.auth.signature.body-changed',
    rules: ['spec:partner#/x-signing/canonical-string', 'seed:partner › Authentication › Canonical string'],
    name: 'a body changed after signing gives 401 invalid_signature',
    async run(ctx) {
      if (!ctx.writesAllowed) throw CheckSkipped.need('writes');
      const credentials = await ctx.credentials();
      const op = { method: 'POST', path: '/api/partner/v1/quotes' };
      await property(
        ctx,
        fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }),
        async (extra) => {
          const body = JSON.stringify({ domain: 'bestcoffeebeans.com' });
          const exchange = await ctx.http.signed({
            method: 'POST',
            target: op.path,
            credentials,
            body: `${body.slice(0, -1)}, "note": ${JSON.stringify(extra)}}`,
            signBody: body,
            operation: op,
            rateClass: 'write',
            deliberate: true,
          });
          expectError(exchange, 401, 'invalid_signature', 'body changed after signing');
        },
        Math.min(ctx.fc.numRuns, 10),
      );
    },
  },
  {
    id: 'partner.auth.signature.raw-body-bytes',
    rules: ['spec:partner#/x-signing/canonical-string', 'seed:partner › Authentication › Canonical string'],
    name: 'BODY_SHA256_HEX is over the body bytes exactly as sent: a body whose bytes differ from its re-serialisation (whitespace, key order, \\u escapes, a trailing newline) is accepted signed over those bytes, refused with 401 invalid_signature when signed over its re-serialisation, and its re-serialisation is refused under the signature of the original bytes',
    async run(ctx) {
      if (!ctx.writesAllowed) throw CheckSkipped.need('writes');
      const credentials = await ctx.credentials();
      const op = { method: 'POST', path: '/api/partner/v1/quotes' };
      // An unlisted domain and a member QuoteRequest does not have: past the signature the answer
      // is a 400 or 404, so nothing is reserved or written.
      const value = { domain: unlistedDomain(), buyer_note: 'café crème, ✓' };
      const compact = JSON.stringify(value);
      const sorted = JSON.stringify(Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1))));
      const bytes = fc
        .tuple(styleArbitrary, fc.boolean(), fc.boolean())
        .map(([style, escapeAccent, newline]) => {
          let text = reserialise(value, style);
          if (escapeAccent) text = text.replace(/é/g, '\\u00e9');
          return newline ? `${text}\n` : text;
        })
        // Bytes a deployment that re-serialises the parsed body (in any key order) would hash differently.
        .filter((text) => text !== compact && text !== sorted);
      const send = (body: string, signBody: string, deliberate: boolean) =>
        ctx.http.signed({
          method: 'POST',
          target: op.path,
          credentials,
          body,
          signBody,
          operation: op,
          rateClass: 'write',
          deliberate,
        });
      await property(
        ctx,
        bytes,
        async (raw) => {
          const shown = JSON.stringify(raw);
          const asSent = await send(raw, raw, false);
          if (asSent.status === 401)
            throw new CheckFailure(
              `the body ${shown} signed over its bytes exactly as sent was refused (401 ${String((jsonOf(asSent) as { code?: unknown } | undefined)?.code ?? '')}): BODY_SHA256_HEX is over the raw bytes, not a re-serialisation`,
              [asSent],
            );
          expectError(
            await send(raw, compact, true),
            401,
            'invalid_signature',
            `the body ${shown} signed over its re-serialisation ${compact} (the hash must be over the bytes sent)`,
          );
          expectError(
            await send(compact, raw, true),
            401,
            'invalid_signature',
            `the re-serialised body ${compact} sent under the signature of the bytes ${shown}`,
          );
        },
        Math.min(ctx.fc.numRuns, 8),
        { credentials, cost: { write: 3 } },
      );
    },
  },
  {
    id: 'partner.errors.body-limits',
    rules: [
      'spec:partner#/x-body-limits',
      'spec:partner#/components/schemas/ErrorCode/x-status-of-code/payload_too_large',
    ],
    name: 'a correctly signed body over x-body-limits max-bytes is refused with 413 payload_too_large (not a signature or validation error)',
    async run(ctx) {
      if (!ctx.writesAllowed) throw CheckSkipped.need('writes');
      const limits = (ctx.spec.documents.partner['x-body-limits'] ?? {}) as { 'max-bytes'?: number };
      const max = limits['max-bytes'];
      expect(typeof max === 'number' && max > 0, "the partner document's x-body-limits states no max-bytes");
      const op = { method: 'POST', path: '/api/partner/v1/quotes' };
      const body = JSON.stringify({ domain: unlistedDomain(), padding: 'x'.repeat(max + 16) });
      const exchange = await ctx.http.signed({
        method: 'POST',
        target: op.path,
        credentials: await ctx.credentials(),
        body,
        operation: op,
        rateClass: 'write',
        deliberate: true,
      });
      expectError(
        exchange,
        413,
        'payload_too_large',
        `a signed POST /quotes with a ${body.length}-byte body (max-bytes ${max})`,
      );
    },
  },
  {
    id: 'partner.auth.canonical-query.malformed-escape',
    rules: ['spec:partner#/x-signing/canonical-query', 'spec:partner#/x-signing/check-order'],
    name: 'a malformed percent-escape is refused with 400 validation_error before the signature is checked',
    async run(ctx) {
      for (const query of ['domain=%G1', 'domain=%E1%88', 'a=%', 'x%zz=1']) {
        const exchange = await ctx.http.send({ target: probeTarget(query), operation: PROBE, deliberate: true });
        expectError(exchange, 400, 'validation_error', `unsigned request with malformed query "${query}"`);
      }
    },
  },
);

export const clockSkewFamily: Family = {
  name: 'clock-skew',
  surface: 'partner',
  description: 'Timestamps within ±300 s are accepted, beyond refused; malformed ones refused (invalid_timestamp)',
  needs: ['credentials'],
  checks: [
    {
      id: 'partner.auth.skew.measure-offset',
      rules: ['spec:partner#/x-signing/timestamp-skew-seconds'],
      name: "measure the server's clock offset",
      async run(ctx) {
        const before = Date.now();
        const exchange = await withTimestamp(ctx, String(Math.floor(before / 1000)));
        const serverDate = Date.parse(exchange.responseHeaders.date ?? '');
        expect(!Number.isNaN(serverDate), 'the answer has no usable Date header to measure the clock offset with', [
          exchange,
        ]);
        // Date has whole-second resolution: the offset is known to within about a second.
        ctx.http.clockOffsetMs = Math.round((serverDate + 500 - (before + Date.now()) / 2) / 1000) * 1000;
        ctx.log(`  server clock offset ≈ ${ctx.http.clockOffsetMs / 1000} s`);
      },
    },
    {
      id: 'partner.auth.skew.within-window',
      rules: ['spec:partner#/x-signing/timestamp-skew-seconds', 'seed:partner › Authentication › Replay protection'],
      name: 'timestamps up to 295 s away (either direction) are accepted',
      async run(ctx) {
        await property(
          ctx,
          fc.integer({ min: -295, max: 295 }),
          async (drift) => {
            expectAuthenticated(
              await withTimestamp(ctx, String(ctx.http.nowSeconds() + drift)),
              `timestamp drift ${drift} s`,
            );
          },
          undefined,
          { credentials: await ctx.credentials(), cost: { search: 1 } },
        );
      },
    },
    {
      id: 'partner.auth.skew.beyond-window',
      rules: [
        'spec:partner#/x-signing/timestamp-skew-seconds',
        'spec:partner#/components/schemas/ErrorCode/x-status-of-code/invalid_timestamp',
        'seed:partner › Authentication › Replay protection',
      ],
      name: 'timestamps more than 302 s away are refused with 401 invalid_timestamp',
      async run(ctx) {
        const far = fc.oneof(fc.integer({ min: 302, max: 100_000 }), fc.integer({ min: -100_000, max: -302 }));
        await property(ctx, far, async (drift) => {
          expectError(
            await withTimestamp(ctx, String(ctx.http.nowSeconds() + drift)),
            401,
            'invalid_timestamp',
            `timestamp drift ${drift} s`,
          );
        });
      },
    },
    {
      id: 'partner.auth.skew.malformed',
      rules: [
        'spec:partner#/components/securitySchemes/ServiceTimestamp',
        'seed:partner › Authentication › Required headers',
      ],
      name: 'malformed, negative, fractional and millisecond timestamps are refused with 401 invalid_timestamp',
      async run(ctx) {
        const now = ctx.http.nowSeconds();
        // Leading and trailing spaces are not among them: HTTP strips them from header values.
        const malformed = [
          `${now}000`,
          `${now}.5`,
          `-${now}`,
          '-1',
          `${now} 1`,
          `0x${now.toString(16)}`,
          `${now}e0`,
          '',
          'yesterday',
          `+${now}`,
          `${now}`.padStart(11, '0'),
        ];
        for (const timestamp of malformed) {
          expectError(await withTimestamp(ctx, timestamp), 401, 'invalid_timestamp', `timestamp header "${timestamp}"`);
        }
      },
    },
  ],
};

export const nonceReplayFamily: Family = {
  name: 'nonce-replay',
  surface: 'partner',
  description: 'A nonce is single-use per key id; recorded only once the signature verifies',
  needs: ['credentials'],
  checks: [
    {
      id: 'partner.auth.nonce.reuse',
      rules: ['spec:partner#/x-signing/nonce', 'seed:partner › Authentication › Replay protection'],
      name: 'a reused nonce gives 401 replay_detected',
      async run(ctx) {
        const credentials = await ctx.credentials();
        await property(
          ctx,
          fc
            .string({
              unit: fc.constantFrom(...' !#$%&()*+,-./0123456789:;<=>?@ABCXYZ[]^_`abcxyz{|}~'.split('')),
              minLength: 1,
              maxLength: 128,
            })
            .filter((n) => n.trim() === n),
          async (tail) => {
            const nonce = `${randomUUID()}${tail}`.slice(0, 128);
            const first = await ctx.http.signed({
              target: probeTarget('domain=bestcoffeebeans.com'),
              credentials,
              nonce,
              operation: PROBE,
              rateClass: 'search',
            });
            expectAuthenticated(first, `first use of nonce "${nonce}"`);
            const again = await ctx.http.signed({
              target: probeTarget('domain=brewhouse.io'),
              credentials,
              nonce,
              operation: PROBE,
              rateClass: 'search',
              deliberate: true,
            });
            expectError(again, 401, 'replay_detected', `second use of nonce "${nonce}"`);
          },
          Math.min(ctx.fc.numRuns, 25),
          { credentials, cost: { search: 1 } },
        );
      },
    },
    {
      id: 'partner.auth.nonce.identical-request',
      rules: ['spec:partner#/x-signing/nonce', 'seed:partner › Authentication › Replay protection'],
      name: 'an identical request sent twice is refused the second time',
      async run(ctx) {
        const credentials = await ctx.credentials();
        const first = await ctx.http.signed({
          target: probeTarget('domain=bestcoffeebeans.com'),
          credentials,
          operation: PROBE,
          rateClass: 'search',
        });
        expectAuthenticated(first, 'first request');
        const replayed = await ctx.http.send({
          target: probeTarget('domain=bestcoffeebeans.com'),
          headers: first.requestHeaders,
          operation: PROBE,
          deliberate: true,
        });
        expectError(replayed, 401, 'replay_detected', 'the same signed request replayed');
      },
    },
    {
      id: 'partner.auth.nonce.recorded-after-signature',
      rules: ['spec:partner#/x-signing/nonce'],
      name: 'a nonce first sent with a bad signature is still usable',
      async run(ctx) {
        const credentials = await ctx.credentials();
        const nonce = randomUUID();
        const bad = await ctx.http.signed({
          target: probeTarget('domain=bestcoffeebeans.com'),
          credentials,
          nonce,
          signatureOverride: (s) => s.replace(/.$/, (c) => (c === '0' ? '1' : '0')),
          operation: PROBE,
          deliberate: true,
        });
        expectError(bad, 401, 'invalid_signature', 'deliberately wrong signature');
        expectAuthenticated(
          await ctx.http.signed({
            target: probeTarget('domain=bestcoffeebeans.com'),
            credentials,
            nonce,
            operation: PROBE,
          }),
          'the same nonce, now correctly signed',
        );
      },
    },
    {
      id: 'partner.auth.nonce.per-key-id',
      rules: ['spec:partner#/x-signing/nonce'],
      needs: ['admin'],
      name: 'the same nonce under another key id is not a replay',
      async run(ctx) {
        const one = await ctx.credentials();
        const two = await ctx.mint(['search']);
        const nonce = randomUUID();
        expectAuthenticated(
          await ctx.http.signed({
            target: probeTarget('domain=bestcoffeebeans.com'),
            credentials: one,
            nonce,
            operation: PROBE,
          }),
          'first key id',
        );
        expectAuthenticated(
          await ctx.http.signed({
            target: probeTarget('domain=bestcoffeebeans.com'),
            credentials: two,
            nonce,
            operation: PROBE,
          }),
          'second key id, same nonce',
        );
      },
    },
  ],
};
