// fast-check generators shared by the protocol property tests.
import fc from 'fast-check';

/** Any string of valid code points, astral planes included (no unpaired surrogates). */
export const anyText = fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }));

// Characters on both sides of the places where UTF-16 order and code-point order part ways,
// plus the characters the canonical query treats specially.
const TRICKY = [
  '\uD7FF',
  '\uE000',
  '\uFF61',
  '\uFFFD',
  '\uFFFF',
  '\u{10000}',
  '\u{1F600}',
  '\u{10FFFF}',
  '\uFEFF',
  'a',
  'A',
  'z',
  '~',
  '-',
  '.',
  '/',
  '%',
  '+',
  ' ',
  '=',
  '&',
  '!',
  "'",
  '(',
  ')',
  '*',
  'é',
  '\u0000',
];

/** Short strings biased towards the characters where sorting and escaping go wrong. */
export const trickyText = fc.oneof(
  fc.string({ unit: fc.constantFrom(...TRICKY), maxLength: 4 }),
  fc.string({ unit: 'binary', maxLength: 6 }),
);

export interface Pair {
  key: string;
  value: string;
}

export const pairArb: fc.Arbitrary<Pair> = fc.record({ key: trickyText, value: trickyText });

const HEX = '0123456789ABCDEF';

/** A valid but not canonical spelling: random choice of escaping per byte, random hex case. */
function looseEncode(text: string, seed: number): string {
  let out = '';
  let s = seed;
  for (const byte of new TextEncoder().encode(text)) {
    s = (s * 1103515245 + 12345) >>> 0;
    const literalOk = byte >= 0x21 && byte <= 0x7e && !'%&=+#'.includes(String.fromCharCode(byte));
    if (literalOk && s % 3 === 0) {
      out += String.fromCharCode(byte);
    } else {
      const hex = `${HEX[byte >> 4]}${HEX[byte & 15]}`;
      out += `%${s % 2 === 0 ? hex : hex.toLowerCase()}`;
    }
  }
  return out;
}

/** Renders one pair as a raw query part, in one of several equivalent spellings. */
export function renderPair(pair: Pair, seed: number): string {
  const key = looseEncode(pair.key, seed);
  const value = looseEncode(pair.value, seed ^ 0x5bd1e995);
  // With an empty value, `k` and `k=` are the same pair (but a bare empty key is an empty part).
  return pair.value === '' && key !== '' && seed % 2 === 0 ? key : `${key}=${value}`;
}

/** Pairs plus their raw spelling (with some empty parts thrown in). */
export const rawQueryArb = fc
  .tuple(fc.array(pairArb, { maxLength: 8 }), fc.nat(), fc.array(fc.boolean(), { maxLength: 8 }))
  .map(([pairs, seed, empties]) => {
    const parts = pairs.map((p, i) => renderPair(p, seed + i));
    const withEmpties = parts.flatMap((part, i) => (empties[i] ? ['', part] : [part]));
    return { pairs, parts, raw: withEmpties.join('&') };
  });

/** Reference order: compares arrays of code points built with Array.from. */
export function referenceCompare(a: string, b: string): number {
  const ca = Array.from(a, (c) => c.codePointAt(0) ?? 0);
  const cb = Array.from(b, (c) => c.codePointAt(0) ?? 0);
  for (let i = 0; i < Math.min(ca.length, cb.length); i++) {
    const x = ca[i] ?? 0;
    const y = cb[i] ?? 0;
    if (x !== y) return x - y;
  }
  return ca.length - cb.length;
}

export const printableAscii = fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c));
