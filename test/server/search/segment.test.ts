import { describe, expect, it } from 'vitest';
import { language } from '../../../server/search/language.ts';

const { segmenter, lexicon } = language();
const words = (label: string) => segmenter.segment(label).tokens.map((t) => t.text);
const extras = (label: string) => segmenter.segment(label).extras.map((e) => e.term);

describe('segmenting labels with the WordNet word list', () => {
  it.each([
    ['bestcoffeebeans', ['best', 'coffee', 'beans']],
    ['coffeebeanshop', ['coffee', 'bean', 'shop']],
    ['brewhouse', ['brew', 'house']],
    ['quietmountaintea', ['quiet', 'mountain', 'tea']],
    // Words outside the sandbox vocabulary come from WordNet.
    ['northwindsailing', ['north', 'wind', 'sailing']],
    ['javajunction', ['java', 'junction']],
    ['itineraryplanner', ['itinerary', 'planner']],
    ['best-coffee-beans', ['best', 'coffee', 'beans']],
    ['247yoga', ['247', 'yoga']],
    ['coffee24', ['coffee', '24']],
  ])('%s → %j', (label, expected) => {
    expect(words(label)).toEqual(expected);
  });

  it('indexes words under their lemma', () => {
    const tokens = segmenter.segment('dogtreats').tokens;
    expect(tokens.map((t) => t.term)).toEqual(['dog', 'treat']);
    expect(lexicon.termOf('weddings')).toBe('wedding');
    expect(lexicon.termOf('best')).toBe('best');
  });

  it('keeps what it cannot read as an unknown stretch and counts the letters', () => {
    const s = segmenter.segment('zorgcoffee');
    expect(s.tokens.map((t) => [t.text, t.kind])).toEqual([
      ['zorg', 'unknown'],
      ['coffee', 'word'],
    ]);
    expect(s.unknownLetters).toBe(4);
    expect(segmenter.segment('xn--caf-dma').tokens).toEqual([]);
  });

  it('never invents an inflection that would make a misspelling read as a word', () => {
    expect(lexicon.lookup('weding')).toBeUndefined();
    expect(lexicon.lookup('wedding')).toBeDefined();
    expect(lexicon.lookup('shopping')).toBeDefined();
  });

  it('adds the parts of a compound only when WordNet says the compound is about them', () => {
    expect(extras('sailboatsupply')).toContain('boat');
    expect(extras('carpetcleaners')).not.toContain('car');
    expect(extras('carpetcleaners')).not.toContain('pet');
    // Not in WordNet at all: read as its parts.
    expect(extras('carwash')).toEqual(expect.arrayContaining(['car', 'wash']));
  });

  it('adds the collocations neighbouring words form', () => {
    expect(extras('coffeeshop')).toContain('coffee_shop');
    expect(extras('bestcoffeebeans')).toContain('coffee_bean');
  });

  it('reads a long run of letters in linear time', () => {
    const started = performance.now();
    const s = segmenter.segment('a'.repeat(1000));
    expect(s.tokens.length).toBeGreaterThan(0);
    expect(performance.now() - started).toBeLessThan(200);
  });
});
