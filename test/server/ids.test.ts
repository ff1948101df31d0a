// Public identifiers (server/ids.ts) are unguessable only if every character is an independent,
// uniform draw from the 62: no bias towards the first characters (a plain `byte % 62` gives
// '0'..'7' 5/256 each and the others 4/256), no repetition when the pool of random bytes is
// drawn again, and the documented shape.
import { describe, expect, it } from 'vitest';
import { newId, randomBase62 } from '../../server/ids.ts';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

describe('public identifiers', () => {
  it('are the prefix, an underscore and 20 base62 characters', () => {
    expect(newId('ord')).toMatch(/^ord_[0-9A-Za-z]{20}$/);
    expect(randomBase62(7)).toMatch(/^[0-9A-Za-z]{7}$/);
  });

  it('do not repeat, across many draws of the random pool', () => {
    const ids = Array.from({ length: 50_000 }, () => newId('evt'));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('draw every character equally often (chi-square over the 62)', () => {
    const counts = new Map<string, number>();
    const draws = 620_000;
    const text = randomBase62(draws);
    for (const c of text) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect([...counts.keys()].sort().join('')).toBe([...ALPHABET].sort().join(''));
    const expected = draws / 62;
    let chi = 0;
    for (const c of ALPHABET) chi += ((counts.get(c) ?? 0) - expected) ** 2 / expected;
    // 61 degrees of freedom: chance 1e-6 above about 129 (Wilson–Hilferty). Without the rejection of bytes 248 to 255 it read about 4,200 here.
    expect(chi).toBeLessThan(129);
  });
});
