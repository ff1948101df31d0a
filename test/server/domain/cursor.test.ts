import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, isCursorError, type CursorPosition } from '../../../server/domain/cursor.ts';
import { at, loadYaml } from './spec.ts';

const KEY = Buffer.from('cursor-test-key-0123456789abcdef');
const cursorParam = at(
  loadYaml('spec/partner/components/parameters.yaml'),
  'components',
  'parameters',
  'Cursor',
  'schema',
) as {
  minLength: number;
  maxLength: number;
};

// -0 travels as 0 in JSON; both are the same sort key, so the generator leaves it out.
const position = fc.array(
  fc.oneof(
    fc.string({ unit: 'grapheme' }),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => (Object.is(n, -0) ? 0 : n)),
  ),
  { maxLength: 4 },
);
const binding = fc.dictionary(
  fc.string({ maxLength: 10 }),
  fc.oneof(fc.string({ maxLength: 20 }), fc.integer(), fc.constant(null)),
  { maxKeys: 5 },
);
const ordersBinding = {
  status: 'EXTERNALLY_PAID',
  domain: null,
  from: '2026-11-01T00:00:00Z',
  to: null,
  sort: 'created_at',
};
const ordersPosition: CursorPosition = ['2026-11-22T09:31:12Z', 'ord_7QK2M9XB4T'];

describe('cursors (the "Lists" paragraph)', () => {
  it('round-trip the position of the last row', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 12 }), binding, position, (scope, b, p) => {
        const cursor = encodeCursor(KEY, { scope, binding: b, position: p });
        expect(decodeCursor(KEY, cursor, scope, b)).toEqual(p);
      }),
    );
  });

  it('are bound to the filters whatever their key order', () => {
    const cursor = encodeCursor(KEY, { scope: 'orders', binding: ordersBinding, position: ordersPosition });
    const reordered = Object.fromEntries(Object.entries(ordersBinding).reverse());
    expect(decodeCursor(KEY, cursor, 'orders', reordered)).toEqual(ordersPosition);
  });

  it('refuse other filters or sort with the spec message', () => {
    const examples = JSON.stringify(at(loadYaml('spec/partner/components/responses.yaml'), 'components', 'responses'));
    const cursor = encodeCursor(KEY, { scope: 'orders', binding: ordersBinding, position: ordersPosition });
    for (const other of [
      { ...ordersBinding, status: 'PAID' },
      { ...ordersBinding, sort: 'domain' },
      { ...ordersBinding, domain: 'x.com' },
    ]) {
      const result = decodeCursor(KEY, cursor, 'orders', other);
      expect(result).toMatchObject({ error: 'invalid_cursor' });
      if (isCursorError(result)) expect(examples).toContain(result.message);
    }
  });

  it('refuse any binding that differs in canonical JSON', () => {
    fc.assert(
      fc.property(binding, binding, position, (b1, b2, p) => {
        fc.pre(JSON.stringify(Object.entries(b1).sort()) !== JSON.stringify(Object.entries(b2).sort()));
        const cursor = encodeCursor(KEY, { scope: 'orders', binding: b1, position: p });
        expect(decodeCursor(KEY, cursor, 'orders', b2)).toMatchObject({ error: 'invalid_cursor' });
      }),
    );
  });

  it('refuse a cursor of another list', () => {
    const cursor = encodeCursor(KEY, { scope: 'orders', binding: {}, position: ordersPosition });
    expect(decodeCursor(KEY, cursor, 'transactions', {})).toMatchObject({ error: 'invalid_cursor' });
  });

  it('refuse any single-character change', () => {
    const cursor = encodeCursor(KEY, { scope: 'orders', binding: ordersBinding, position: ordersPosition });
    fc.assert(
      fc.property(
        fc.nat(cursor.length - 1),
        fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/'.split('')),
        (i, c) => {
          const changed = cursor.slice(0, i) + c + cursor.slice(i + 1);
          fc.pre(changed !== cursor);
          expect(isCursorError(decodeCursor(KEY, changed, 'orders', ordersBinding))).toBe(true);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('refuse malformed text, a cursor of another key, and a forged position', () => {
    for (const bad of [
      '',
      '.',
      'abc',
      'a.b',
      '0',
      '50',
      'eyJrIjpbIjIwMjYtMTEtMjJUMDk6MzE6MTJaIiwib3JkXzdRSzJNOVhCNFQiXX0.Hc7pT2wQ',
    ]) {
      expect(decodeCursor(KEY, bad, 'orders', ordersBinding), bad).toMatchObject({ error: 'invalid_cursor' });
    }
    const foreign = encodeCursor(Buffer.from('another key'), {
      scope: 'orders',
      binding: ordersBinding,
      position: ordersPosition,
    });
    expect(decodeCursor(KEY, foreign, 'orders', ordersBinding)).toMatchObject({ error: 'invalid_cursor' });
    const [payload = '', tag = ''] = encodeCursor(KEY, {
      scope: 'orders',
      binding: ordersBinding,
      position: ordersPosition,
    }).split('.');
    const forged = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { k: unknown[] };
    forged.k = ['1970-01-01T00:00:00Z', 'ord_0'];
    expect(
      decodeCursor(KEY, `${Buffer.from(JSON.stringify(forged)).toString('base64url')}.${tag}`, 'orders', ordersBinding),
    ).toMatchObject({
      error: 'invalid_cursor',
    });
  });

  it('stay within the schema length even for a long search text', () => {
    const cursor = encodeCursor(KEY, { scope: 'orders', binding: { q: 'x'.repeat(5000) }, position: ordersPosition });
    expect(cursor.length).toBeGreaterThanOrEqual(cursorParam.minLength);
    expect(cursor.length).toBeLessThanOrEqual(cursorParam.maxLength);
  });

  it('carry the position, not an offset: equal positions give equal cursors', () => {
    const a = encodeCursor(KEY, { scope: 'orders', binding: ordersBinding, position: ordersPosition });
    const b = encodeCursor(KEY, { scope: 'orders', binding: ordersBinding, position: [...ordersPosition] });
    expect(a).toBe(b);
    expect(decodeCursor(KEY, a, 'orders', ordersBinding)).toEqual(['2026-11-22T09:31:12Z', 'ord_7QK2M9XB4T']);
  });

  it('refuse to encode a position JSON cannot carry', () => {
    expect(() => encodeCursor(KEY, { scope: 'orders', binding: {}, position: [Number.NaN] })).toThrow(TypeError);
    expect(() => encodeCursor(KEY, { scope: 'orders', binding: {}, position: [Number.POSITIVE_INFINITY] })).toThrow(
      TypeError,
    );
  });
});
