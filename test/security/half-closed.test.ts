// A partner that closes its sending half once its request is written (`Connection: close`, then
// `shutdown`, as hand-written clients and `nc -N` do) still gets its answer, on both stores. A
// signed request waits on the store past a poll of the sockets (its nonce and count are written in
// a batch; on PostgreSQL every statement is a round trip), so Node's default, which ends such a
// connection on reading the FIN, would lose it (server/http/express-server.ts).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedHeaders } from '../../client/protocol/index.ts';
import { startHarness, type Harness } from '../server/harness.ts';
import {
  databases,
  domainSource,
  INVENTORY_SIZE,
  nowSeconds,
  orderBody,
  type Credential,
} from '../server/support/http.ts';
import { rawRequest } from './support.ts';

const V1 = '/api/partner/v1';

describe.each(databases())('a half-closed partner connection ($name)', ({ databaseUrl }) => {
  let h: Harness;
  let host: string;
  let cred: Credential;
  const take = domainSource();

  beforeAll(async () => {
    h = await startHarness({ databaseUrl, inventorySize: INVENTORY_SIZE, dispatch: false });
    host = new URL(h.baseUrl).host;
    cred = await h.mint({ scopes: ['search', 'buy'] });
  });
  afterAll(async () => {
    await h?.close();
  });

  const head = (method: string, target: string, headers: Record<string, string>) => [
    `${method} ${target} HTTP/1.1`,
    `Host: ${host}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];

  it('answers signed GETs, each sent and half-closed at once', async () => {
    // Several at a time, so some share a batch of the replay guard.
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => {
        const headers = signedHeaders({
          keyId: cred.key_id,
          secret: cred.secret,
          method: 'GET',
          path: `${V1}/availability`,
          query: 'domain=a.com',
          timestamp: String(nowSeconds(h)),
          nonce: randomUUID(),
        });
        return rawRequest(h.baseUrl, head('GET', `${V1}/availability?domain=a.com`, headers));
      }),
    );
    for (const answer of answers) {
      expect(answer.status, answer.body).toBe(200);
      expect(JSON.parse(answer.body)).toMatchObject({ domain: 'a.com' });
    }
  });

  it('answers a signed POST /orders with 201, and the order is stored', async () => {
    const listing = await take(h, cred);
    const body = JSON.stringify(orderBody(listing));
    const headers = signedHeaders({
      keyId: cred.key_id,
      secret: cred.secret,
      method: 'POST',
      path: `${V1}/orders`,
      timestamp: String(nowSeconds(h)),
      nonce: randomUUID(),
      body,
      idempotencyKey: randomUUID(),
    });
    const answer = await rawRequest(
      h.baseUrl,
      head('POST', `${V1}/orders`, { ...headers, 'Content-Type': 'application/json' }),
      body,
    );
    expect(answer.status, answer.body).toBe(201);
    const order = JSON.parse(answer.body) as { public_id: string; domain: string };
    expect(order.domain).toBe(listing.domain);
    const stored = await rawRequest(
      h.baseUrl,
      head(
        'GET',
        `${V1}/orders/${order.public_id}`,
        signedHeaders({
          keyId: cred.key_id,
          secret: cred.secret,
          method: 'GET',
          path: `${V1}/orders/${order.public_id}`,
          timestamp: String(nowSeconds(h)),
          nonce: randomUUID(),
        }),
      ),
    );
    expect(stored.status, stored.body).toBe(200);
    expect(JSON.parse(stored.body)).toMatchObject({ public_id: order.public_id, domain: listing.domain });
  });
});
