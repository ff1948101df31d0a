import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_INVENTORY_SIZE,
  floorCents,
  generateInventory,
  INVENTORY_EPOCH,
  MAX_PRICE_CENTS,
  MIN_PRICE_CENTS,
  mulberry32,
  RESERVED_UNLISTED,
  WELL_KNOWN_NAMES,
} from '../../../server/inventory/generate.ts';
import { domainSyntaxError } from '../../../server/inventory/import.ts';
import type { InventoryRow } from '../../../server/inventory/types.ts';
import { CATEGORY_NAMES, LEXICON } from '../../../server/inventory/words.ts';

const take = (n: number, rows: Iterable<InventoryRow>): InventoryRow[] => {
  const out: InventoryRow[] = [];
  for (const row of rows) {
    if (out.length >= n) break;
    out.push(row);
  }
  return out;
};

const TWO_YEARS_MS = 2 * 365 * 24 * 3600 * 1000;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

describe('generateInventory', () => {
  it('gives the same first 1000 rows for the same seed', () => {
    const a = take(1000, generateInventory({ size: 5000, seed: 42 }));
    const b = take(1000, generateInventory({ size: 5000, seed: 42 }));
    expect(a).toHaveLength(1000);
    expect(b).toEqual(a);
  });

  it('extends, never reshuffles, when only the size grows', () => {
    const small = [...generateInventory({ size: 1000, seed: 7 })];
    const large = take(1000, generateInventory({ size: 20_000, seed: 7 }));
    expect(large).toEqual(small);
  });

  it('gives different rows for a different seed', () => {
    const generated = (seed: number) =>
      take(1000, generateInventory({ size: 1000, seed })).slice(WELL_KNOWN_NAMES.length);
    const a = generated(1);
    const b = generated(2);
    const domainsA = new Set(a.map((r) => r.domain));
    const shared = b.filter((r) => domainsA.has(r.domain)).length;
    expect(shared).toBeLessThan(b.length / 2);
    expect(b).not.toEqual(a);
  });

  it('yields exactly `size` rows, the default being at least 10,000', () => {
    expect([...generateInventory({ size: 0 })]).toHaveLength(0);
    expect([...generateInventory({ size: 3 })]).toHaveLength(3);
    expect([...generateInventory({ size: 1234 })]).toHaveLength(1234);
    expect(DEFAULT_INVENTORY_SIZE).toBeGreaterThanOrEqual(10_000);
    let n = 0;
    for (const _ of generateInventory()) n++;
    expect(n).toBe(DEFAULT_INVENTORY_SIZE);
  });

  it('refuses a size that is not a non-negative integer', () => {
    expect(() => [...generateInventory({ size: -1 })]).toThrow(RangeError);
    expect(() => [...generateInventory({ size: 1.5 })]).toThrow(RangeError);
  });

  it('never repeats a domain over 200,000 rows, and never lists the reserved names', () => {
    const seen = new Set<string>();
    let duplicates = 0;
    for (const row of generateInventory({ size: 200_000, seed: 99 })) {
      if (seen.has(row.domain)) duplicates++;
      seen.add(row.domain);
    }
    expect(duplicates).toBe(0);
    expect(seen.size).toBe(200_000);
    for (const reserved of RESERVED_UNLISTED) expect(seen.has(reserved)).toBe(false);
  });

  it('streams a million rows without keeping them', () => {
    // A generator that kept its rows would need hundreds of megabytes here.
    const before = process.memoryUsage().heapUsed;
    let n = 0;
    let peak = before;
    for (const _ of generateInventory({ size: 1_000_000, seed: 3 })) {
      if (++n % 100_000 === 0) peak = Math.max(peak, process.memoryUsage().heapUsed);
    }
    expect(n).toBe(1_000_000);
    expect(peak - before).toBeLessThan(150 * 1024 * 1024);
  }, 60_000);

  it('lists the well-known names first, at their documented prices, for any seed', () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const rows = take(WELL_KNOWN_NAMES.length, generateInventory({ size: 50, seed }));
        expect(rows.map((r) => r.domain)).toEqual(WELL_KNOWN_NAMES.map((w) => w.domain));
      }),
      { numRuns: 20 },
    );
    const byDomain = new Map([...generateInventory()].map((r) => [r.domain, r]));
    expect(byDomain.get('bestcoffeebeans.com')).toMatchObject({
      label: 'bestcoffeebeans',
      tld: 'com',
      price_cents: 250_000,
      floor_cents: 200_000,
      currency: 'USD',
      category: 'food-and-drink',
      keywords: ['coffee', 'beans', 'best'],
      listed_at: Date.parse('2026-06-02T08:00:00Z'),
    });
    for (const domain of ['brewhouse.io', 'baristabar.com', 'quantumledger.io', 'greenleafgarden.com'])
      expect(byDomain.has(domain)).toBe(true);
    expect(byDomain.get('brewhouse.io')?.keywords).toEqual(['brew', 'house']);
    expect(byDomain.get('quantumledger.io')?.category).toBe('finance');
  });

  it('makes well-formed rows: valid domain, label + tld, known words, a category, a listing time in the window', () => {
    for (const row of generateInventory({ size: 20_000, seed: 5 })) {
      expect(domainSyntaxError(row.domain)).toBeUndefined();
      expect(row.domain).toBe(`${row.label}.${row.tld}`);
      expect(row.currency).toBe('USD');
      expect(row.keywords.length).toBeGreaterThan(0);
      for (const k of row.keywords) expect(LEXICON.has(k)).toBe(true);
      for (const k of row.keywords) expect(row.label).toContain(k);
      expect(CATEGORY_NAMES as string[]).toContain(row.category);
      expect(Number.isSafeInteger(row.listed_at)).toBe(true);
      expect(row.listed_at).toBeLessThan(INVENTORY_EPOCH);
      expect(row.listed_at).toBeGreaterThanOrEqual(INVENTORY_EPOCH - TWO_YEARS_MS);
    }
  });

  it('uses realistic TLDs with .com the most common, and includes single words, digits and hyphens', () => {
    const rows = [...generateInventory({ size: 10_000, seed: 11 })];
    const tlds = new Map<string, number>();
    for (const r of rows) tlds.set(r.tld, (tlds.get(r.tld) ?? 0) + 1);
    const ranked = [...tlds].sort((a, b) => b[1] - a[1]);
    expect(ranked[0]?.[0]).toBe('com');
    expect(tlds.get('com')).toBeGreaterThan(rows.length * 0.3);
    for (const tld of [
      'net',
      'org',
      'io',
      'co',
      'ai',
      'app',
      'dev',
      'shop',
      'store',
      'xyz',
      'me',
      'us',
      'info',
      'biz',
      'tech',
      'online',
    ]) {
      expect(tlds.get(tld) ?? 0).toBeGreaterThan(0);
    }
    expect(rows.some((r) => /\d/.test(r.label))).toBe(true);
    expect(rows.some((r) => r.label.includes('-'))).toBe(true);
    expect(rows.filter((r) => LEXICON.has(r.label)).length).toBeGreaterThan(100);
    expect(new Set(rows.map((r) => r.category)).size).toBe(CATEGORY_NAMES.length);
  });

  it('prices by length, TLD and form: short .com dear, long hyphenated cheap', () => {
    const rows = [...generateInventory({ size: 20_000, seed: 13 })].slice(WELL_KNOWN_NAMES.length);
    const prices = (pick: (r: InventoryRow) => boolean) => rows.filter(pick).map((r) => r.price_cents);
    expect(median(prices((r) => r.tld === 'com'))).toBeGreaterThan(2 * median(prices((r) => r.tld === 'xyz')));
    expect(median(prices((r) => r.tld === 'com' && r.label.length <= 6))).toBeGreaterThan(
      5 * median(prices((r) => r.tld === 'com' && r.label.length >= 14)),
    );
    expect(median(prices((r) => r.label.includes('-')))).toBeLessThan(median(prices((r) => !r.label.includes('-'))));
    expect(median(prices((r) => LEXICON.has(r.label)))).toBeGreaterThan(median(prices((r) => r.keywords.length >= 2)));
  });
});

describe('prices', () => {
  it('are whole dollars within bounds with a floor of 50 to 85 % of the price (any seed)', () => {
    fc.assert(
      fc.property(fc.integer(), fc.integer({ min: 20, max: 400 }), (seed, size) => {
        for (const row of generateInventory({ size, seed })) {
          expect(Number.isSafeInteger(row.price_cents)).toBe(true);
          expect(Number.isSafeInteger(row.floor_cents)).toBe(true);
          expect(row.price_cents % 100).toBe(0);
          expect(row.floor_cents % 100).toBe(0);
          expect(row.price_cents).toBeGreaterThanOrEqual(MIN_PRICE_CENTS);
          expect(row.price_cents).toBeLessThanOrEqual(MAX_PRICE_CENTS);
          expect(row.floor_cents * 100).toBeGreaterThanOrEqual(row.price_cents * 50);
          expect(row.floor_cents * 100).toBeLessThanOrEqual(row.price_cents * 85);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('floorCents keeps any whole-dollar price between 50 % and 85 %', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: MIN_PRICE_CENTS / 100, max: MAX_PRICE_CENTS / 100 }),
        fc.integer(),
        (dollars, seed) => {
          const price = dollars * 100;
          const floor = floorCents(mulberry32(seed), price);
          expect(floor % 100).toBe(0);
          expect(floor * 100).toBeGreaterThanOrEqual(price * 50);
          expect(floor * 100).toBeLessThanOrEqual(price * 85);
        },
      ),
    );
  });
});

describe('mulberry32', () => {
  it('is deterministic per seed and stays in [0, 1)', () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const a = mulberry32(seed);
        const b = mulberry32(seed);
        for (let i = 0; i < 50; i++) {
          const x = a();
          expect(b()).toBe(x);
          expect(x).toBeGreaterThanOrEqual(0);
          expect(x).toBeLessThan(1);
        }
      }),
    );
  });
});
