// Query values at the edges of what the contract says (issue 31 item 11): a `from`/`to` date that
// is no day of the calendar is a 400 (RFC 3339 §5.7), and the documented maximum `offset`
// (2^53 − 1) is accepted and answers an empty page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isDateTime, isFullDate } from '../../server/domain/calendar.ts';
import { startHarness, type Harness } from './harness.ts';
import { signedRequest, type Credential } from './support/http.ts';

describe('calendar dates (server/domain/calendar.ts)', () => {
  it.each(['2024-02-29', '2000-02-29', '2023-12-31', '2023-04-30'])('%s is a day', (d) =>
    expect(isFullDate(d)).toBe(true),
  );
  it.each(['2023-02-29', '1900-02-29', '2023-04-31', '2023-13-01', '2023-00-10', '2023-01-00', '2023-1-01'])(
    '%s is not',
    (d) => expect(isFullDate(d)).toBe(false),
  );
  it('checks the day of a date-time too', () => {
    expect(isDateTime('2024-02-29T23:59:60Z')).toBe(true);
    expect(isDateTime('2024-02-29t10:00:00.5+05:30')).toBe(true);
    expect(isDateTime('2023-02-29T00:00:00Z')).toBe(false);
    expect(isDateTime('2023-02-28T24:00:00Z')).toBe(false);
    expect(isDateTime('2023-02-28')).toBe(false);
  });
});

describe('query values over HTTP', () => {
  let h: Harness;
  let buyer: Credential;
  beforeAll(async () => {
    h = await startHarness({ inventorySize: 20, dispatch: false });
    buyer = await h.mint({ scopes: ['buy'] });
  });
  afterAll(() => h.close());

  it.each(['from=2023-02-29', 'to=2023-04-31', 'from=2023-02-29T00:00:00Z'])(
    'GET /orders?%s is 400 validation_error',
    async (query) => {
      const res = await signedRequest(h, buyer, { method: 'GET', path: '/api/partner/v1/orders', query });
      expect(res.status, res.text).toBe(400);
      expect(res.body.code).toBe('validation_error');
    },
  );

  it('GET /orders?from=2024-02-29 (a leap day) is answered', async () => {
    const res = await signedRequest(h, buyer, {
      method: 'GET',
      path: '/api/partner/v1/orders',
      query: 'from=2024-02-29',
    });
    expect(res.status, res.text).toBe(200);
  });

  it('accepts the documented maximum offset, 2^53 − 1, with an empty page', async () => {
    const res = await fetch(`${h.baseUrl}/api/market/listings?offset=${Number.MAX_SAFE_INTEGER}`);
    const body = (await res.json()) as { data: unknown[] };
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.data).toEqual([]);
  });

  it.each(['9007199254740992', '99999999999999999999'])('refuses offset=%s as over the maximum', async (offset) => {
    const res = await fetch(`${h.baseUrl}/api/market/listings?offset=${offset}`);
    const body = (await res.json()) as { code: string; details: Array<{ path: string; message: string }> };
    expect(res.status).toBe(400);
    expect(body.code).toBe('validation_error');
    expect(body.details).toContainEqual({ path: '/query/offset', message: `must be <= ${Number.MAX_SAFE_INTEGER}` });
  });
});
