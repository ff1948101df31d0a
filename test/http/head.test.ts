// HEAD wherever GET is (each document's `x-head`, RFC 9110 §9.3.2): the GET's status and headers,
// Content-Length included, and no body on the wire. On the partner surface HEAD is signed as its
// own method. Written on raw sockets, so the bytes after the headers are seen as sent.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedHeaders } from '../../client/protocol/index.ts';
import { startHarness, type Harness } from '../server/harness.ts';
import { nowSeconds, type Credential } from '../server/support/http.ts';
import { rawRequest, type RawAnswer } from '../security/support.ts';

/** Headers that differ between any two answers (per-request ids, clocks, the rate-limit count). */
const PER_ANSWER = /^(x-request-id|date|ratelimit.*|connection|keep-alive)$/;

function comparable(answer: RawAnswer): Record<string, string> {
  return Object.fromEntries(Object.entries(answer.headers).filter(([name]) => !PER_ANSWER.test(name)));
}

function expectHeadLikeGet(get: RawAnswer, head: RawAnswer): void {
  expect(get.status, get.body.slice(0, 300)).toBe(200);
  expect(head.status).toBe(get.status);
  expect(comparable(head)).toEqual(comparable(get));
  // Where the GET has a length, HEAD says the same length; either way HEAD sends no body.
  if (get.headers['content-length'] !== undefined) {
    expect(Number(get.headers['content-length'])).toBe(Buffer.byteLength(get.body));
    expect(head.headers['content-length']).toBe(get.headers['content-length']);
  }
  expect(head.body).toBe('');
  expect(get.body.length).toBeGreaterThan(0);
}

describe('HEAD', () => {
  let h: Harness;
  let host: string;
  let cred: Credential;
  beforeAll(async () => {
    h = await startHarness({ inventorySize: 20, dispatch: false });
    host = new URL(h.baseUrl).host;
    cred = await h.mint({ scopes: ['search'] });
  });
  afterAll(() => h.close());

  const send = (method: string, target: string, headers: string[] = []) =>
    rawRequest(h.baseUrl, [`${method} ${target} HTTP/1.1`, `Host: ${host}`, ...headers]);

  it.each(['/api/v1', '/docs', '/api/partner/v1/openapi.json', '/healthz'])(
    'answers HEAD %s as its GET without a body',
    async (path) => {
      expectHeadLikeGet(await send('GET', path), await send('HEAD', path));
    },
  );

  it('lists HEAD in Allow beside GET', async () => {
    const answer = await send('DELETE', '/api/v1');
    expect(answer.status).toBe(405);
    expect(answer.headers.allow?.split(', ')).toEqual(expect.arrayContaining(['GET', 'HEAD']));
  });

  describe('a signed partner GET', () => {
    const PATH = '/api/partner/v1/availability';
    const signedAs = (method: string) =>
      Object.entries(
        signedHeaders({
          keyId: cred.key_id,
          secret: cred.secret,
          method,
          path: PATH,
          query: 'domain=a.com',
          timestamp: String(nowSeconds(h)),
          nonce: randomUUID(),
        }),
      ).map(([k, v]) => `${k}: ${v}`);

    it('answers HEAD signed with method HEAD as the GET, without a body', async () => {
      const get = await send('GET', `${PATH}?domain=a.com`, signedAs('GET'));
      const head = await send('HEAD', `${PATH}?domain=a.com`, signedAs('HEAD'));
      expectHeadLikeGet(get, head);
    });

    it('refuses HEAD signed as GET with 401 invalid_signature (the method is signed)', async () => {
      const head = await send('HEAD', `${PATH}?domain=a.com`, signedAs('GET'));
      expect(head.status).toBe(401);
      expect(head.body).toBe('');
      // The reason a HEAD cannot carry: the same request as GET says which code it is.
      const get = await send('GET', `${PATH}?domain=a.com`, signedAs('HEAD'));
      expect(get.status).toBe(401);
      expect(JSON.parse(get.body).code).toBe('invalid_signature');
    });
  });
});
