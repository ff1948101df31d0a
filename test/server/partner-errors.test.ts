// Every error code of the partner surface that the implemented endpoints can return, provoked
// over HTTP and checked against the contract: the status of the code (x-status-of-code), the
// Error shape, request_id = X-Request-Id, and the RateLimit headers once the caller is identified.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sign } from '../../client/protocol/index.ts';
import { startHarness, type Harness } from './harness.ts';
import { sessionBody } from './support/checkout.ts';
import { partnerDoc, rateLimitOf, scopesOf } from './support/contract.ts';
import {
  createOrder,
  databases,
  domainSource,
  expectError,
  expectRateLimitHeaders,
  INVENTORY_SIZE,
  nowSeconds,
  orderBody,
  signedRequest,
  toReply,
  type Credential,
  type Reply,
} from './support/http.ts';

const V1 = '/api/partner/v1';
const HIGH = { search: 10_000, write: 10_000, reporting: 10_000 };
const ALL_SCOPES = Object.keys(partnerDoc['x-scope-definitions'] as Record<string, string>);

describe.each(databases())('partner errors ($name)', ({ databaseUrl }) => {
  let h: Harness;
  let cred: Credential;
  let other: Credential;
  const take = domainSource();

  beforeAll(async () => {
    h = await startHarness({ databaseUrl, inventorySize: INVENTORY_SIZE });
    cred = await h.mint({ rate_limits: HIGH });
    other = await h.mint({ rate_limits: HIGH });
  });
  afterAll(async () => {
    await h?.close();
  });

  /** An identified caller's error: the code's status and shape, and the RateLimit headers. */
  const expectIdentifiedError = (r: Reply, code: string) => {
    expectError(r, code);
    expectRateLimitHeaders(r);
  };

  describe('validation_error', () => {
    it('a bad body member is 400 with details naming it', async () => {
      const r = await signedRequest(h, cred, {
        method: 'POST',
        path: `${V1}/quotes`,
        body: { domain: 'Not A Domain!' },
      });
      expectIdentifiedError(r, 'validation_error');
      expect(r.body.details.length).toBeGreaterThan(0);
      expect(r.body.details.map((d: { path: string }) => d.path).join(' ')).toContain('domain');

      const d = await take(h, cred);
      const bad = await signedRequest(h, cred, {
        method: 'POST',
        path: `${V1}/orders`,
        body: orderBody(d, { buyer: { email: 'not-an-email' } }),
        idempotencyKey: randomUUID(),
      });
      expectIdentifiedError(bad, 'validation_error');
      expect(bad.body.details.map((x: { path: string }) => x.path)).toContain('/body/buyer/email');

      const extra = await signedRequest(h, cred, {
        method: 'POST',
        path: `${V1}/quotes`,
        body: { domain: d.domain, surprise: 1 },
      });
      expectIdentifiedError(extra, 'validation_error');
    });

    it('a bad or missing query parameter is 400', async () => {
      for (const query of [
        'limit=0',
        'limit=201',
        'limit=abc',
        'status=NOT_A_STATUS',
        'from=yesterday',
        'unknown_param=1',
        // Ordinary names, never the object's prototype: refused as unknown like any other.
        '__proto__=1',
        '__proto__=a&__proto__=b',
        'limit=5&__proto__=1',
        'constructor=1',
      ]) {
        const r = await signedRequest(h, cred, { path: `${V1}/orders`, query });
        expectIdentifiedError(r, 'validation_error');
      }
      const missing = await signedRequest(h, cred, { path: `${V1}/pricing` });
      expectIdentifiedError(missing, 'validation_error');
      const events = await signedRequest(h, cred, { path: `${V1}/events`, query: 'limit=1001' });
      expectIdentifiedError(events, 'validation_error');
    });

    it('a malformed percent-escape in the query is 400 before any signature check', async () => {
      for (const query of ['domain=%G1', 'domain=%E1%88', 'd%ZZomain=x.com', 'domain=abc%']) {
        // No credentials at all: the malformed query still wins over missing_credentials.
        const bare = await toReply(await fetch(`${h.baseUrl}${V1}/pricing?${query}`));
        expectError(bare, 'validation_error');
        // A garbage signature and unknown key id: still validation_error, not invalid_signature.
        const garbage = await signedRequest(h, cred, {
          path: `${V1}/pricing`,
          query,
          keyId: 'pk_test_nobody',
          signature: 'v1=00',
        });
        expectError(garbage, 'validation_error');
      }
    });

    it('a nonce longer than 128 characters is refused as an authentication failure', async () => {
      const long = await signedRequest(h, cred, { path: `${V1}/events`, nonce: 'n'.repeat(129) });
      expect(long.status, long.text).toBe(401);
      expectError(long, long.body.code);
    });

    it('malformed JSON is 400', async () => {
      const r = await signedRequest(h, cred, {
        method: 'POST',
        path: `${V1}/quotes`,
        body: '{"domain": "bestcoffeebeans.com",',
      });
      expectIdentifiedError(r, 'validation_error');
      const orders = await signedRequest(h, cred, {
        method: 'POST',
        path: `${V1}/orders`,
        body: '{not json',
        idempotencyKey: randomUUID(),
      });
      expectIdentifiedError(orders, 'validation_error');
    });

    it('a tampered quote_id is 400', async () => {
      const d = await take(h, cred);
      const q = await signedRequest(h, cred, { method: 'POST', path: `${V1}/quotes`, body: { domain: d.domain } });
      expect(q.status, q.text).toBe(200);
      const id: string = q.body.quote_id;
      const tampered = id.slice(0, -3) + (id.endsWith('AAA') ? 'BBB' : 'AAA');
      const r = await signedRequest(h, cred, {
        method: 'POST',
        path: `${V1}/orders`,
        body: orderBody(d, { quote_id: tampered }),
        idempotencyKey: randomUUID(),
      });
      expectIdentifiedError(r, 'validation_error');
    });

    // A quote of another partner is answered exactly as a tampered one, even while it holds the
    // domain: a 409 domain_reserved would confirm the stolen id is genuine and tell when the
    // competitor's reservation ends (probe round 3, I15).
    it.each([
      ['POST /orders', `${V1}/orders`],
      ['POST /checkout-session', `${V1}/checkout-session`],
    ])("another partner's live quote is 400 at %s, the answer of a tampered one", async (_what, path) => {
      const owner = await h.mint({ scopes: ALL_SCOPES, rate_limits: HIGH });
      const thief = await h.mint({ scopes: ALL_SCOPES, rate_limits: HIGH });
      const d = await take(h, owner);
      const q = await signedRequest(h, owner, { method: 'POST', path: `${V1}/quotes`, body: { domain: d.domain } });
      expect(q.status, q.text).toBe(200);
      const id: string = q.body.quote_id;
      const tampered = id.slice(0, -3) + (id.endsWith('AAA') ? 'BBB' : 'AAA');
      const body = (quoteId: string) =>
        path.endsWith('/orders') ? orderBody(d, { quote_id: quoteId }) : sessionBody(d, { quote_id: quoteId });
      const send = (quoteId: string) =>
        signedRequest(h, thief, {
          method: 'POST',
          path,
          body: body(quoteId),
          ...(path.endsWith('/orders') ? { idempotencyKey: randomUUID() } : {}),
        });
      const foreign = await send(id);
      const forged = await send(tampered);
      expectIdentifiedError(foreign, 'validation_error');
      expectIdentifiedError(forged, 'validation_error');
      const { request_id: _a, ...foreignBody } = foreign.body as Record<string, unknown>;
      const { request_id: _b, ...forgedBody } = forged.body as Record<string, unknown>;
      expect(foreignBody).toEqual(forgedBody);
      expect(foreign.text).not.toMatch(/reserved|until|\d{4}-\d{2}-\d{2}T/);
    });
  });

  describe('the other codes the contract gives these operations', () => {
    it('a malformed path parameter is 400 validation_error', async () => {
      expectIdentifiedError(await signedRequest(h, cred, { path: `${V1}/orders/not-an-order-id` }), 'validation_error');
      expectIdentifiedError(await signedRequest(h, cred, { path: `${V1}/domains/NOT_A_DOMAIN` }), 'validation_error');
    });

    it('415 unsupported_media_type for a body that is not JSON', async () => {
      const r = await signedRequest(h, cred, {
        method: 'POST',
        path: `${V1}/quotes`,
        body: 'domain=bestcoffeebeans.com',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expectIdentifiedError(r, 'unsupported_media_type');
    });

    it('413 payload_too_large for a body over 1 MiB', async () => {
      const big = JSON.stringify({ domain: 'bestcoffeebeans.com', pad: 'x'.repeat(1024 * 1024) });
      const r = await signedRequest(h, cred, { method: 'POST', path: `${V1}/quotes`, body: big });
      expectError(r, 'payload_too_large');
    });

    it('405 method_not_allowed on a known path with another method', async () => {
      const r = await signedRequest(h, cred, { method: 'DELETE', path: `${V1}/orders` });
      // No operation, so no rate-limit class: not counted, no rate-limit headers.
      expectError(r, 'method_not_allowed');
      expect(r.headers.get('allow') ?? '').toMatch(/GET/);
    });
  });

  describe('authentication (401s)', () => {
    it('missing_credentials without the key id header', async () => {
      const bare = await toReply(await fetch(`${h.baseUrl}${V1}/events`));
      expectError(bare, 'missing_credentials');
      const noKey = await signedRequest(h, cred, { path: `${V1}/events`, omit: ['X-Service-Key-Id'] });
      expectError(noKey, 'missing_credentials');
      // The key id is checked first: with every header missing it is still missing_credentials.
      const webhooks = await toReply(
        await fetch(`${h.baseUrl}/api/partner/webhooks`, {
          method: 'PUT',
          body: '{}',
          headers: { 'content-type': 'application/json' },
        }),
      );
      expectError(webhooks, 'missing_credentials');
    });

    it('missing_signature_headers when one of the other three is absent', async () => {
      for (const header of ['X-Service-Timestamp', 'X-Service-Nonce', 'X-Service-Signature']) {
        const r = await signedRequest(h, cred, { path: `${V1}/events`, omit: [header] });
        expectError(r, 'missing_signature_headers');
      }
      const two = await signedRequest(h, cred, {
        path: `${V1}/events`,
        omit: ['X-Service-Nonce', 'X-Service-Signature'],
      });
      expectError(two, 'missing_signature_headers');
    });

    it('invalid_timestamp: 301 s both ways, milliseconds, non-numeric; exactly 300 s is accepted', async () => {
      const now = nowSeconds(h);
      for (const timestamp of [
        String(now - 301),
        String(now + 301),
        String(h.clock.now()),
        'abc',
        `${now}.0`,
        `+${now}`,
        '',
        '12345678901',
      ]) {
        const r = await signedRequest(h, cred, { path: `${V1}/events`, timestamp });
        // An empty header value is a missing header for some stacks; both are 401 auth failures.
        if (timestamp === '') {
          expect(['invalid_timestamp', 'missing_signature_headers']).toContain(r.body.code);
          expectError(r, r.body.code);
        } else expectError(r, 'invalid_timestamp');
      }
      for (const timestamp of [String(now - 300), String(now + 300)]) {
        const r = await signedRequest(h, cred, { path: `${V1}/events`, timestamp });
        expect(r.status, r.text).toBe(200);
      }
    });

    it('invalid_timestamp is checked before the signature', async () => {
      const r = await signedRequest(h, cred, {
        path: `${V1}/events`,
        timestamp: String(nowSeconds(h) - 1000),
        signWith: 'sk_test_wrong',
      });
      expectError(r, 'invalid_timestamp');
    });

    it('invalid_signature: wrong secret, unknown key id (same message), body changed, key id as secret', async () => {
      const wrongSecret = await signedRequest(h, cred, { path: `${V1}/events`, signWith: `${cred.secret}x` });
      expectError(wrongSecret, 'invalid_signature');
      const unknownKey = await signedRequest(h, cred, {
        path: `${V1}/events`,
        keyId: 'pk_test_doesnotexist000000000000',
      });
      expectError(unknownKey, 'invalid_signature');
      expect(unknownKey.body.message).toBe(wrongSecret.body.message);
      const otherKey = await signedRequest(h, cred, { path: `${V1}/events`, keyId: other.key_id });
      expectError(otherKey, 'invalid_signature');
      expect(otherKey.body.message).toBe(wrongSecret.body.message);

      const d = await take(h, cred);
      const changed = await signedRequest(h, cred, {
        method: 'POST',
        path: `${V1}/quotes`,
        body: JSON.stringify({ domain: d.domain }),
        signBody: JSON.stringify({ domain: 'bestcoffeebeans.com' }),
      });
      expectError(changed, 'invalid_signature');
      const keyAsSecret = await signedRequest(h, cred, { path: `${V1}/events`, signWith: cred.key_id });
      expectError(keyAsSecret, 'invalid_signature');

      // The signature covers the query and the path as requested.
      const nonce = randomUUID();
      const timestamp = String(nowSeconds(h));
      const forOtherQuery = sign({
        secret: cred.secret,
        method: 'GET',
        path: `${V1}/pricing`,
        query: 'domain=other.com',
        timestamp,
        nonce,
        body: Buffer.alloc(0),
      });
      expectError(
        await signedRequest(h, cred, {
          path: `${V1}/pricing`,
          query: `domain=${d.domain}`,
          nonce,
          timestamp,
          signature: forOtherQuery,
        }),
        'invalid_signature',
      );
      const n2 = randomUUID();
      const forOtherPath = sign({
        secret: cred.secret,
        method: 'GET',
        path: `${V1}/orders`,
        query: '',
        timestamp,
        nonce: n2,
        body: Buffer.alloc(0),
      });
      expectError(
        await signedRequest(h, cred, { path: `${V1}/events`, nonce: n2, timestamp, signature: forOtherPath }),
        'invalid_signature',
      );
      const n3 = randomUUID();
      const forPost = sign({
        secret: cred.secret,
        method: 'POST',
        path: `${V1}/events`,
        query: '',
        timestamp,
        nonce: n3,
        body: Buffer.alloc(0),
      });
      expectError(
        await signedRequest(h, cred, { path: `${V1}/events`, nonce: n3, timestamp, signature: forPost }),
        'invalid_signature',
      );
      const rightHex = sign({
        secret: cred.secret,
        method: 'GET',
        path: `${V1}/events`,
        query: '',
        timestamp,
        nonce: randomUUID(),
        body: Buffer.alloc(0),
      });
      expectError(
        await signedRequest(h, cred, { path: `${V1}/events`, signature: rightHex.slice(3) }),
        'invalid_signature',
      );
      const n4 = randomUUID();
      const upper = sign({
        secret: cred.secret,
        method: 'GET',
        path: `${V1}/events`,
        query: '',
        timestamp,
        nonce: n4,
        body: Buffer.alloc(0),
      });
      expectError(
        await signedRequest(h, cred, {
          path: `${V1}/events`,
          nonce: n4,
          timestamp,
          signature: `v1=${upper.slice(3).toUpperCase()}`,
        }),
        'invalid_signature',
      );
      // The same parts signed correctly pass (the checks above fail for the reason given).
      const good = sign({
        secret: cred.secret,
        method: 'GET',
        path: `${V1}/events`,
        query: '',
        timestamp,
        nonce: n4,
        body: Buffer.alloc(0),
      });
      expect(
        (await signedRequest(h, cred, { path: `${V1}/events`, nonce: n4, timestamp, signature: good })).status,
      ).toBe(200);
    });

    it('replay_detected: a nonce is refused the second time, whatever the first outcome', async () => {
      const nonce = randomUUID();
      const first = await signedRequest(h, cred, { path: `${V1}/events`, nonce });
      expect(first.status, first.text).toBe(200);
      const again = await signedRequest(h, cred, { path: `${V1}/events`, nonce });
      expectError(again, 'replay_detected');
      // Another request (path, body) with the same nonce is a replay too.
      const elsewhere = await signedRequest(h, cred, { path: `${V1}/orders`, nonce });
      expectError(elsewhere, 'replay_detected');

      // A request that failed after authentication (404) used its nonce.
      const n2 = randomUUID();
      const notFound = await signedRequest(h, cred, {
        path: `${V1}/pricing`,
        query: 'domain=unlisted-example.com',
        nonce: n2,
      });
      expectIdentifiedError(notFound, 'not_found');
      expectError(
        await signedRequest(h, cred, { path: `${V1}/pricing`, query: 'domain=unlisted-example.com', nonce: n2 }),
        'replay_detected',
      );

      // Nonces are per key id: another credential may use the same one.
      const otherUse = await signedRequest(h, other, { path: `${V1}/events`, nonce });
      expect(otherUse.status, otherUse.text).toBe(200);
    });

    it('a nonce is recorded only once the signature verifies', async () => {
      const nonce = randomUUID();
      const forged = await signedRequest(h, cred, {
        path: `${V1}/events`,
        nonce,
        signWith: 'sk_test_forged_secret_0000',
      });
      expectError(forged, 'invalid_signature');
      const stale = await signedRequest(h, cred, {
        path: `${V1}/events`,
        nonce,
        timestamp: String(nowSeconds(h) - 400),
      });
      expectError(stale, 'invalid_timestamp');
      const genuine = await signedRequest(h, cred, { path: `${V1}/events`, nonce });
      expect(genuine.status, genuine.text).toBe(200);
      // A replay with a wrong signature is invalid_signature (signature before replay).
      const forgedReplay = await signedRequest(h, cred, {
        path: `${V1}/events`,
        nonce,
        signWith: 'sk_test_forged_secret_0000',
      });
      expectError(forgedReplay, 'invalid_signature');
    });

    it('401 answers carry X-Request-Id and echo a usable one from the request', async () => {
      const r = await toReply(await fetch(`${h.baseUrl}${V1}/events`, { headers: { 'x-request-id': 'my-trace-123' } }));
      expectError(r, 'missing_credentials');
      expect(r.body.request_id).toBe('my-trace-123');
    });
  });

  describe('forbidden', () => {
    // Operations of the partner document, each tried with a credential holding every scope but
    // the ones its x-scopes declares.
    const OPERATIONS: Array<{ method: string; path: string; template?: string }> = [
      { method: 'GET', path: `${V1}/domains/search` },
      { method: 'GET', path: `${V1}/domains/bestcoffeebeans.com`, template: `${V1}/domains/{name}` },
      { method: 'GET', path: `${V1}/availability` },
      { method: 'GET', path: `${V1}/pricing` },
      { method: 'POST', path: `${V1}/quotes` },
      { method: 'POST', path: `${V1}/orders` },
      { method: 'GET', path: `${V1}/orders` },
      { method: 'GET', path: `${V1}/orders/ord_abcdefgh`, template: `${V1}/orders/{public_id}` },
      { method: 'POST', path: `${V1}/refunds` },
      { method: 'PUT', path: '/api/partner/webhooks' },
      { method: 'GET', path: `${V1}/events` },
      { method: 'POST', path: `${V1}/checkout-session` },
      { method: 'GET', path: `${V1}/transactions` },
      { method: 'GET', path: `${V1}/brokerage/eligibility` },
      { method: 'POST', path: `${V1}/links` },
    ];

    it.each(OPERATIONS)('$method $path without its x-scopes is 403', async ({ method, path, template }) => {
      const needed = scopesOf(method, template ?? path);
      const scopes = ALL_SCOPES.filter((s) => !needed.includes(s));
      const lacking = await h.mint({ scopes, rate_limits: HIGH });
      // No body, no Idempotency-Key, no query: the scope is checked before any of them.
      const r = await signedRequest(h, lacking, { method, path, ...(method === 'GET' ? {} : { body: {} }) });
      expectIdentifiedError(r, 'forbidden');
      expectRateLimitHeaders(r, { className: rateLimitOf(method, template ?? path).name });
      // With the scope the same credential's partner passes the scope check.
      const holding = await h.mint({ scopes: needed, rate_limits: HIGH, partner_id: lacking.partner_id });
      const ok = await signedRequest(h, holding, { method, path, ...(method === 'GET' ? {} : { body: {} }) });
      expect(ok.body?.code).not.toBe('forbidden');
    });

    it('a live credential is refused until it is approved', async () => {
      const live = await h.mint({ environment: 'live', scopes: ['search', 'buy', 'webhook'] });
      expect(live.key_id.startsWith('pk_live_')).toBe(true);
      expect(live.secret.startsWith('sk_live_')).toBe(true);
      for (const path of [`${V1}/events`, `${V1}/orders`]) {
        const r = await signedRequest(h, live, { path });
        expectIdentifiedError(r, 'forbidden');
      }
      const approve = await h.admin(`/credentials/${live.key_id}/approve`);
      expect(approve.status, await approve.clone().text()).toBe(200);
      expect(((await approve.json()) as { approved: boolean }).approved).toBe(true);
      const after = await signedRequest(h, live, { path: `${V1}/events` });
      expect(after.status, after.text).toBe(200);
      const orders = await signedRequest(h, live, { path: `${V1}/orders` });
      expect(orders.status, orders.text).toBe(200);
      expect(orders.body.data).toEqual([]);
    });

    it('a live credential minted approved works at once', async () => {
      const live = await h.mint({ environment: 'live', scopes: ['webhook'], approved: true });
      const r = await signedRequest(h, live, { path: `${V1}/events` });
      expect(r.status, r.text).toBe(200);
    });
  });

  describe('not_found', () => {
    it('an unlisted domain on /pricing and /domains/{name}', async () => {
      expectIdentifiedError(
        await signedRequest(h, cred, { path: `${V1}/pricing`, query: 'domain=unlisted-example.com' }),
        'not_found',
      );
      expectIdentifiedError(await signedRequest(h, cred, { path: `${V1}/domains/unlisted-example.com` }), 'not_found');
      // /availability never 404s for an unlisted domain.
      const availability = await signedRequest(h, cred, {
        path: `${V1}/availability`,
        query: 'domain=unlisted-example.com',
      });
      expect(availability.status, availability.text).toBe(200);
      expect(availability.body.available).toBe(false);
    });

    it('a sold domain is not_found on /pricing, /domains/{name}, /quotes and /orders', async () => {
      const d = await take(h, cred);
      await createOrder(h, cred, d);
      expectIdentifiedError(
        await signedRequest(h, cred, { path: `${V1}/pricing`, query: `domain=${d.domain}` }),
        'not_found',
      );
      expectIdentifiedError(await signedRequest(h, cred, { path: `${V1}/domains/${d.domain}` }), 'not_found');
      expectIdentifiedError(
        await signedRequest(h, other, { method: 'POST', path: `${V1}/quotes`, body: { domain: d.domain } }),
        'not_found',
      );
      const again = await signedRequest(h, other, {
        method: 'POST',
        path: `${V1}/orders`,
        body: orderBody(d),
        idempotencyKey: randomUUID(),
      });
      expectIdentifiedError(again, 'not_found');
    });

    it("another partner's order is not found (GET and refund)", async () => {
      const d = await take(h, cred);
      const order = await createOrder(h, cred, d);
      expectIdentifiedError(await signedRequest(h, other, { path: `${V1}/orders/${order.public_id}` }), 'not_found');
      expectIdentifiedError(
        await signedRequest(h, other, { method: 'POST', path: `${V1}/refunds`, body: { public_id: order.public_id } }),
        'not_found',
      );
      expectIdentifiedError(await signedRequest(h, cred, { path: `${V1}/orders/ord_doesnotexist00` }), 'not_found');
      // The owner still sees it, unchanged.
      const own = await signedRequest(h, cred, { path: `${V1}/orders/${order.public_id}` });
      expect(own.status).toBe(200);
      expect(own.body.status).toBe('EXTERNALLY_PAID');
    });

    it('an unknown path under the partner prefix is 404 in the Error shape', async () => {
      expectError(await signedRequest(h, cred, { path: `${V1}/no-such-thing` }), 'not_found');
    });
  });

  describe('orders and quotes', () => {
    it('conflict: the same Idempotency-Key with another body', async () => {
      const d = await take(h, cred);
      const key = randomUUID();
      const first = await signedRequest(h, cred, {
        method: 'POST',
        path: `${V1}/orders`,
        body: orderBody(d),
        idempotencyKey: key,
      });
      expect(first.status, first.text).toBe(201);
      const r = await signedRequest(h, cred, {
        method: 'POST',
        path: `${V1}/orders`,
        body: orderBody(d, { external_payment_ref: 'other' }),
        idempotencyKey: key,
      });
      expectIdentifiedError(r, 'conflict');
      expect(r.headers.get('idempotent-replayed')).toBeNull();
    });

    it('price_mismatch: expected_price other than the listing price', async () => {
      const d = await take(h, cred);
      for (const expected_price of [d.price + 1, d.price - 1, 0]) {
        const r = await signedRequest(h, cred, {
          method: 'POST',
          path: `${V1}/orders`,
          body: orderBody(d, { expected_price }),
          idempotencyKey: randomUUID(),
        });
        expectIdentifiedError(r, 'price_mismatch');
      }
      // With a quote the quoted price decides.
      const q = await signedRequest(h, cred, { method: 'POST', path: `${V1}/quotes`, body: { domain: d.domain } });
      expect(q.status, q.text).toBe(200);
      const r = await signedRequest(h, cred, {
        method: 'POST',
        path: `${V1}/orders`,
        body: orderBody(d, { expected_price: q.body.price_cents + 100, quote_id: q.body.quote_id }),
        idempotencyKey: randomUUID(),
      });
      expectIdentifiedError(r, 'price_mismatch');
      // Nothing was recorded.
      const list = await signedRequest(h, cred, { path: `${V1}/orders`, query: `domain=${d.domain}` });
      expect(list.body.data).toEqual([]);
    });

    it('quote_expired: a quote used after its 10 minutes on the test clock', async () => {
      const partner = await h.mint({ rate_limits: HIGH });
      const d = await take(h, partner);
      const q = await signedRequest(h, partner, { method: 'POST', path: `${V1}/quotes`, body: { domain: d.domain } });
      expect(q.status, q.text).toBe(200);
      const advance = await h.admin(`/partners/${partner.partner_id}/clock/advance`, { seconds: 601 });
      expect(advance.status, await advance.clone().text()).toBe(200);
      const r = await signedRequest(h, partner, {
        method: 'POST',
        path: `${V1}/orders`,
        body: orderBody(d, { quote_id: q.body.quote_id }),
        idempotencyKey: randomUUID(),
      });
      expectIdentifiedError(r, 'quote_expired');
    });

    it("domain_reserved: another partner's live quote holds the domain", async () => {
      const d = await take(h, cred);
      const q = await signedRequest(h, cred, { method: 'POST', path: `${V1}/quotes`, body: { domain: d.domain } });
      expect(q.status, q.text).toBe(200);
      expectIdentifiedError(
        await signedRequest(h, other, { method: 'POST', path: `${V1}/quotes`, body: { domain: d.domain } }),
        'domain_reserved',
      );
      expectIdentifiedError(
        await signedRequest(h, other, {
          method: 'POST',
          path: `${V1}/orders`,
          body: orderBody(d),
          idempotencyKey: randomUUID(),
        }),
        'domain_reserved',
      );
      // The quoting partner itself may quote again and order.
      const again = await signedRequest(h, cred, { method: 'POST', path: `${V1}/quotes`, body: { domain: d.domain } });
      expect(again.status, again.text).toBe(200);
      await createOrder(h, cred, d, { quote_id: q.body.quote_id });
    });

    it('invalid_state: a refund after TRANSFER_COMPLETED names the current status', async () => {
      const d = await take(h, cred);
      const order = await createOrder(h, cred, d);
      for (const action of ['start-transfer', 'confirm-delivery']) {
        const res = await h.admin(`/orders/${order.public_id}/${action}`);
        expect(res.status, await res.clone().text()).toBe(200);
      }
      const r = await signedRequest(h, cred, {
        method: 'POST',
        path: `${V1}/refunds`,
        body: { public_id: order.public_id },
      });
      expectIdentifiedError(r, 'invalid_state');
      expect(r.body.message).toContain('TRANSFER_COMPLETED');
    });

    it('invalid_state: operator moves the state machine forbids', async () => {
      const d = await take(h, cred);
      const order = await createOrder(h, cred, d);
      for (const action of ['confirm-delivery', 'clear-hold']) {
        const r = await toReply(await h.admin(`/orders/${order.public_id}/${action}`));
        expectError(r, 'invalid_state');
        expect(r.body.message).toContain('EXTERNALLY_PAID');
      }
      expect((await h.admin(`/orders/${order.public_id}/refund`)).status).toBe(200);
      const r = await toReply(await h.admin(`/orders/${order.public_id}/refund`));
      expectError(r, 'invalid_state');
      expect(r.body.message).toContain('REFUNDED');
      const after = await signedRequest(h, cred, { path: `${V1}/orders/${order.public_id}` });
      expect(after.body.status).toBe('REFUNDED');
    });

    it('missing_idempotency_key: POST /orders without the header, checked before the body', async () => {
      const d = await take(h, cred);
      expectIdentifiedError(
        await signedRequest(h, cred, { method: 'POST', path: `${V1}/orders`, body: orderBody(d) }),
        'missing_idempotency_key',
      );
      expectIdentifiedError(
        await signedRequest(h, cred, { method: 'POST', path: `${V1}/orders`, body: { nonsense: true } }),
        'missing_idempotency_key',
      );
      expectIdentifiedError(
        await signedRequest(h, cred, { method: 'POST', path: `${V1}/orders`, body: '{broken' }),
        'missing_idempotency_key',
      );
      const list = await signedRequest(h, cred, { path: `${V1}/orders`, query: `domain=${d.domain}` });
      expect(list.body.data).toEqual([]);
    });
  });

  describe('invalid_cursor', () => {
    it('a cursor reused with other filters, or tampered, is 400 invalid_cursor', async () => {
      const partner = await h.mint({ rate_limits: HIGH });
      for (let i = 0; i < 3; i++) await createOrder(h, partner, await take(h, partner));
      const page = await signedRequest(h, partner, { path: `${V1}/orders`, query: 'limit=1' });
      expect(page.status, page.text).toBe(200);
      const cursor: string = page.body.next_cursor;
      expect(typeof cursor).toBe('string');
      const enc = encodeURIComponent(cursor);
      // Same filters, other limit: fine.
      const next = await signedRequest(h, partner, { path: `${V1}/orders`, query: `limit=2&cursor=${enc}` });
      expect(next.status, next.text).toBe(200);
      for (const filters of [
        'status=EXTERNALLY_PAID',
        'domain=bestcoffeebeans.com',
        'from=2020-01-01',
        'to=2999-01-01',
      ]) {
        expectIdentifiedError(
          await signedRequest(h, partner, { path: `${V1}/orders`, query: `limit=1&${filters}&cursor=${enc}` }),
          'invalid_cursor',
        );
      }
      const flipped = cursor.slice(0, 5) + (cursor[5] === 'A' ? 'B' : 'A') + cursor.slice(6);
      expectIdentifiedError(
        await signedRequest(h, partner, {
          path: `${V1}/orders`,
          query: `limit=1&cursor=${encodeURIComponent(flipped)}`,
        }),
        'invalid_cursor',
      );
      expectIdentifiedError(
        await signedRequest(h, partner, {
          path: `${V1}/orders`,
          query: `limit=1&cursor=${encodeURIComponent(`${cursor}x`)}`,
        }),
        'invalid_cursor',
      );
      expectIdentifiedError(
        await signedRequest(h, partner, { path: `${V1}/orders`, query: 'limit=1&cursor=garbage' }),
        'invalid_cursor',
      );
      // Another partner's cursor is not valid for this partner's list.
      expectIdentifiedError(
        await signedRequest(h, other, { path: `${V1}/orders`, query: `limit=1&cursor=${enc}` }),
        'invalid_cursor',
      );
    });

    it('an unknown after_id on /events is 400 invalid_cursor', async () => {
      expectIdentifiedError(
        await signedRequest(h, cred, { path: `${V1}/events`, query: 'after_id=evt_doesnotexist000' }),
        'invalid_cursor',
      );
    });
  });

  describe('rate_limited', () => {
    it('over a low override: 429 with Retry-After >= 1, remaining counting down request by request', async () => {
      const limited = await h.mint({ rate_limits: { search: 5 } });
      const cls = rateLimitOf('GET', `${V1}/pricing`);
      const seen: number[] = [];
      for (let i = 0; i < 5; i++) {
        const r = await signedRequest(h, limited, { path: `${V1}/pricing`, query: 'domain=unlisted-example.com' });
        expect(r.status).toBe(404);
        seen.push(expectRateLimitHeaders(r, { className: cls.name, quota: 5 }).remaining);
      }
      expect(seen).toEqual([4, 3, 2, 1, 0]);
      const refused = await signedRequest(h, limited, { path: `${V1}/domains/search`, query: 'q=coffee' });
      expectError(refused, 'rate_limited');
      const state = expectRateLimitHeaders(refused, { className: cls.name, quota: 5 });
      expect(state.remaining).toBe(0);
      const retryAfter = refused.headers.get('retry-after');
      expect(retryAfter).toMatch(/^\d+$/);
      expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
      expect(Number(retryAfter)).toBeLessThanOrEqual(cls.windowSeconds);

      // Other classes are counted apart, with their default quotas.
      const write = await signedRequest(h, limited, {
        method: 'POST',
        path: `${V1}/quotes`,
        body: { domain: 'unlisted-example.com' },
      });
      expectIdentifiedError(write, 'not_found');
      expectRateLimitHeaders(write, {
        className: rateLimitOf('POST', `${V1}/quotes`).name,
        quota: rateLimitOf('POST', `${V1}/quotes`).quota,
      });

      // Once the window has passed, requests are admitted again.
      h.clock.advance((cls.windowSeconds + 1) * 1000);
      const later = await signedRequest(h, limited, { path: `${V1}/domains/search`, query: 'q=coffee' });
      expect(later.status, later.text).toBe(200);
      expect(expectRateLimitHeaders(later).remaining).toBe(4);
    });

    it('{ search: 2 }: the third request is 429', async () => {
      const limited = await h.mint({ rate_limits: { search: 2 } });
      expect((await signedRequest(h, limited, { path: `${V1}/domains/search`, query: 'q=tea' })).status).toBe(200);
      expect((await signedRequest(h, limited, { path: `${V1}/domains/search`, query: 'q=tea' })).status).toBe(200);
      const r = await signedRequest(h, limited, { path: `${V1}/domains/search`, query: 'q=tea' });
      expectError(r, 'rate_limited');
      expectRateLimitHeaders(r, { quota: 2 });
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    });

    it("a path or method the document does not define takes nothing of the credential's budget", async () => {
      const low = { search: 2, write: 2, reporting: 2 };
      const limited = await h.mint({ rate_limits: low });
      // More unknown requests than any class allows: each is its 404 or 405, never a 429.
      for (let i = 0; i < 3; i++) {
        const unknown = await signedRequest(h, limited, { path: `${V1}/no-such-thing` });
        expectError(unknown, 'not_found');
        // Not counted, so no window to report.
        expect(unknown.headers.get('ratelimit-policy')).toBeNull();
        expectError(await signedRequest(h, limited, { method: 'DELETE', path: `${V1}/orders` }), 'method_not_allowed');
      }
      // Every class's budget is whole: the first call of each has quota - 1 left.
      for (const [method, path, query, body] of [
        ['GET', `${V1}/events`, 'limit=1', undefined],
        ['GET', `${V1}/domains/search`, 'q=tea', undefined],
        ['POST', `${V1}/quotes`, '', { domain: 'unlisted-example.com' }],
      ] as const) {
        const r = await signedRequest(h, limited, { method, path, query, ...(body ? { body } : {}) });
        expect(r.status, r.text).not.toBe(429);
        const cls = rateLimitOf(method, path);
        expect(expectRateLimitHeaders(r, { className: cls.name, quota: 2 }).remaining, `${method} ${path}`).toBe(1);
      }
    });

    it('the default quotas of the contract apply without an override', async () => {
      const plain = await h.mint({});
      for (const [method, path] of [
        ['GET', `${V1}/events`],
        ['GET', `${V1}/domains/search`],
        ['POST', `${V1}/quotes`],
      ] as const) {
        const r = await signedRequest(h, plain, {
          method,
          path,
          ...(method === 'POST'
            ? { body: { domain: 'unlisted-example.com' } }
            : { query: path.endsWith('search') ? 'q=x' : '' }),
        });
        const cls = rateLimitOf(method, path);
        const state = expectRateLimitHeaders(r, { className: cls.name, quota: cls.quota });
        expect(state.remaining).toBe(cls.quota - 1);
        expect(state.window).toBe(cls.windowSeconds);
      }
    });
  });

  describe('internal_error', () => {
    it('an unexpected failure is 500 internal_error in the Error shape', async () => {
      const inventory = h.store.inventory;
      const original = inventory.find;
      inventory.find = async () => {
        throw new Error('injected failure');
      };
      try {
        const r = await signedRequest(h, cred, { path: `${V1}/pricing`, query: 'domain=bestcoffeebeans.com' });
        expectIdentifiedError(r, 'internal_error');
        expect(r.body.message).not.toContain('injected');
      } finally {
        inventory.find = original;
      }
      const ok = await signedRequest(h, cred, { path: `${V1}/pricing`, query: 'domain=bestcoffeebeans.com' });
      expect(ok.status).toBe(200);
    });

    it('POST /orders failing inside its write is 500, not stored: a retry with the same key succeeds', async () => {
      const partner = await h.mint({ rate_limits: HIGH });
      const d = await take(h, partner);
      const placement = h.store.placement;
      const original = placement.place;
      let injected = 0;
      // The database refuses the order's event (its type may not be null), after the listing was
      // taken and the order inserted in the same write: the whole write must be undone.
      placement.place = (p) => {
        injected++;
        return original({ ...p, events: p.events.map((e) => ({ ...e, type: null as unknown as string })) });
      };
      const key = randomUUID();
      let failed: Reply;
      try {
        failed = await signedRequest(h, partner, {
          method: 'POST',
          path: `${V1}/orders`,
          body: orderBody(d),
          idempotencyKey: key,
        });
      } finally {
        placement.place = original;
      }
      expect(injected).toBe(1);
      expectIdentifiedError(failed, 'internal_error');
      // Nothing of the failed attempt remains.
      const none = await signedRequest(h, partner, { path: `${V1}/orders` });
      expect(none.body.data).toEqual([]);
      const noEvents = await signedRequest(h, partner, { path: `${V1}/events` });
      expect(noEvents.body.events).toEqual([]);

      const retry = await signedRequest(h, partner, {
        method: 'POST',
        path: `${V1}/orders`,
        body: orderBody(d),
        idempotencyKey: key,
      });
      expect(retry.status, retry.text).toBe(201);
      expect(retry.headers.get('idempotent-replayed')).toBeNull();
      const replay = await signedRequest(h, partner, {
        method: 'POST',
        path: `${V1}/orders`,
        body: orderBody(d),
        idempotencyKey: key,
      });
      expect(replay.status).toBe(201);
      expect(replay.text).toBe(retry.text);
      const one = await signedRequest(h, partner, { path: `${V1}/orders` });
      expect(one.body.data).toHaveLength(1);
    });
  });
});
