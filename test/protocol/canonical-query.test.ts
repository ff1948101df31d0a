import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ProtocolError,
  canonicalQuery,
  compareCodePoints,
  encodeComponent,
  parseQueryPairs,
} from '../../client/protocol/index.ts';
import { pairArb, rawQueryArb, referenceCompare, trickyText } from './arbitraries.ts';

const sign = (n: number) => (n < 0 ? -1 : n > 0 ? 1 : 0);
const CANONICAL_QUERY = /^(?:(?:[A-Za-z0-9\-_.~]|%[0-9A-F]{2})*=(?:[A-Za-z0-9\-_.~]|%[0-9A-F]{2})*(?:&|$))*$/;

describe('parseQueryPairs', () => {
  it('splits at the first =, treats a bare key as empty-valued and drops empty parts', () => {
    expect(parseQueryPairs('&a=b=c&&flag&=x&')).toEqual([
      { key: 'a', value: 'b=c' },
      { key: 'flag', value: '' },
      { key: '', value: 'x' },
    ]);
  });

  it("keeps the original order (sorting is canonicalQuery's job)", () => {
    expect(parseQueryPairs('b=1&a=2').map((p) => p.key)).toEqual(['b', 'a']);
  });

  it('throws only ProtocolError(validation_error) on arbitrary input', () => {
    const unit = fc.constantFrom('%', '&', '=', '+', 'a', 'F', '0', 'C', '3', 'é', '😀', '\uD800', ' ');
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 12 }), (raw) => {
        try {
          parseQueryPairs(raw);
        } catch (err) {
          expect(err).toBeInstanceOf(ProtocolError);
          expect((err as ProtocolError).code).toBe('validation_error');
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('compareCodePoints', () => {
  it("orders U+FF61 before U+1F600, unlike JavaScript's default comparison", () => {
    expect(compareCodePoints('\uFF61', '\u{1F600}')).toBeLessThan(0);
    expect('\uFF61' < '\u{1F600}').toBe(false);
    expect(compareCodePoints('a', 'ab')).toBeLessThan(0);
    expect(compareCodePoints('ab', 'a')).toBeGreaterThan(0);
    expect(compareCodePoints('😀', '😀')).toBe(0);
  });

  it('agrees with a reference comparator built on Array.from code points', () => {
    fc.assert(
      fc.property(trickyText, trickyText, (a, b) => sign(compareCodePoints(a, b)) === sign(referenceCompare(a, b))),
      { numRuns: 2000 },
    );
  });
});

describe('canonicalQuery', () => {
  it('is invariant under any reordering of the pairs and any equivalent spelling', () => {
    fc.assert(
      fc.property(
        rawQueryArb.chain(({ parts, raw }) =>
          fc.tuple(fc.constant(raw), fc.shuffledSubarray(parts, { minLength: parts.length, maxLength: parts.length })),
        ),
        ([raw, shuffled]) => canonicalQuery(raw) === canonicalQuery(shuffled.join('&')),
      ),
      { numRuns: 1000 },
    );
  });

  it('equals the reference: every pair, encoded, in code-point order of key then value', () => {
    fc.assert(
      fc.property(rawQueryArb, ({ pairs, raw }) => {
        const expected = [...pairs]
          .sort((x, y) => referenceCompare(x.key, y.key) || referenceCompare(x.value, y.value))
          .map((p) => `${encodeComponent(p.key)}=${encodeComponent(p.value)}`)
          .join('&');
        expect(canonicalQuery(raw)).toBe(expected);
      }),
      { numRuns: 1000 },
    );
  });

  it('output is sorted by code point and a permutation of the input pairs', () => {
    fc.assert(
      fc.property(fc.array(pairArb, { maxLength: 10 }), (pairs) => {
        const raw = pairs.map((p) => `${encodeComponent(p.key)}=${encodeComponent(p.value)}`).join('&');
        const out = parseQueryPairs(canonicalQuery(raw));
        for (let i = 1; i < out.length; i++) {
          const prev = out[i - 1];
          const cur = out[i];
          if (!prev || !cur) throw new Error('unreachable');
          const order = referenceCompare(prev.key, cur.key) || referenceCompare(prev.value, cur.value);
          expect(order).toBeLessThanOrEqual(0);
        }
        const bag = (ps: readonly { key: string; value: string }[]) =>
          ps.map((p) => JSON.stringify([p.key, p.value])).sort();
        expect(bag(out)).toEqual(bag(pairs));
      }),
      { numRuns: 1000 },
    );
  });

  it('is idempotent and its output has the canonical alphabet', () => {
    fc.assert(
      fc.property(rawQueryArb, ({ raw }) => {
        const once = canonicalQuery(raw);
        expect(canonicalQuery(once)).toBe(once);
        expect(once).toMatch(CANONICAL_QUERY);
      }),
      { numRuns: 1000 },
    );
  });
});
