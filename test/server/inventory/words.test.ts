import { describe, expect, it } from 'vitest';
import { segmentLabel } from '../../../server/inventory/segment.ts';
import {
  CATEGORIES,
  CATEGORY_NAMES,
  LEXICON,
  MODIFIERS,
  SUFFIXES,
  UNCATEGORISED,
} from '../../../server/inventory/words.ts';

describe('the word list', () => {
  const groups: [string, readonly string[]][] = [
    ...CATEGORY_NAMES.flatMap((c): [string, readonly string[]][] => [
      [`${c} adjectives`, CATEGORIES[c].adjectives],
      [`${c} nouns`, CATEGORIES[c].nouns],
    ]),
    ['modifiers', MODIFIERS],
    ['suffixes', SUFFIXES],
  ];
  const all = groups.flatMap(([, words]) => words);

  it('has a few hundred words, grouped by category, each lowercase a-z', () => {
    expect(all.length).toBeGreaterThanOrEqual(600);
    expect(CATEGORY_NAMES.length).toBeGreaterThanOrEqual(10);
    for (const c of CATEGORY_NAMES) {
      expect(c).toMatch(/^[a-z]+(-[a-z]+)*$/);
      expect(CATEGORIES[c].nouns.length).toBeGreaterThanOrEqual(20);
      expect(CATEGORIES[c].adjectives.length).toBeGreaterThanOrEqual(5);
    }
    for (const w of all) expect(w).toMatch(/^[a-z]+$/);
  });

  it('puts every word in exactly one group, so a word alone decides its category', () => {
    const owner = new Map<string, string>();
    const clashes: string[] = [];
    for (const [group, words] of groups) {
      for (const w of words) {
        const first = owner.get(w);
        if (first) clashes.push(`${w}: ${first} and ${group}`);
        else owner.set(w, group);
      }
    }
    expect(clashes).toEqual([]);
    expect(LEXICON.size).toBe(all.length);
  });
});

describe('segmentLabel', () => {
  it.each([
    ['bestcoffeebeans', ['coffee', 'beans', 'best'], 'food-and-drink'],
    ['brewhouse', ['brew', 'house'], 'food-and-drink'],
    ['baristabar', ['barista', 'bar'], 'food-and-drink'],
    ['quantumledger', ['quantum', 'ledger'], 'finance'],
    ['greenleafgarden', ['green', 'leaf', 'garden'], 'home-and-garden'],
    ['best-coffee-beans', ['coffee', 'beans', 'best'], 'food-and-drink'],
    ['coffee24', ['coffee'], 'food-and-drink'],
    ['247yoga', ['yoga'], 'health'],
    ['quantum', ['quantum'], 'technology'],
    ['besthub', ['best', 'hub'], UNCATEGORISED],
    ['zzqxv', [], UNCATEGORISED],
    ['xn--caf-dma', [], UNCATEGORISED],
  ])('%s → %j, %s', (label, keywords, category) => {
    const s = segmentLabel(label);
    expect(s.keywords).toEqual(keywords);
    expect(s.category).toBe(category);
  });

  it('finds the known words around unknown stretches', () => {
    expect(segmentLabel('zorgcoffee').keywords).toEqual(['coffee']);
  });
});
