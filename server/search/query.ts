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
  /** The word as typed, when it is an inflection of `term` (fireworks for firework). */
  surface?: string;
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
/** The parts of a whole word (smart and phone in smartphone) count this much beside it. */
const PART = 0.3;
const FILLER = 0.3;
const GENERIC = 0.5;
const DESCRIBING = 0.7;
const FILLERS = new Set([
  'a',
  'an',
  'the',
  'of',
  'for',
  'and',
  'or',
  'to',
  'in',
  'on',
  'at',
  'by',
  'with',
  'my',
  'your',
  'our',
  'best',
  'top',
  'buy',
  'domain',
  'domains',
  'com',
  'www',
]);

export function normaliseQuery(q: string): string {
  return q.normalize('NFKC').toLowerCase().trim();
}

interface Context {
  language: Language;
  vocabulary: FuzzyVocabulary;
  /** Whether the index holds the term (a brandable's full spelling, say). */
  known: (term: string) => boolean;
  /** How much a word like "best" or "the" counts here (less when other words say more). */
  filler: number;
}

interface Reading {
  concepts: Concept[];
  /** The word's own term when it is one word, for collocations with its neighbour. */
  head?: string;
}

const single = (term: string, weight: number, conceptWeight: number): Concept => ({
  alternatives: [{ term, weight }],
  weight: conceptWeight,
});

/** One word of the query, in the most likely of the readings described at the top. */
function readWord(word: string, { language, vocabulary, known, filler }: Context): Reading {
  const { lexicon, segmenter } = language;
  const fillerWeight = FILLERS.has(word) ? filler : 1;
  if (/^\d+$/.test(word)) return { concepts: [single(word, 1, 0.5)] };
  const form = lexicon.lookup(word);
  if (form) {
    const concept = single(form.term, 1, fillerWeight * roleWeight(form.curated));
    if (form.term !== word) for (const alt of concept.alternatives) alt.surface = word;
    return { concepts: [concept], head: form.term };
  }

  const reading = segmenter.segment(word);
  const confident =
    reading.unknownLetters === 0 &&
    reading.tokens.length > 0 &&
    reading.tokens.every((t) => t.kind !== 'word' || t.curated !== undefined || t.text.length >= 4);
  // A listed brandable spelt in full (zorbexa) is its own term.
  const asSpelt: Alternative[] = known(word) ? [{ term: word, weight: 1 }] : [];
  if (confident && reading.tokens.length > 1 && isWholeWord(word, language)) {
    // An English word in its own right that happens to split into words (smartphone is not
    // smart + phone): one concept, read by meaning; its parts stay as weak alternatives.
    return {
      concepts: [
        { alternatives: [{ term: word, weight: 1 }], weight: fillerWeight },
        ...reading.tokens.map((t) => single(t.term, 1, PART * roleWeight(t.curated))),
      ],
    };
  }
  if (confident && reading.tokens.length > 1) {
    // Words run together (coffeeshop, dogtreats): each is a concept of its own.
    return {
      concepts: [
        ...reading.tokens.map((t) => single(t.term, 1, t.kind === 'digits' ? 0.5 : roleWeight(t.curated))),
        ...reading.extras.map((e) => single(e.term, 1, COLLOCATION * e.weight)),
        ...(asSpelt.length > 0 ? [{ alternatives: asSpelt, weight: 1 }] : []),
      ],
    };
  }
  const fuzzy = vocabulary.similar(word, FUZZY_LIMIT).map((m) => {
    const curated = lexicon.lookup(m.term)?.curated;
    const generic = curated !== undefined && curated.category === undefined;
    return { term: m.term, weight: m.similarity * (generic ? GENERIC_TYPO : 1) };
  });
  const token = confident ? reading.tokens[0] : undefined;
  if (token || fuzzy.length > 0 || asSpelt.length > 0) {
    const alternatives = [...asSpelt, ...(token ? [{ term: token.term, weight: 1 }] : []), ...fuzzy];
    return {
      concepts: [{ alternatives: dedupe(alternatives), weight: fillerWeight }],
      ...(token ? { head: token.term } : {}),
    };
  }
  // Nothing listed is spelt like it: keep whatever words it reads as, less surely. A word read as
  // one known word and stray letters may be a word of its own that the lexicon lacks (moisturizer:
  // moisturize + r); it is kept beside that reading, as unsure, for meaning to place.
  const words = reading.tokens.filter((t) => t.kind === 'word' && t.text.length >= 3);
  const whole = words.length === 1 && words[0]?.term !== word ? [{ term: word, weight: UNSURE_READING }] : [];
  return {
    concepts: reading.tokens.flatMap((t) =>
      t.kind === 'word' && t.text.length >= 3
        ? [{ alternatives: [{ term: t.term, weight: UNSURE_READING }, ...whole], weight: 1 }]
        : t.kind === 'unknown'
          ? [single(t.term, STRAY_LETTERS, 0.5)]
          : [],
    ),
  };
}

export function parseQuery(
  q: string,
  language: Language,
  vocabulary: FuzzyVocabulary,
  known: (term: string) => boolean,
): ParsedQuery {
  const text = normaliseQuery(q)
    .replace(/^https?:\/\//, '')
    .replace(/^www\./, '');
  const domainLike = /^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(text);
  const labelText = domainLike ? text.slice(0, text.indexOf('.')) : text;
  const words = [...new Set(labelText.split(/[^a-z0-9]+/).filter((w) => w.length > 0))].slice(0, MAX_QUERY_WORDS);
  const context: Context = { language, vocabulary, known, filler: words.length > 1 ? FILLER : 1 };
  const readings = words.map((w) => readWord(w.slice(0, MAX_WORD_LENGTH), context));
  const concepts = readings.flatMap((r) => r.concepts);
  // Two query words that WordNet knows as one expression (coffee shop) also ask for it.
  for (let i = 1; i < readings.length; i++) {
    const pair = `${readings[i - 1]?.head}_${readings[i]?.head}`;
    if (readings[i - 1]?.head && readings[i]?.head && language.wordnet.lemmas.has(pair))
      concepts.push(single(pair, 1, COLLOCATION));
  }
  const exactLabels = [...new Set([labelText, words.join('')])].filter((l) => /^[a-z0-9]+(-[a-z0-9]+)*$/.test(l));
  return { exactDomain: domainLike ? text : undefined, exactLabels, concepts };
}

/**
 * Whether a word the lexicon lacks is still an English word as a whole: the embeddings list it
 * (words of WordNet and the commonest words of their corpus, less sandbox words), so its meaning
 * is its own rather than its parts' (smartphone, not smart + phone; coffeeshop is not listed).
 */
function isWholeWord(word: string, language: Language): boolean {
  return language.neighbours.of(word).length > 0;
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
