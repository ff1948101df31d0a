// Two server instances on one database, each through its own store (its own SQLite connection
// to one file, or its own PostgreSQL pool): nonces, rate-limit counts and idempotency records
// live in the database, so a replay or a burst split across instances is caught (x-signing `nonce-store`).
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.ts';
import { rateLimitOf } from './support/contract.ts';
import {
  databases,
  domainSource,
  expectError,
  expectRateLimitHeaders,
  INVENTORY_SIZE,
  nowSeconds,
  orderBody,
  signedRequest,
  type Credential,
} from './support/http.ts';

const V1 = '/api/partner/v1';
const HIGH = { search: 10_000, write: 10_000, reporting: 10_000 };

describe.each(databases())('two instances on one database ($name)', ({ databaseUrl }) => {
  let dir: string | undefined;
  let a: Harness;
  let b: Harness;
  let cred: Credential;
  const take = domainSource();

  beforeAll(async () => {
    // No webhook dispatchers: nothing but the requests here reads the store, so a change made
    // through B reaches A's kept rows only through the requests' own checks (store/row-cache.ts).
    if (databaseUrl) a = await startHarness({ databaseUrl, inventorySize: INVENTORY_SIZE, dispatch: false });
    else {
      dir = mkdtempSync(join(tmpdir(), 'replay-'));
      a = await startHarness({
        sqliteFile: join(dir, 'service.sqlite'),
        inventorySize: INVENTORY_SIZE,
        dispatch: false,
      });
    }
    b = await startHarness({ sameDatabaseAs: a, dispatch: false });
    expect(b.store).not.toBe(a.store);
    expect(b.baseUrl).not.toBe(a.baseUrl);
    cred = await a.mint({ rate_limits: HIGH });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a credential minted through one instance is served by the other', async () => {
    const r = await signedRequest(b, cred, { path: `${V1}/events` });
    expect(r.status, r.text).toBe(200);
  });

  it('a request accepted by A and replayed to B is replay_detected (and the other way round)', async () => {
    for (const [first, second] of [
      [a, b],
      [b, a],
    ] as const) {
      const nonce = randomUUID();
      const timestamp = String(nowSeconds(a));
      const accepted = await signedRequest(first, cred, {
        path: `${V1}/pricing`,
        query: 'domain=bestcoffeebeans.com',
        nonce,
        timestamp,
      });
      expect(accepted.status, accepted.text).toBe(200);
      const replayed = await signedRequest(second, cred, {
        path: `${V1}/pricing`,
        query: 'domain=bestcoffeebeans.com',
        nonce,
        timestamp,
      });
      expectError(replayed, 'replay_detected');
    }
  });

  it('a replayed write is refused by the other instance and records nothing', async () => {
    const d = await take(a, cred);
    const nonce = randomUUID();
    const timestamp = String(nowSeconds(a));
    const request = {
      method: 'POST',
      path: `${V1}/orders`,
      body: JSON.stringify(orderBody(d)),
      idempotencyKey: randomUUID(),
      nonce,
      timestamp,
    };
    const accepted = await signedRequest(a, cred, request);
    expect(accepted.status, accepted.text).toBe(201);
    expectError(await signedRequest(b, cred, request), 'replay_detected');
    const list = await signedRequest(b, cred, { path: `${V1}/orders`, query: `domain=${d.domain}` });
    expect(list.body.data).toHaveLength(1);
  });

  it('the same nonce sent to both instances at once is accepted exactly once', async () => {
    for (let round = 0; round < 5; round++) {
      const nonce = randomUUID();
      const timestamp = String(nowSeconds(a));
      const replies = await Promise.all(
        [a, b, a, b].map((h) =>
          signedRequest(h, cred, { path: `${V1}/availability`, query: 'domain=bestcoffeebeans.com', nonce, timestamp }),
        ),
      );
      expect(replies.filter((r) => r.status === 200)).toHaveLength(1);
      for (const r of replies) if (r.status !== 200) expectError(r, 'replay_detected');
    }
  });

  it('rate-limit counts are shared: remaining counts down across instances, then 429 on either', async () => {
    const limited = await a.mint({ rate_limits: { search: 4 } });
    const cls = rateLimitOf('GET', `${V1}/domains/search`);
    const remaining: number[] = [];
    for (const h of [a, b, a, b]) {
      const r = await signedRequest(h, limited, { path: `${V1}/domains/search`, query: 'q=coffee' });
      expect(r.status, r.text).toBe(200);
      remaining.push(expectRateLimitHeaders(r, { className: cls.name, quota: 4 }).remaining);
    }
    expect(remaining).toEqual([3, 2, 1, 0]);
    for (const h of [a, b]) {
      const r = await signedRequest(h, limited, { path: `${V1}/domains/search`, query: 'q=coffee' });
      expectError(r, 'rate_limited');
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
  });

  it('a burst split across instances admits exactly the quota', async () => {
    const limited = await a.mint({ rate_limits: { search: 10 } });
    const replies = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        signedRequest(i % 2 ? a : b, limited, { path: `${V1}/domains/search`, query: 'q=tea' }),
      ),
    );
    expect(replies.filter((r) => r.status === 200)).toHaveLength(10);
    for (const r of replies) if (r.status !== 200) expectError(r, 'rate_limited');
  });

  it('an Idempotency-Key used on A replays on B', async () => {
    const d = await take(a, cred);
    const key = randomUUID();
    const first = await signedRequest(a, cred, {
      method: 'POST',
      path: `${V1}/orders`,
      body: orderBody(d),
      idempotencyKey: key,
    });
    expect(first.status, first.text).toBe(201);
    const replay = await signedRequest(b, cred, {
      method: 'POST',
      path: `${V1}/orders`,
      body: orderBody(d),
      idempotencyKey: key,
    });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(first.text);
  });

  // The admin API: a change to a credential "applies from the partner's next request"
  // (spec/admin/paths/credentials_{key_id}.yaml), on whichever instance it lands. So no instance
  // may serve a credential row it read before the change, however many requests it has in flight.
  it('a credential change made through one instance applies from the next request on the other', async () => {
    const own = await a.mint({ rate_limits: HIGH });
    const events = () => signedRequest(a, own, { path: `${V1}/events` });
    // A has read the credential, several times at once (one statement for all of them on PostgreSQL).
    for (const r of await Promise.all([events(), events(), events()])) expect(r.status, r.text).toBe(200);
    // Once more alone: A now keeps the row as it stands after every commit but the change below,
    // so its next requests read the row from memory, and only their write can tell it has changed.
    expect((await events()).status).toBe(200);
    const patched = await b.admin(`/credentials/${own.key_id}`, { scopes: ['search'] }, 'PATCH');
    expect(patched.status, await patched.text()).toBe(200);
    for (const r of await Promise.all([events(), events(), events()])) expectError(r, 'forbidden');
    const restored = await b.admin(`/credentials/${own.key_id}`, { scopes: ['search', 'buy', 'webhook'] }, 'PATCH');
    expect(restored.status).toBe(200);
    expect((await events()).status).toBe(200);
  });

  // Where rows are kept in memory, a request's credential may first be read from them (the
  // partner surface's signed write confirms them); a refusal never rests on them alone.
  it('a key id one instance has found unknown is accepted there as soon as the other has stored it', async () => {
    const own = await a.mint({ rate_limits: HIGH });
    const keyId = `pk_test_${randomUUID().replaceAll('-', '')}`;
    const secret = `sk_test_${randomUUID().replaceAll('-', '')}`;
    const unknown = { key_id: keyId, secret, partner_id: own.partner_id };
    for (const r of await Promise.all([1, 2].map(() => signedRequest(a, unknown, { path: `${V1}/events` }))))
      expectError(r, 'invalid_signature');
    await b.store.credentials.createCredential({
      keyId,
      partnerId: own.partner_id,
      environment: 'sandbox',
      secret,
      scopes: ['search', 'buy', 'webhook'],
      affiliate: false,
      approved: true,
      rateLimits: HIGH,
      createdAt: Date.now(),
    });
    const r = await signedRequest(a, unknown, { path: `${V1}/events` });
    expect(r.status, r.text).toBe(200);
  });
});
