// What a query asks for, as concepts: each concept is one thing the name should be about, with
// the terms that would express it (a known word; else the words a run of letters reads as; else
// the listed terms it is a typo or the start of). A name scores on a concept by its best
// alternative, so "expresso" counts espresso once, not espresso and express both.
import type { WordInfo } from '../inventory/words.ts';
import type { FuzzyVocabulary } from './fuzzy.ts';
import type { Language } from './language.ts';

export interface Alternative {
  term: string;
  /** How sure the reading is, 0 to 1. */
  weight: number;
}

export interface Concept {
  alternatives: Alternative[];
  /** How much the concept counts beside the others. */
  weight: number;
}

export interface ParsedQuery {
  /** The full domain when the query is one (bestcoffeebeans.com). */
  exactDomain: string | undefined;
  /** Labels the query spells out: as typed (best-coffee-beans) and run together (bestcoffeebeans). */
  exactLabels: string[];
  concepts: Concept[];
}

/** More words than this add nothing a buyer means and each costs a pass over postings. */
export const MAX_QUERY_WORDS = 8;
/** A longer run of letters is not a word or a name; it is read but not spell-checked. */
const MAX_WORD_LENGTH = 63;
const FUZZY_LIMIT = 3;
/** A misspelling is likelier of a word that carries meaning than of a filler like "express". */
const GENERIC_TYPO = 0.7;
const UNSURE_READING = 0.7;
const STRAY_LETTERS = 0.5;
const COLLOCATION = 0.5;
const FILLER = 0.3;
const GENERIC = 0.5;
const DESCRIBING = 0.7;
const FILLERS = new Set(['a', 'an', 'the', 'of', 'for', 'and', 'or', 'to', 'in', 'on', 'at', 'by', 'with', 'my', 'your', 'our', 'best', 'top', 'buy', 'domain', 'domains', 'com', 'www']);

export function normaliseQuery(q: string): string {
  return q.normalize('NFKC').toLowerCase().trim();
}

export function parseQuery(q: string, language: Language, vocabulary: FuzzyVocabulary, known: (term: string) => boolean): ParsedQuery {
  const text = normaliseQuery(q).replace(/^https?:\/\//, '').replace(/^www\./, '');
  const domainLike = /^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(text);
  const labelText = domainLike ? text.slice(0, text.indexOf('.')) : text;
  const words = [...new Set(labelText.split(/[^a-z0-9]+/).filter((w) => w.length > 0))].slice(0, MAX_QUERY_WORDS);
  const { lexicon, segmenter, wordnet } = language;
  const concepts: Concept[] = [];
  const heads: (string | undefined)[] = [];

  for (const raw of words) {
    const word = raw.slice(0, MAX_WORD_LENGTH);
    const filler = FILLERS.has(word) && words.length > 1 ? FILLER : 1;
    if (/^\d+$/.test(word)) {
      concepts.push({ alternatives: [{ term: word, weight: 1 }], weight: 0.5 });
      heads.push(undefined);
      continue;
    }
    const form = lexicon.lookup(word);
    if (form) {
      concepts.push({ alternatives: [{ term: form.term, weight: 1 }], weight: filler * roleWeight(form.curated) });
      heads.push(form.term);
      continue;
    }
    const reading = segmenter.segment(word);
    const confident =
      reading.unknownLetters === 0 &&
      reading.tokens.length > 0 &&
      reading.tokens.every((t) => t.kind !== 'word' || t.curated !== undefined || t.text.length >= 4);
    // A listed brandable spelt in full (zorbexa) is its own term.
    const alternativesOfWord: Alternative[] = known(word) ? [{ term: word, weight: 1 }] : [];
    if (confident && reading.tokens.length > 1) {
      for (const token of reading.tokens) concepts.push({ alternatives: [{ term: token.term, weight: 1 }], weight: token.kind === 'digits' ? 0.5 : roleWeight(token.curated) });
      for (const extra of reading.extras) concepts.push({ alternatives: [{ term: extra.term, weight: 1 }], weight: COLLOCATION * extra.weight });
      if (alternativesOfWord.length > 0) concepts.push({ alternatives: alternativesOfWord, weight: 1 });
      heads.push(undefined);
      continue;
    }
    const fuzzy = vocabulary.similar(word, FUZZY_LIMIT).map((m) => {
      const curated = lexicon.lookup(m.term)?.curated;
      const generic = curated !== undefined && curated.category === undefined;
      return { term: m.term, weight: m.similarity * (generic ? GENERIC_TYPO : 1) };
    });
    if (confident) {
      const token = reading.tokens[0];
      const alternatives = [...alternativesOfWord, ...(token ? [{ term: token.term, weight: 1 }] : []), ...fuzzy];
      concepts.push({ alternatives: dedupe(alternatives), weight: filler });
      heads.push(token?.term);
    } else if (fuzzy.length > 0 || alternativesOfWord.length > 0) {
      concepts.push({ alternatives: dedupe([...alternativesOfWord, ...fuzzy]), weight: filler });
      heads.push(undefined);
    } else {
      // Nothing listed is spelt like it: keep whatever words it reads as, less surely.
      for (const token of reading.tokens) {
        if (token.kind === 'word' && token.text.length >= 3) concepts.push({ alternatives: [{ term: token.term, weight: UNSURE_READING }], weight: 1 });
        else if (token.kind === 'unknown') concepts.push({ alternatives: [{ term: token.term, weight: STRAY_LETTERS }], weight: 0.5 });
      }
      heads.push(undefined);
    }
  }

  // Two query words that WordNet knows as one expression (coffee shop) also ask for it.
  for (let i = 1; i < heads.length; i++) {
    const a = heads[i - 1];
    const b = heads[i];
    if (a && b && wordnet.lemmas.has(`${a}_${b}`)) concepts.push({ alternatives: [{ term: `${a}_${b}`, weight: 1 }], weight: COLLOCATION });
  }

  const exactLabels = [...new Set([labelText, words.join('')])].filter((l) => /^[a-z0-9]+(-[a-z0-9]+)*$/.test(l));
  return { exactDomain: domainLike ? text : undefined, exactLabels, concepts };
}

/**
 * What the buyer is after is in the topical nouns: a generic word (shop, deals, studio) or a
 * describing one (fresh, organic) narrows the search without being its subject.
 */
function roleWeight(curated: WordInfo | undefined): number {
  if (!curated) return 1;
  if (curated.category === undefined) return GENERIC;
  return curated.role === 'adjective' ? DESCRIBING : 1;
}

function dedupe(alternatives: readonly Alternative[]): Alternative[] {
  const best = new Map<string, number>();
  for (const a of alternatives) best.set(a.term, Math.max(best.get(a.term) ?? 0, a.weight));
  return [...best].map(([term, weight]) => ({ term, weight }));
}
