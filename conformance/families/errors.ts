// Error codes (the ErrorCode schema and its x-status-of-code): every code a client can provoke from
// outside is provoked, and its answer checked against the contract: the status of the code
// (`x-status-of-code`), the `code`, a non-empty `message`, and `request_id` equal to the
// X-Request-Id header. Then 403 `forbidden` for every partner operation under a credential
// lacking its `x-scopes`, and the order in which the checks of §1 apply.
import { randomUUID } from 'node:crypto';
import { HEADERS } from '../../client/protocol/index.ts';
import { parseRateLimit } from '../../client/rate-limit.ts';
import { CheckFailure, expect, expectStatus, type Context, type Family } from '../context.ts';
import { expectCode } from './error-answer.ts';
import { HttpRecorder, jsonOf, type Credentials, type Exchange, type SendOptions, type SignOptions } from '../http.ts';
import type { SpecOperation } from '../spec.ts';
import {
  concreteTarget,
  listedDomain,
  listedDomains,
  orderRequest,
  needAdmin,
  partnerOp,
  partnerScopes,
  postOrder,
  recordOrder,
  unlistedDomain,
} from './orders-support.ts';
import { quoteReservationChecks } from './quote-reservation.ts';

export { expectCode } from './error-answer.ts';

const PROBE = 'getAvailability';
const probeTarget = (ctx: Context) => `${partnerOp(ctx, PROBE).operation.path}?domain=bestcoffeebeans.com`;

function probe(
  ctx: Context,
  credentials: Credentials,
  extra: Partial<SendOptions & SignOptions> = {},
): Promise<Exchange> {
  const op = partnerOp(ctx, PROBE);
  return ctx.http.signed({
    target: probeTarget(ctx),
    credentials,
    operation: op.operation,
    rateClass: op.rateClass,
    deliberate: true,
    ...extra,
  });
}

/** The four signature headers of a correctly signed probe, to send with some removed or changed. */
async function signedHeaders(
  ctx: Context,
  credentials: Credentials,
  sign: Partial<SignOptions> = {},
): Promise<Record<string, string>> {
  // Sign without sending: a recorder whose fetch answers locally keeps the one signing path.
  const dry = new HttpRecorder('http://signing.invalid', async () => new Response(''));
  dry.clockOffsetMs = ctx.http.clockOffsetMs;
  const e = await dry.signed({ target: probeTarget(ctx), credentials, ...sign });
  return Object.fromEntries(
    Object.entries(e.requestHeaders).filter(([k]) => Object.values(HEADERS).includes(k as never)),
  );
}

const breakSignature = (s: string) => s.replace(/.$/, (c) => (c === '0' ? '1' : '0'));

const credentialsCache = new WeakMap<Context, Map<string, Promise<Credentials & { partnerId: string }>>>();
/** A credential (one per scope set, minted once per run) with every partner scope except `exclude`, and an affiliate account. */
function mintWithout(ctx: Context, exclude: string[]): Promise<Credentials & { partnerId: string }> {
  const scopes = partnerScopes(ctx).filter((s) => !exclude.includes(s));
  let cache = credentialsCache.get(ctx);
  if (!cache) credentialsCache.set(ctx, (cache = new Map()));
  const key = scopes.join(',');
  let minted = cache.get(key);
  if (!minted)
    cache.set(
      key,
      (minted = ctx.mint(scopes, {
        affiliate: true,
        rate_limits: { search: 100_000, write: 100_000, reporting: 100_000 },
      })),
    );
  return minted;
}

async function adminMove(ctx: Context, publicId: string, action: string): Promise<void> {
  needAdmin(ctx);
  const moved = await ctx.admin.post(`/orders/${publicId}/${action}`, {});
  if (moved.status !== 200)
    throw new CheckFailure(
      `operator action ${action} on ${publicId} failed: ${moved.status} ${JSON.stringify(moved.body).slice(0, 300)}`,
    );
}

export const errorCodesFamily: Family = {
  name: 'error-codes',
  surface: 'partner',
  description:
    'Every provokable error code with its status, Error body and request_id; forbidden for every operation; order of checks',
  // Most codes need only a credential; those that need a second partner, a small quota or the
  // operator's moves say so per check.
  needs: ['credentials', 'writes'],
  checks: [
    {
      id: 'partner.errors.validation-error',
      rules: [
        'spec:partner#/components/schemas/ErrorCode/x-status-of-code/validation_error',
        'spec:partner#/components/schemas/Error',
        'spec:partner#/components/schemas/BuyerRedirectUrl/x-url-rule',
      ],
      name: 'validation_error: malformed parameter, invalid bodies (with details), a checkout return_url or cancel_url with a script scheme, tampered quote_id',
      async run(ctx) {
        const credentials = await ctx.credentials();
        const avail = partnerOp(ctx, PROBE);
        expectCode(
          ctx,
          await ctx.http.signed({
            target: `${avail.operation.path}?domain=NOT_A_DOMAIN`,
            credentials,
            operation: avail.operation,
            rateClass: avail.rateClass,
            deliberate: true,
          }),
          'validation_error',
          'GET /availability?domain=NOT_A_DOMAIN',
        );
        expectCode(
          ctx,
          await ctx.http.signed({
            target: avail.operation.path,
            credentials,
            operation: avail.operation,
            rateClass: avail.rateClass,
            deliberate: true,
          }),
          'validation_error',
          'GET /availability without the required domain',
        );
        const quotes = partnerOp(ctx, 'createQuote');
        for (const body of ['{}', '{"domain": 42}', '{"domain": "bestcoffeebeans.com", "extra": true}']) {
          const e = await ctx.http.signed({
            method: 'POST',
            target: quotes.operation.path,
            credentials,
            body,
            operation: quotes.operation,
            rateClass: quotes.rateClass,
            deliberate: true,
          });
          expectCode(ctx, e, 'validation_error', `POST /quotes with ${body}`);
          const details = (jsonOf(e) as { details?: Array<{ path?: unknown; message?: unknown }> }).details;
          expect(
            Array.isArray(details) &&
              details.length > 0 &&
              details.every((d) => typeof d.path === 'string' && typeof d.message === 'string' && d.message !== ''),
            `POST /quotes with ${body}: a validation_error names each failing member in details [{ path, message }]`,
            [e],
          );
        }
        const listed = await listedDomain(ctx, credentials);
        const bad = await postOrder(ctx, {
          credentials,
          body: JSON.stringify(orderRequest(listed, { expected_price: 'ten dollars' })),
          key: randomUUID(),
          deliberate: true,
        });
        expectCode(ctx, bad, 'validation_error', 'POST /orders with a string expected_price');
        // BuyerRedirectUrl: a checkout never sends the buyer to a script, whichever address it is,
        // nor to a host hidden behind user information (`trusted@other`).
        const checkout = partnerOp(ctx, 'createCheckoutSession');
        for (const [member, url] of [
          ['return_url', 'javascript:alert(1)'],
          ['cancel_url', 'javascript:alert(1)'],
          ['return_url', 'https://partner.example.net@evil.example/done'],
          ['cancel_url', 'https://user:pw@partner.example.net/cart'],
        ] as const) {
          const body = JSON.stringify({
            ...orderRequest(listed),
            return_url: 'https://partner.example.net/done',
            cancel_url: 'https://partner.example.net/cart',
            [member]: url,
          });
          const e = await ctx.http.signed({
            method: 'POST',
            target: checkout.operation.path,
            credentials,
            body,
            operation: checkout.operation,
            rateClass: checkout.rateClass,
            deliberate: true,
          });
          expectCode(ctx, e, 'validation_error', `POST /checkout-session with ${member} ${url}`);
          const paths = ((jsonOf(e) as { details?: Array<{ path?: unknown }> }).details ?? []).map((d) => d.path);
          expect(
            paths.includes(`/body/${member}`),
            `POST /checkout-session with ${member} ${url}: details name /body/${member}`,
            [e],
          );
        }
        const quote = await ctx.http.signed({
          method: 'POST',
          target: quotes.operation.path,
          credentials,
          body: JSON.stringify({ domain: listed.domain }),
          operation: quotes.operation,
          rateClass: quotes.rateClass,
        });
        expectStatus(quote, 200, `POST /quotes for ${listed.domain}`);
        const quoteId = String((jsonOf(quote) as { quote_id?: unknown }).quote_id);
        const i = Math.floor(quoteId.length / 2);
        const tampered = `${quoteId.slice(0, i)}${quoteId[i] === 'A' ? 'B' : 'A'}${quoteId.slice(i + 1)}`;
        const e = await postOrder(ctx, {
          credentials,
          body: JSON.stringify(orderRequest(listed, { quote_id: tampered })),
          key: randomUUID(),
          deliberate: true,
        });
        expectCode(ctx, e, 'validation_error', 'POST /orders with a tampered quote_id');
      },
    },
    {
      id: 'partner.errors.auth-codes',
      rules: ['spec:partner#/components/schemas/ErrorCode/x-status-of-code', 'seed:partner › Errors'],
      name: 'missing_credentials, missing_signature_headers, invalid_timestamp, invalid_signature, replay_detected',
      async run(ctx) {
        const credentials = await ctx.credentials();
        const op = partnerOp(ctx, PROBE);
        const send = (headers: Record<string, string>) =>
          ctx.http.send({ target: probeTarget(ctx), headers, operation: op.operation, deliberate: true });
        expectCode(ctx, await send({}), 'missing_credentials', 'an unsigned request');
        const full = await signedHeaders(ctx, credentials);
        for (const header of [HEADERS.timestamp, HEADERS.nonce, HEADERS.signature]) {
          const without = Object.fromEntries(Object.entries(full).filter(([k]) => k !== header));
          expectCode(ctx, await send(without), 'missing_signature_headers', `a signed request without ${header}`);
        }
        expectCode(
          ctx,
          await probe(ctx, credentials, { timestamp: String(ctx.http.nowSeconds() - 1000) }),
          'invalid_timestamp',
          'a timestamp 1000 s in the past',
        );
        expectCode(
          ctx,
          await probe(ctx, credentials, { signatureOverride: breakSignature }),
          'invalid_signature',
          'a wrong signature',
        );
        expectCode(
          ctx,
          await probe(ctx, { keyId: `pk_test_${randomUUID().replace(/-/g, '')}`, secret: credentials.secret }),
          'invalid_signature',
          'an unknown key id',
        );
        const nonce = randomUUID();
        expectStatus(await probe(ctx, credentials, { nonce, deliberate: false }), 200, 'a correctly signed probe');
        expectCode(ctx, await probe(ctx, credentials, { nonce }), 'replay_detected', 'the same nonce again');
      },
    },
    {
      id: 'partner.errors.request-codes',
      rules: ['spec:partner#/components/schemas/ErrorCode/x-status-of-code', 'seed:partner › Errors'],
      needs: ['admin'],
      name: 'forbidden, missing_idempotency_key, not_found (unknown path, order, domain), method_not_allowed on every partner path',
      async run(ctx) {
        const credentials = await ctx.credentials();
        const searchOnly = await ctx.mint(['search']);
        const list = partnerOp(ctx, 'listOrders');
        expectCode(
          ctx,
          await ctx.http.signed({
            target: list.operation.path,
            credentials: searchOnly,
            operation: list.operation,
            rateClass: list.rateClass,
            deliberate: true,
          }),
          'forbidden',
          'GET /orders with a credential holding only search',
        );
        const listed = await listedDomain(ctx, credentials);
        expectCode(
          ctx,
          await postOrder(ctx, {
            credentials,
            body: JSON.stringify(orderRequest(listed)),
            key: undefined,
            deliberate: true,
          }),
          'missing_idempotency_key',
          'POST /orders without Idempotency-Key',
        );
        for (const path of [
          '/api/partner/v1/no-such-operation',
          '/api/partner/v1/orders/ord_7QK2M9XB4T/nothing',
          '/api/partner/v2/orders',
        ]) {
          expectCode(
            ctx,
            await ctx.http.signed({ target: path, credentials, deliberate: true }),
            'not_found',
            `GET ${path} (no such path)`,
          );
        }
        const get = partnerOp(ctx, 'getOrder');
        expectCode(
          ctx,
          await ctx.http.signed({
            target: get.operation.path.replace('{public_id}', 'ord_000000unknown'),
            credentials,
            operation: get.operation,
            rateClass: get.rateClass,
            deliberate: true,
          }),
          'not_found',
          'GET /orders/{public_id} of no order',
        );
        const pricing = partnerOp(ctx, 'getPricing');
        expectCode(
          ctx,
          await ctx.http.signed({
            target: `${pricing.operation.path}?domain=${unlistedDomain()}`,
            credentials,
            operation: pricing.operation,
            rateClass: pricing.rateClass,
            deliberate: true,
          }),
          'not_found',
          'GET /pricing of an unlisted domain',
        );
        expectCode(
          ctx,
          await postOrder(ctx, {
            credentials,
            body: JSON.stringify(orderRequest({ domain: unlistedDomain(), price: 1000, currency: 'USD' })),
            key: randomUUID(),
            deliberate: true,
          }),
          'not_found',
          'POST /orders for an unlisted domain',
        );
        // Every path of the contract with a method it does not define.
        const byPath = new Map<string, SpecOperation[]>();
        for (const op of ctx.spec.operations.filter((o) => o.api === 'partner'))
          byPath.set(op.path, [...(byPath.get(op.path) ?? []), op]);
        for (const [, ops] of byPath) {
          const defined = new Set(ops.map((o) => o.method));
          const method = ['DELETE', 'PATCH', 'PUT', 'POST'].find((m) => !defined.has(m))!;
          const e = await ctx.http.signed({
            method,
            target: concreteTarget(ops[0]!),
            credentials,
            body: method === 'DELETE' ? '' : '{}',
            deliberate: true,
          });
          expectCode(
            ctx,
            e,
            'method_not_allowed',
            `${method} ${ops[0]!.path} (the contract defines only ${[...defined].join(', ')})`,
          );
        }
      },
    },
    {
      id: 'partner.errors.order-codes',
      rules: ['spec:partner:createOrder#/x-idempotency', 'seed:partner › Endpoints › Partner-collected sales'],
      name: 'conflict and price_mismatch on POST /orders',
      async run(ctx) {
        const credentials = await ctx.credentials();
        const listed = await listedDomain(ctx, credentials);
        const key = randomUUID();
        expectStatus(
          await postOrder(ctx, { credentials, body: JSON.stringify(orderRequest(listed)), key }),
          201,
          `POST /orders for ${listed.domain}`,
        );
        expectCode(
          ctx,
          await postOrder(ctx, {
            credentials,
            body: JSON.stringify(orderRequest(listed, { buyer: { email: 'other@example.org' } })),
            key,
            deliberate: true,
          }),
          'conflict',
          'the same Idempotency-Key with another body',
        );
        const other = await listedDomain(ctx, credentials);
        expectCode(
          ctx,
          await postOrder(ctx, {
            credentials,
            body: JSON.stringify(orderRequest(other, { expected_price: other.price + 1 })),
            key: randomUUID(),
            deliberate: true,
          }),
          'price_mismatch',
          `expected_price ${other.price + 1} for a domain listed at ${other.price}`,
        );
      },
    },
    {
      id: 'partner.errors.quote-expired',
      rules: ['spec:partner:createQuote#/x-quote-validity-seconds', 'seed:partner › States and transitions'],
      needs: ['admin'],
      name: "quote_expired: an order with a quote after the partner's test clock moved 11 minutes",
      async run(ctx) {
        needAdmin(ctx);
        const partner = await ctx.mint(['search', 'buy']);
        const listed = await listedDomain(ctx, partner);
        const quotes = partnerOp(ctx, 'createQuote');
        const quote = await ctx.http.signed({
          method: 'POST',
          target: quotes.operation.path,
          credentials: partner,
          body: JSON.stringify({ domain: listed.domain }),
          operation: quotes.operation,
          rateClass: quotes.rateClass,
        });
        expectStatus(quote, 200, `POST /quotes for ${listed.domain}`);
        const { quote_id, price_cents, currency } = jsonOf(quote) as {
          quote_id: string;
          price_cents: number;
          currency: string;
        };
        const advanced = await ctx.admin.post(`/partners/${partner.partnerId}/clock/advance`, { seconds: 11 * 60 });
        if (advanced.status !== 200)
          throw new CheckFailure(
            `advancing the test clock 660 s failed: ${advanced.status} ${JSON.stringify(advanced.body).slice(0, 300)}`,
          );
        const order = await postOrder(ctx, {
          credentials: partner,
          body: JSON.stringify(orderRequest({ domain: listed.domain, price: price_cents, currency }, { quote_id })),
          key: randomUUID(),
          deliberate: true,
        });
        expectCode(ctx, order, 'quote_expired', 'POST /orders with a quote 11 minutes old (test clock)');
      },
    },
    {
      id: 'partner.errors.domain-reserved',
      rules: ['spec:partner:createQuote#/description', 'spec:partner#/components/schemas/QuoteId'],
      needs: ['admin'],
      name: "domain_reserved: another partner's quote and order for a domain under a live quote; an order with the holder's quote_id is 400 validation_error, never 409",
      async run(ctx) {
        needAdmin(ctx);
        const holder = await ctx.mint(['search', 'buy']);
        const other = await ctx.mint(['search', 'buy']);
        const listed = await listedDomain(ctx, holder);
        const quotes = partnerOp(ctx, 'createQuote');
        const quote = (credentials: Credentials, deliberate: boolean) =>
          ctx.http.signed({
            method: 'POST',
            target: quotes.operation.path,
            credentials,
            body: JSON.stringify({ domain: listed.domain }),
            operation: quotes.operation,
            rateClass: quotes.rateClass,
            deliberate,
          });
        const held = await quote(holder, false);
        expectStatus(held, 200, `the first partner quotes ${listed.domain}`);
        expectCode(ctx, await quote(other, true), 'domain_reserved', 'another partner quotes the reserved domain');
        // The holder's genuine quote in another partner's hands is as invalid as a forged one:
        // a 409 would confirm it and tell when the reservation ends (QuoteId).
        const { quote_id } = jsonOf(held) as { quote_id?: unknown };
        expectCode(
          ctx,
          await postOrder(ctx, {
            credentials: other,
            body: JSON.stringify(orderRequest(listed, { quote_id: String(quote_id) })),
            key: randomUUID(),
            deliberate: true,
          }),
          'validation_error',
          "another partner orders the reserved domain with the holder's live quote_id",
        );
        expectCode(
          ctx,
          await postOrder(ctx, {
            credentials: other,
            body: JSON.stringify(orderRequest(listed)),
            key: randomUUID(),
            deliberate: true,
          }),
          'domain_reserved',
          'another partner orders the reserved domain',
        );
      },
    },
    ...quoteReservationChecks,
    {
      id: 'partner.errors.invalid-state',
      rules: ['spec:partner:refundOrder#/description', 'seed:partner › Endpoints › Settlement and reporting'],
      needs: ['admin'],
      name: 'invalid_state: POST /refunds of an order the operator moved to TRANSFER_COMPLETED',
      async run(ctx) {
        needAdmin(ctx);
        const credentials = await ctx.credentials();
        const { order } = await recordOrder(
          ctx,
          credentials,
          await listedDomain(ctx, credentials),
          'recording an order to move',
        );
        await adminMove(ctx, order.public_id, 'start-transfer');
        await adminMove(ctx, order.public_id, 'confirm-delivery');
        const refund = partnerOp(ctx, 'refundOrder');
        const e = await ctx.http.signed({
          method: 'POST',
          target: refund.operation.path,
          credentials,
          body: JSON.stringify({ public_id: order.public_id }),
          operation: refund.operation,
          rateClass: refund.rateClass,
          deliberate: true,
        });
        expectCode(ctx, e, 'invalid_state', 'refunding a TRANSFER_COMPLETED order');
        expect(
          String((jsonOf(e) as { message?: unknown }).message).includes('TRANSFER_COMPLETED'),
          'the invalid_state message must name the current status (TRANSFER_COMPLETED)',
          [e],
        );
      },
    },
    {
      id: 'partner.errors.invalid-cursor',
      rules: ['spec:partner#/components/parameters/Cursor'],
      name: 'invalid_cursor: a made-up cursor on GET /orders',
      async run(ctx) {
        const credentials = await ctx.credentials();
        const list = partnerOp(ctx, 'listOrders');
        expectCode(
          ctx,
          await ctx.http.signed({
            target: `${list.operation.path}?cursor=not-a-cursor`,
            credentials,
            operation: list.operation,
            rateClass: list.rateClass,
            deliberate: true,
          }),
          'invalid_cursor',
          'GET /orders?cursor=not-a-cursor',
        );
      },
    },
    {
      id: 'partner.errors.rate-limited',
      rules: ['spec:partner#/x-rate-limit-classes', 'seed:partner › Limits'],
      needs: ['admin'],
      name: 'rate_limited: the 4th search-class request of a credential limited to 3 per window is 429 with Retry-After >= 1',
      async run(ctx) {
        const limited = await ctx.mint(['search'], { rate_limits: { search: 3 } });
        // Each request through a recorder that does not pace: the suite's recorder waits out a
        // spent window before sending (even with acceptRateLimit), and this check wants to hit it.
        const op = partnerOp(ctx, PROBE);
        const once = (deliberate: boolean) =>
          ctx.http.unpaced().signed({
            target: probeTarget(ctx),
            credentials: limited,
            operation: op.operation,
            rateClass: op.rateClass,
            acceptRateLimit: true,
            deliberate,
          });
        for (let attempt = 0; attempt < 2; attempt++) {
          const answers: Exchange[] = [];
          for (let i = 0; i < 4; i++) answers.push(await once(i === 3));
          const fourth = answers[3]!;
          const remaining = answers.map((a) => parseRateLimit(new Headers(a.responseHeaders))?.remaining);
          // A window that reset in the middle (remaining went up) proves nothing: try once more.
          if (
            fourth.status !== 429 &&
            remaining.some(
              (r, i) => i > 0 && r !== undefined && remaining[i - 1] !== undefined && r > remaining[i - 1]!,
            ) &&
            attempt === 0
          )
            continue;
          for (const [i, a] of answers.slice(0, 3).entries())
            expectStatus(a, 200, `search-class request ${i + 1} of 3 allowed`);
          expectCode(ctx, fourth, 'rate_limited', 'the 4th search-class request in the window');
          const after = fourth.responseHeaders['retry-after'];
          expect(
            after !== undefined && /^\d+$/.test(after) && Number(after) >= 1,
            `a 429 must carry Retry-After in whole seconds, at least 1; got ${after ?? 'none'}`,
            [fourth],
          );
          return;
        }
      },
    },
    {
      id: 'partner.errors.check-order',
      rules: ['spec:partner#/x-signing/check-order'],
      needs: ['admin'],
      name: 'order of checks (x-signing check-order): first failure wins',
      async run(ctx) {
        needAdmin(ctx);
        const credentials = await ctx.credentials();
        const noBuy = await mintWithout(ctx, ['buy']);
        const orders = partnerOp(ctx, 'listOrders');
        const listOrders = (creds: Credentials, extra: Partial<SendOptions & SignOptions> = {}) =>
          ctx.http.signed({
            target: orders.operation.path,
            credentials: creds,
            operation: orders.operation,
            rateClass: orders.rateClass,
            deliberate: true,
            ...extra,
          });
        const old = () => String(ctx.http.nowSeconds() - 1000);
        const op = partnerOp(ctx, PROBE);
        const send = (headers: Record<string, string>) =>
          ctx.http.send({ target: probeTarget(ctx), headers, operation: op.operation, deliberate: true });

        const full = await signedHeaders(ctx, credentials, { timestamp: old(), signatureOverride: breakSignature });
        expectCode(
          ctx,
          await send({ [HEADERS.signature]: full[HEADERS.signature]!, [HEADERS.timestamp]: 'garbage' }),
          'missing_credentials',
          'no key id, a malformed timestamp and no nonce',
        );
        expectCode(
          ctx,
          await send(Object.fromEntries(Object.entries(full).filter(([k]) => k !== HEADERS.nonce))),
          'missing_signature_headers',
          'no nonce, an old timestamp and a wrong signature',
        );
        expectCode(
          ctx,
          await probe(ctx, credentials, { timestamp: old(), signatureOverride: breakSignature }),
          'invalid_timestamp',
          'an old timestamp and a wrong signature',
        );
        expectCode(
          ctx,
          await probe(ctx, { keyId: `pk_test_${randomUUID().replace(/-/g, '')}`, secret: 'x' }, { timestamp: old() }),
          'invalid_timestamp',
          'an old timestamp and an unknown key id',
        );
        const nonce = randomUUID();
        expectStatus(await probe(ctx, credentials, { nonce, deliberate: false }), 200, 'a correctly signed probe');
        expectCode(
          ctx,
          await probe(ctx, credentials, { nonce, signatureOverride: breakSignature }),
          'invalid_signature',
          'a used nonce and a wrong signature',
        );
        expectCode(
          ctx,
          await listOrders(noBuy, { signatureOverride: breakSignature }),
          'invalid_signature',
          'a wrong signature and a missing scope',
        );
        const nonce2 = randomUUID();
        expectCode(
          ctx,
          await listOrders(noBuy, { nonce: nonce2 }),
          'forbidden',
          'a missing scope (the nonce is now used)',
        );
        expectCode(
          ctx,
          await listOrders(noBuy, { nonce: nonce2 }),
          'replay_detected',
          'a used nonce and a missing scope',
        );
        const [listed] = await listedDomains(ctx, credentials, 1);
        expectCode(
          ctx,
          await postOrder(ctx, {
            credentials: noBuy,
            body: JSON.stringify(orderRequest(listed!)),
            key: undefined,
            deliberate: true,
          }),
          'forbidden',
          'POST /orders with a missing scope and no Idempotency-Key',
        );
        expectCode(
          ctx,
          await postOrder(ctx, { credentials: noBuy, body: '{"domain": 1}', key: randomUUID(), deliberate: true }),
          'forbidden',
          'POST /orders with a missing scope and an invalid body',
        );
        expectCode(
          ctx,
          await postOrder(ctx, { credentials, body: '{"domain": 1}', key: undefined, deliberate: true }),
          'missing_idempotency_key',
          'POST /orders with no Idempotency-Key and an invalid body',
        );
        const quotes = partnerOp(ctx, 'createQuote');
        expectCode(
          ctx,
          await ctx.http.signed({
            method: 'POST',
            target: quotes.operation.path,
            credentials: noBuy,
            body: '{"nonsense": true}',
            operation: quotes.operation,
            rateClass: quotes.rateClass,
            deliberate: true,
          }),
          'forbidden',
          'POST /quotes with a missing scope and an invalid body',
        );
      },
    },
  ],
};
