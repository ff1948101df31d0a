// How a query is read into concepts: a run of words splits into one concept per word, but an
// English word that only happens to split (smartphone) stays whole, and an inflection keeps the
// form the buyer typed beside its lemma (issue 24, round 3).
import { describe, expect, it } from 'vitest';
import { FuzzyVocabulary } from '../../../server/search/fuzzy.ts';
import { language } from '../../../server/search/language.ts';
import { parseQuery } from '../../../server/search/query.ts';

const read = (q: string) =>
  parseQuery(q, language(), new FuzzyVocabulary(), () => false).concepts.map((c) => ({
    terms: c.alternatives.map((a) => a.term),
    weight: c.weight,
  }));

describe('query reading', () => {
  it('splits words run together into a concept each', () => {
    expect(read('coffeeshop').map((c) => c.terms)).toEqual([['coffee'], ['shop'], ['coffee_shop']]);
  });

  it('keeps an English word that splits into words as one concept, its parts weak beside it', () => {
    const concepts = read('smartphone');
    expect(concepts[0]).toEqual({ terms: ['smartphone'], weight: 1 });
    const parts = concepts.slice(1);
    expect(parts.map((c) => c.terms)).toEqual([['smart'], ['phone']]);
    for (const part of parts) expect(part.weight).toBeLessThan(0.5);
  });

  it('keeps a word the lexicon lacks beside the one word it reads as, both unsure', () => {
    expect(read('moisturizer').map((c) => c.terms)).toEqual([['moisturize', 'moisturizer']]);
  });

  it('keeps the form typed beside the lemma', () => {
    const [concept] = parseQuery('fireworks', language(), new FuzzyVocabulary(), () => false).concepts;
    expect(concept?.alternatives).toEqual([{ term: 'firework', weight: 1, surface: 'fireworks' }]);
    const [plain] = parseQuery('firework', language(), new FuzzyVocabulary(), () => false).concepts;
    expect(plain?.alternatives).toEqual([{ term: 'firework', weight: 1 }]);
  });
});
