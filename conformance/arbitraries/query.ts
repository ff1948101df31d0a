// Query parameters that exercise every rule of the canonical query (x-signing `canonical-query`): full Unicode
// (astral characters beside U+FF61, where UTF-16 and code-point order disagree), the reserved
// `!'()*`, `+`, spaces, `=` and `&` inside values, repeated keys and empty values.
import fc from 'fast-check';
import { compareCodePoints, encodeComponent } from '../../client/protocol/index.ts';

export type Pair = readonly [key: string, value: string];

const tricky = fc.constantFrom(
  '!',
  "'",
  '(',
  ')',
  '*',
  '+',
  ' ',
  '=',
  '&',
  '%',
  '~',
  '-',
  '_',
  '.',
  '/',
  '?',
  '#',
  'é',
  '｡',
  '😀',
  '𝄞',
  '\uE000',
  'ü',
  '中',
);
const plain = fc.constantFrom(...'abcxyzABC0189'.split(''));
const char = fc.oneof(
  { weight: 3, arbitrary: plain },
  { weight: 2, arbitrary: tricky },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }) },
);
const text = (min: number, max: number) => fc.array(char, { minLength: min, maxLength: max }).map((cs) => cs.join(''));

/** 1 to 6 pairs; keys never empty; some keys repeated. */
export const pairsArbitrary: fc.Arbitrary<Pair[]> = fc
  .array(fc.tuple(text(1, 6), text(0, 8)), { minLength: 1, maxLength: 6 })
  .chain((pairs) =>
    fc.boolean().map((repeat) => {
      const first = pairs[0];
      return repeat && first ? [...pairs, [first[0], `${first[1]}x`] as const] : pairs;
    }),
  );

/** Strict RFC 3986 encoding with uppercase hex: what a correct signer and sender both use. */
export const encodeStrict = (pairs: readonly Pair[]) =>
  pairs.map(([k, v]) => `${encodeComponent(k)}=${encodeComponent(v)}`).join('&');

/** What a correct sender may put on the wire: the same pairs, escapes in lowercase and `~` escaped, in the given order. */
export const encodeLoosely = (pairs: readonly Pair[]) =>
  pairs
    .map(([k, v]) => `${encodeComponent(k).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase())}=${encodeComponent(v)}`)
    .join('&');

const byCodePoint = (a: Pair, b: Pair) => compareCodePoints(a[0], b[0]) || compareCodePoints(a[1], b[1]);
const byUtf16 = (a: Pair, b: Pair) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0);

/**
 * The query lines a signer produces when it makes one of the common mistakes, from the
 * pairs it meant to send. Each returns the (wrong) QUERY_STRING line.
 */
export const MISTAKES: Record<string, (pairs: readonly Pair[]) => string> = {
  'unsorted pairs': (pairs) => encodeStrict(pairs),
  'lowercase hex escapes': (pairs) =>
    encodeStrict([...pairs].sort(byCodePoint)).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
  "!'()* left literal (encodeURIComponent)": (pairs) =>
    [...pairs]
      .sort(byCodePoint)
      .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
      .join('&'),
  'UTF-16 code-unit ordering': (pairs) => encodeStrict([...pairs].sort(byUtf16)),
  'space as +': (pairs) => encodeStrict([...pairs].sort(byCodePoint)).replace(/%20/g, '+'),
  // The families send `encodeLoosely(pairs)`: a signer that signs the wire form is not canonical.
  'query signed as sent, not canonicalised': (pairs) => encodeLoosely(pairs),
};

export const canonicalOf = (pairs: readonly Pair[]) => encodeStrict([...pairs].sort(byCodePoint));
