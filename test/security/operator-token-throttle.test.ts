// Wrong operator tokens are throttled per client address (the admin document's
// "No rate limit; wrong tokens are throttled"): past 10 failures from one address, each further request from it
// waits 1, 2, 4, 8, then 15 minutes after the last failure, answered 429 `rate_limited` with
// Retry-After whatever its token; the operator at another address is never held back, and a
// right token clears the address's count. The requests come from distinct loopback addresses
// (127.0.0.0/8 is all loopback) and the clock is the harness's, so the waits are exact.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startHarness, type Harness } from '../server/harness.ts';
import { databases } from '../server/support/http.ts';
import { freshLoopbackAddress, requestFrom } from '../support/from-address.ts';

const MINUTE = 60_000;

interface Answer {
  status: number;
  retryAfter: string | undefined;
  wwwAuthenticate: string | undefined;
  body: { code?: string; message?: string; request_id?: string };
}

describe.each(databases())('operator-token throttling ($name)', ({ databaseUrl }) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ databaseUrl, inventorySize: 20, dispatch: false });
  });
  afterAll(() => h?.close());

  /** POST /api/admin/v1/settlements/run with `token` from `address`. */
  const call = async (token: string | undefined, address: string): Promise<Answer> => {
    const reply = await requestFrom(h.baseUrl, {
      method: 'POST',
      path: '/api/admin/v1/settlements/run',
      address,
      headers: {
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        'content-type': 'application/json',
      },
      body: '{}',
    });
    return {
      status: reply.status,
      retryAfter: reply.headers['retry-after'],
      wwwAuthenticate: reply.headers['www-authenticate'],
      body: JSON.parse(reply.text || '{}') as Answer['body'],
    };
  };

  it('answers the 11th wrong token from one address 429 with Retry-After; a right token from another address is served', async () => {
    const attacker = freshLoopbackAddress();
    for (let i = 1; i <= 10; i++) {
      const wrong = await call(`wrong-token-${i}`, attacker);
      expect(wrong.status, `wrong token ${i}`).toBe(401);
      expect(wrong.body.code).toBe('invalid_token');
    }
    const eleventh = await call('wrong-token-11', attacker);
    expect(eleventh.status).toBe(429);
    expect(eleventh.body.code).toBe('rate_limited');
    expect(eleventh.body.request_id).toMatch(/^req_/);
    expect(eleventh.retryAfter).toBe('60');
    // While it waits, the right token from that address is answered alike: nothing tells it apart.
    const rightMeanwhile = await call(ADMIN_TOKEN, attacker);
    expect(rightMeanwhile.status).toBe(429);
    expect(rightMeanwhile.body.code).toBe('rate_limited');
    // The operator elsewhere is not held back.
    const operator = await call(ADMIN_TOKEN, freshLoopbackAddress());
    expect(operator.status, JSON.stringify(operator.body)).toBe(200);
  });

  it('waits 1, 2, 4 … minutes after the last failure, and a right token then clears the count', async () => {
    const address = freshLoopbackAddress();
    for (let i = 0; i < 10; i++) expect((await call('wrong', address)).status).toBe(401);
    expect((await call('wrong', address)).retryAfter).toBe('60');
    h.clock.advance(MINUTE);
    // The wait is over: one more attempt is made (and fails), then 2 minutes.
    expect((await call('wrong', address)).status).toBe(401);
    const second = await call('wrong', address);
    expect(second.status).toBe(429);
    expect(second.retryAfter).toBe('120');
    h.clock.advance(2 * MINUTE);
    expect((await call(ADMIN_TOKEN, address)).status).toBe(200);
    // Cleared: ten more wrong tokens before the next wait.
    for (let i = 0; i < 10; i++) expect((await call('wrong', address)).status).toBe(401);
    expect((await call('wrong', address)).status).toBe(429);
  });

  it('does not count requests without a token, nor right tokens, however many at once', async () => {
    const address = freshLoopbackAddress();
    for (let i = 0; i < 12; i++) {
      const missing = await call(undefined, address);
      expect(missing.status).toBe(401);
      expect(missing.body.code).toBe('missing_credentials');
    }
    const answers = await Promise.all(Array.from({ length: 15 }, () => call(ADMIN_TOKEN, address)));
    expect(answers.map((a) => a.status)).toEqual(Array<number>(15).fill(200));
    expect((await call('wrong', address)).status).toBe(401);
  });

  it('counts an IPv6 address by its /64', async () => {
    // Only the key is IPv6 here: the harness listens on IPv4, so the rule is checked where it lives.
    const { throttledAddress } = await import('../../server/domain/signin-throttle.ts');
    expect(throttledAddress('2001:db8:1:2:aaaa::1')).toBe(throttledAddress('2001:db8:1:2:bbbb::2'));
    expect(throttledAddress('2001:db8:1:3::1')).not.toBe(throttledAddress('2001:db8:1:2::1'));
  });
});
