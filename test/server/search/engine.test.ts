import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateInventory } from '../../../server/inventory/generate.ts';
import { createDomainIndex, type DomainIndex, type SearchListing } from '../../../server/search/index.ts';

const listingsOf = (size: number, seed: number): SearchListing[] =>
  [...generateInventory({ size, seed })].map(({ domain, label, tld, category, price_cents, currency }) => ({
    domain,
    label,
    tld,
    category,
    price_cents,
    currency,
  }));

const listing = (domain: string, category = 'uncategorised'): SearchListing => {
  const dot = domain.indexOf('.');
  return {
    domain,
    label: domain.slice(0, dot),
    tld: domain.slice(dot + 1),
    category,
    price_cents: 100_000,
    currency: 'USD',
  };
};

const domains = (index: DomainIndex, q: string) => index.search(q).map((h) => h.listing.domain);

describe('the domain index', () => {
  let listings: SearchListing[];
  let index: DomainIndex;
  beforeAll(() => {
    listings = listingsOf(3000, 1);
    index = createDomainIndex(listings);
  });

  it('answers at most five names, scored 0 to 1 and sorted by score', () => {
    for (const q of ['coffee', 'fresh coffee beans', 'espresso', 'caffeine', 'used cars', 'dog']) {
      const hits = index.search(q);
      expect(hits.length).toBeGreaterThan(0);
      expect(hits.length).toBeLessThanOrEqual(5);
      for (const [i, h] of hits.entries()) {
        expect(h.score).toBeGreaterThanOrEqual(0);
        expect(h.score).toBeLessThanOrEqual(1);
        if (i > 0) expect(h.score).toBeLessThanOrEqual(hits[i - 1]?.score ?? 1);
      }
    }
  });

  it('puts the exact domain first with score 1, and the exact label (any TLD) near it', () => {
    const hits = index.search('bestcoffeebeans.com');
    expect(hits[0]?.listing.domain).toBe('bestcoffeebeans.com');
    expect(hits[0]?.score).toBe(1);
    expect(domains(index, 'brewhouse')[0]).toBe('brewhouse.io');
    expect(domains(index, 'Best Coffee Beans')[0]).toBe('bestcoffeebeans.com');
  });

  it('finds by meaning what no keyword matches', () => {
    // None of these names contains "espresso"; the semantic side knows baristas and brewing.
    const byMeaning = createDomainIndex(
      ['baristabar.com', 'brewhouse.io', 'greenleafgarden.com', 'quantumledger.io'].map((d) => listing(d)),
    );
    expect(domains(byMeaning, 'espresso').slice(0, 2).sort()).toEqual(['baristabar.com', 'brewhouse.io']);
    expect(domains(byMeaning, 'espresso')).not.toContain('quantumledger.io');
  });

  it('forgives typos and half-typed words', () => {
    expect(domains(index, 'cofee').some((d) => d.includes('coffee'))).toBe(true);
    expect(domains(index, 'espres').some((d) => d.includes('espresso'))).toBe(true);
  });

  it('answers nothing for nonsense, and never fails on any input', () => {
    expect(index.search('zzqxv')).toEqual([]);
    expect(index.search('   ')).toEqual([]);
    expect(index.search('%_!!')).toEqual([]);
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (q) => {
        const hits = index.search(q);
        expect(hits.length).toBeLessThanOrEqual(5);
        for (const h of hits) expect(h.score >= 0 && h.score <= 1).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('answers a 1,000-character query quickly', () => {
    const long = Array.from({ length: 200 }, (_, i) => ['coffee', 'zzq', 'espresso', 'x'.repeat(30), 'tea'][i % 5])
      .join(' ')
      .slice(0, 1000);
    expect(long).toHaveLength(1000);
    const started = performance.now();
    index.search(long);
    index.search('q'.repeat(1000));
    expect(performance.now() - started).toBeLessThan(250);
  });

  it('is deterministic: the same inventory in any order gives the same answers', () => {
    const reversed = createDomainIndex([...listings].reverse());
    for (const q of ['coffee', 'tea', 'yoga studio', 'cars', 'best']) {
      expect(reversed.search(q)).toEqual(index.search(q));
      expect(index.search(q)).toEqual(index.search(q));
    }
  });

  it('takes sales, relistings and new listings without a rebuild', () => {
    const live = createDomainIndex(listingsOf(500, 3));
    const before = live.size;
    const first = domains(live, 'coffee')[0];
    expect(first).toBeDefined();
    expect(live.remove(first ?? '')).toBe(true);
    expect(live.remove(first ?? '')).toBe(false);
    expect(live.size).toBe(before - 1);
    expect(domains(live, 'coffee')).not.toContain(first);
    expect(domains(live, first ?? '')).not.toContain(first);

    live.upsert(listing(first ?? '', 'food-and-drink'));
    expect(live.size).toBe(before);
    expect(domains(live, first ?? '')[0]).toBe(first);

    expect(domains(live, 'northwindsailing')).not.toContain('northwindsailing.com');
    live.upsert(listing('northwindsailing.com'));
    expect(domains(live, 'northwindsailing')[0]).toBe('northwindsailing.com');
    expect(domains(live, 'sailing')).toContain('northwindsailing.com');
    // A relisting at a new price is the same document with the new price.
    live.upsert({ ...listing('northwindsailing.com'), price_cents: 5_000 });
    expect(live.search('northwindsailing.com')[0]?.listing.price_cents).toBe(5_000);
    expect(live.size).toBe(before + 1);
  });

  it('finds a brandable no dictionary reads by its beginning', () => {
    const brandables = createDomainIndex([listing('zorbexa.com'), listing('lumenova.io'), listing('coffee.com')]);
    expect(domains(brandables, 'zorbexa')[0]).toBe('zorbexa.com');
    expect(domains(brandables, 'zorbex')[0]).toBe('zorbexa.com');
  });
});
