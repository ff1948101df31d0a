// Query values at the edges of what the contract says (issue 31 item 11): a `from`/`to` date that
// is no day of the calendar is a 400 (RFC 3339 §5.7), and the documented maximum `offset`
// (2^53 − 1) is accepted and answers an empty page. A date window whose `to` is not later than
// its `from` is a 400 on every operation that takes one (the To parameter; probe round 3, L4).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isDateTime, isFullDate } from '../../server/domain/calendar.ts';
import { deref, documents, obj, operations } from '../docs/support.ts';
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

/** Every partner operation taking the To parameter, read from the document so a new one is covered too. */
const windowed = operations(documents.partner).filter(({ op }) =>
  (Array.isArray(op.parameters) ? op.parameters : []).some((p) => {
    const param = deref(documents.partner, p);
    return param.name === 'to' && param.in === 'query';
  }),
);

describe('date windows: to must be later than from (the To parameter)', () => {
  let h: Harness;
  let all: Credential;
  beforeAll(async () => {
    h = await startHarness({ inventorySize: 20, dispatch: false });
    const scopes = Object.keys(obj(documents.partner['x-scope-definitions']));
    const high = { search: 10_000, write: 10_000, reporting: 10_000 };
    all = await h.mint({ scopes, affiliate: true, rate_limits: high });
  });
  afterAll(() => h.close());

  it('finds the operations that take a window (orders, transactions, analytics among them)', () => {
    const paths = windowed.map((o) => o.path);
    for (const p of ['/api/partner/v1/orders', '/api/partner/v1/transactions', '/api/partner/v1/analytics'])
      expect(paths).toContain(p);
    const to = deref(documents.partner, obj(obj(documents.partner.components).parameters).To);
    expect(String(to.description)).toMatch(/later than `from`[\s\S]*400\s+`validation_error`/);
  });

  it.each(windowed.map((o) => [o.method, o.path] as const))(
    '%s %s refuses from >= to with 400 validation_error at /query/to, and answers from < to',
    async (method, path) => {
      for (const query of [
        'from=2023-01-02&to=2023-01-01',
        'from=2023-01-01&to=2023-01-01',
        'from=2023-01-01T10:00:00Z&to=2023-01-01T09:59:59.999Z',
        'from=2023-01-01&to=2023-01-01T00:00:00Z',
      ]) {
        const res = await signedRequest(h, all, { method, path, query });
        expect(res.status, `${path}?${query}: ${res.text}`).toBe(400);
        expect(res.body.code).toBe('validation_error');
        expect(res.body.message).toMatch(/to .* must be later than from/);
        expect(res.body.details).toEqual([{ path: '/query/to', message: expect.stringMatching(/later than from/) }]);
      }
      for (const query of ['from=2023-01-01&to=2023-01-02', 'from=2023-01-01T00:00:00Z&to=2023-01-01T00:00:00.001Z']) {
        const res = await signedRequest(h, all, { method, path, query });
        expect(res.status, `${path}?${query}: ${res.text}`).toBe(200);
      }
    },
  );
});
