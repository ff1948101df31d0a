// Where a word outside the sandbox vocabulary leads in WordNet: a short, bounded walk from its
// senses along hypernyms (what it is a kind of), a few hyponyms, derivations (sightseeing →
// sightsee → sightseer, a kind of tourist), topic domains, parts and wholes, and the rarer words
// of its definitions (a brewery is "a plant where beer is brewed"), crediting every curated
// sandbox word it meets by how directly it was reached. The curated words are organised in
// categories already (server/inventory/words.ts), so the credits also say which topic of the
// inventory the word belongs to: vineyard leads to wine (food and drink) more than to vintage
// (fashion, in the sandbox's sense).
import { LEXICON, type Category } from '../inventory/words.ts';
import { BoundedCache } from './bounded.ts';
import type { Lexicon } from './lexicon.ts';
import { STOPWORDS as GLOSS_STOPWORDS } from './relatedness.ts';
import type { Pos, Synset, WordNet } from './wordnet.ts';

export interface Walk {
  /** Curated terms reached, with their credit (the largest is 1). */
  terms: ReadonlyMap<string, number>;
  /**
   * Curated terms of the same word family (dentist → dental, pianist → piano, journalism →
   * journal) or that head a compound (textbook → book), by how much of the word they share.
   */
  relatives: ReadonlyMap<string, number>;
  /** Share of the credit per category (they sum to 1); empty when the walk met nothing curated. */
  categories: ReadonlyMap<Category, number>;
}

export interface Walker {
  walk(term: string): Walk;
  /** The category of a curated term, if any. */
  categoryOf(term: string): Category | undefined;
}

/** Steps a walk takes at most from the word's own senses. */
const DEPTH = 3;
/** Each step keeps this share of what reached it, times the step's own weight below. */
const STEP: Readonly<Record<string, number>> = {
  '@': 0.7, // hypernym: a sonata is music
  '@i': 0.7,
  '~': 0.5, // hyponym: food → bread (spread over the hyponyms)
  '~i': 0.4,
  '+': 0.6, // derivation: sightseeing → sightsee
  ';c': 0.6, // topic domain: meditation → religion
  '-c': 0.3,
  '\\': 0.8, // pertainym: culinary → cuisine
  '&': 0.6, // similar adjective
  '=': 0.5, // attribute
  '#m': 0.5, // member, substance and part holonyms and meronyms
  '#s': 0.4,
  '#p': 0.5,
  '%m': 0.4,
  '%s': 0.4,
  '%p': 0.4,
};
/** How many levels below a reached synset its curated kinds are looked for. */
const DESCENT = 3;
/** What the curated kinds of a reached synset share (over the root of their number). */
const KINDS = 1;
const KIND_DECAY = 0.6;
/** A definition word leads to its own first senses at this weight (before its rarity). */
const GLOSS = 0.6;
/** A curated word met in a definition is credited this much (before its rarity). */
const GLOSS_CREDIT = 0.8;
/** Definition words and hyponyms followed per synset. */
const MAX_GLOSS_WORDS = 10;
const MAX_HYPONYMS = 24;
/** Synsets expanded per walk at most: keeps a cold query word at a few milliseconds. */
const MAX_SYNSETS = 150;
/** Mass below which a path is not followed further. */
const MIN_MASS = 0.01;
const SENSE_DECAY = 0.65;
const POS_WEIGHT: Record<Pos, number> = { n: 1, v: 0.5, a: 0.8, r: 0.3 };
const WALK_CACHE = 20_000;
/** What the synsets whose definitions use a word WordNet lacks share, and how many are followed. */
const MENTIONS = 1;
const MAX_MENTIONS = 8;

/** The definition words relatedness.ts skips, and the words of kinds too broad to place a word by. */
const STOPWORDS = new Set([
  ...GLOSS_STOPWORDS,
  ...(
    'place places activity process state quality condition practice manner group member set relation deal deals ' +
    'dealing see body property system list field area matter sort branch range number series amount unit piece item ' +
    'object means purpose'
  ).split(' '),
]);

/**
 * How telling a definition word is: the rarer in WordNet's tagged corpus, the more (beer says more
 * than plant). A corpus-frequency stand-in for IDF over the definitions.
 */
function rarity(tagCount: number): number {
  return 1 / (1 + Math.log1p(tagCount) / 4);
}

/** Derivational endings, longest first: what separates dentist and dental from "dent". */
const ENDINGS = [
  'ation',
  'ition',
  'ship',
  'ment',
  'ance',
  'ence',
  'ical',
  'ism',
  'ist',
  'ian',
  'ics',
  'ity',
  'ion',
  'ery',
  'ing',
  'ure',
  'ant',
  'ent',
  'al',
  'ic',
  'er',
  'or',
  'ry',
  'y',
  'e',
  'o',
  's',
];

export function stem(word: string): string {
  for (const ending of ENDINGS)
    if (word.length - ending.length >= 3 && word.endsWith(ending)) return word.slice(0, -ending.length);
  return word;
}

/**
 * How closely two words are of one family, 0 (not) to 1: the same stem (dentist, dental), one
 * stem extending the other (blogger, blog; dealership, dealer), or a compound of the word and
 * another word (textbook is a book: its head; wildlife is about the wild: its modifier).
 */
export function kinship(
  query: string,
  word: string,
  isWord: (text: string) => boolean,
  queryStem = stem(query),
  wordStem = stem(word),
): number {
  if (query === word || word.length < 3) return 0;
  const a = queryStem;
  const b = wordStem;
  if (a === b && a.length >= 4) return 1;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  const doubled = long.length === short.length + 1 && long.endsWith(short.at(-1) ?? '');
  if (short.length >= 4 && long.startsWith(short) && (short.length >= 5 || doubled)) return 0.9;
  if (word.length >= 5 && query.startsWith(word)) return 0.9;
  // Both halves of a compound must be real words of some length: carpet is not car + pet.
  if (
    word.length >= 4 &&
    query.length >= word.length + 3 &&
    query.endsWith(word) &&
    isWord(query.slice(0, -word.length))
  )
    return 0.8;
  if (word.length >= 4 && query.length >= word.length + 4 && query.startsWith(word) && isWord(query.slice(word.length)))
    return 0.6;
  return 0;
}

export function createWalker(wordnet: WordNet, lexicon: Lexicon): Walker {
  const categoryOfTerm = new Map<string, Category>();
  for (const info of LEXICON.values()) {
    if (info.category) categoryOfTerm.set(lexicon.termOf(info.word), info.category);
  }
  const curatedStems = [...categoryOfTerm.keys()].map((term) => [term, stem(term)] as const);
  const curated = (word: string): string | undefined => {
    const term = lexicon.termOf(word);
    return categoryOfTerm.has(term) ? term : undefined;
  };

  // Below which synsets each curated word sits: its senses' hypernym ancestors, a few levels up,
  // so a walk that reaches "food" or "vehicle" knows bread and pizza, car and truck are kinds of it.
  const below = new Map<string, { term: string; depth: number }[]>();
  for (const term of categoryOfTerm.keys()) {
    for (const entry of wordnet.lemmas.get(term) ?? []) {
      if (entry.pos !== 'n') continue;
      for (const offset of entry.offsets.slice(0, 2)) {
        let level: Synset[] = [wordnet.synset('n', offset)];
        const visited = new Set<number>();
        for (let depth = 1; depth <= DESCENT && level.length > 0; depth++) {
          const up: Synset[] = [];
          for (const s of level) {
            for (const p of s.pointers) {
              if ((p.symbol !== '@' && p.symbol !== '@i') || visited.has(p.offset)) continue;
              visited.add(p.offset);
              const k = `n${p.offset}`;
              let list = below.get(k);
              if (!list) below.set(k, (list = []));
              if (!list.some((x) => x.term === term)) list.push({ term, depth });
              up.push(wordnet.synset('n', p.offset));
            }
          }
          level = up;
        }
      }
    }
  }

  const senses = (lemma: string, limit: number): { synset: Synset; weight: number }[] => {
    const found: { synset: Synset; weight: number }[] = [];
    for (const entry of wordnet.lemmas.get(lemma) ?? []) {
      entry.offsets.slice(0, limit).forEach((offset, rank) => {
        const seen = 1 + wordnet.senseTagCount(lemma, entry.pos, offset);
        found.push({
          synset: wordnet.synset(entry.pos, offset),
          weight: POS_WEIGHT[entry.pos] * seen * SENSE_DECAY ** rank,
        });
      });
    }
    const total = found.reduce((sum, s) => sum + s.weight, 0) || 1;
    return found.map((s) => ({ synset: s.synset, weight: s.weight / total }));
  };

  /**
   * The WordNet lemmas a word can stand for when it is not one itself: an agent noun's verb
   * (moisturizer → moisturize), or the words of a compound (smartphone → smart, phone).
   */
  const startingPoints = (word: string): string[] => {
    if (wordnet.lemmas.has(word)) return [word];
    for (const [suffix, ending] of [
      ['izer', 'ize'],
      ['iser', 'ise'],
      ['er', 'e'],
      ['er', ''],
      ['or', 'e'],
      ['or', ''],
      ['ist', ''],
      ['ist', 'y'],
      ['ics', 'ic'],
    ] as const) {
      if (word.length > suffix.length + 3 && word.endsWith(suffix)) {
        const base = word.slice(0, -suffix.length) + ending;
        if (wordnet.lemmas.has(base)) return [base];
      }
    }
    for (let i = word.length - 3; i >= 3; i--) {
      const head = lexicon.termOf(word.slice(i));
      const modifier = lexicon.termOf(word.slice(0, i));
      if (wordnet.lemmas.has(head) && wordnet.lemmas.has(modifier)) return [head, modifier];
    }
    return [];
  };

  const walk = (word: string): Walk => {
    const starts = startingPoints(word);
    const credit = new Map<string, number>();
    const votes = new Map<Category, number>();
    /** Credits the curated words among `reached`; together they cast one topic vote of `amount`. */
    const give = (reached: readonly string[], amount: number) => {
      // Only whole words: the pieces of a collocation mislead (culinary_art is not art).
      const terms = [...new Set(reached.map(curated))].filter((t): t is string => t !== undefined && t !== word);
      for (const term of terms) {
        credit.set(term, (credit.get(term) ?? 0) + amount);
        // A synset with several curated words (business, job) is still one piece of evidence.
        const category = categoryOfTerm.get(term);
        if (category) votes.set(category, (votes.get(category) ?? 0) + amount / terms.length);
      }
    };
    const key = (s: Synset) => `${s.pos}${s.offset}`;
    let frontier = new Map<string, { synset: Synset; mass: number }>();
    const push = (next: Map<string, { synset: Synset; mass: number }>, synset: Synset, mass: number) => {
      if (mass < MIN_MASS) return;
      const k = key(synset);
      const old = next.get(k);
      if (!old) next.set(k, { synset, mass });
      else old.mass = Math.max(old.mass, mass);
    };
    // A compound is mostly its head (a smartphone is a phone).
    starts.forEach((lemma, i) => {
      if (lemma !== word) give([lemma], i === 0 ? 1 : 0.3);
      for (const { synset, weight } of senses(lemma, 6)) push(frontier, synset, weight * (i === 0 ? 1 : 0.3));
    });
    // A word WordNet uses in definitions without listing it is also what those synsets are
    // (moisturizer: cream, "... a soothing and moisturizing effect when applied to the skin"),
    // as much as what its base form is. Only words of its stem count: selfie is not selfish.
    if (!wordnet.lemmas.has(word)) {
      const prefix = stem(word);
      const mentions =
        prefix.length >= 5 ? wordnet.definedWith(prefix, MAX_MENTIONS, (used) => stem(used) === prefix) : [];
      for (const synset of mentions) push(frontier, synset, MENTIONS / mentions.length);
    }
    const seen = new Set<string>();
    let expanded = 0;
    for (let depth = 0; depth <= DEPTH && frontier.size > 0; depth++) {
      const next = new Map<string, { synset: Synset; mass: number }>();
      const ordered = [...frontier.values()].sort((a, b) => b.mass - a.mass);
      for (const { synset, mass } of ordered) {
        const k = key(synset);
        if (seen.has(k) || expanded >= MAX_SYNSETS) continue;
        seen.add(k);
        expanded++;
        give(synset.words, mass);
        // The curated kinds of what was reached vote too, the more specific the synset the more
        // each (food: bread, pizza, … ; music genre: jazz, blues, rock, opera).
        const kinds = below.get(key(synset));
        if (kinds && kinds.length > 0) {
          const share = (mass * KINDS) / Math.sqrt(kinds.length);
          for (const { term, depth: d } of kinds) give([term], share * KIND_DECAY ** (d - 1));
        }
        if (depth === DEPTH) continue;
        // The head of a definition is usually the hypernym, already followed: the rest is what
        // sets the word apart (the beer of a brewery, the wine of a vineyard).
        const hypernymWords = new Set<string>();
        for (const p of synset.pointers)
          if (p.symbol === '@' || p.symbol === '@i')
            for (const w of wordnet.synset(p.pos, p.offset).words) hypernymWords.add(w);
        let glossWords = 0;
        for (const raw of synset.gloss.toLowerCase().split(/[^a-z]+/)) {
          if (raw.length < 3 || STOPWORDS.has(raw) || hypernymWords.has(raw)) continue;
          const term = lexicon.termOf(raw);
          if (STOPWORDS.has(term) || !wordnet.lemmas.has(term) || hypernymWords.has(term)) continue;
          if (++glossWords > MAX_GLOSS_WORDS) break;
          const weight = rarity(wordnet.tagCount(term));
          give([term], mass * GLOSS_CREDIT * weight);
          for (const s of senses(term, 2)) push(next, s.synset, mass * GLOSS * weight * s.weight);
        }
        // Beyond the word's own senses only "is a kind of" is followed: the parts and kinds of a
        // building say nothing about a restaurant, its own kinds (bistro, diner) do.
        let hyponyms = 0;
        for (const p of synset.pointers) {
          const step = STEP[p.symbol];
          if (step === undefined) continue;
          const isHypernym = p.symbol === '@' || p.symbol === '@i';
          if (depth > 0 && !isHypernym && p.symbol !== '+') continue;
          if ((p.symbol === '~' || p.symbol === '~i') && ++hyponyms > MAX_HYPONYMS) continue;
          push(next, wordnet.synset(p.pos, p.offset), mass * step);
        }
      }
      frontier = next;
    }
    const max = Math.max(0, ...credit.values());
    const terms = new Map<string, number>();
    for (const [term, value] of credit) terms.set(term, value / max);
    const total = [...votes.values()].reduce((a, b) => a + b, 0);
    const categories = new Map<Category, number>([...votes].map(([c, v]) => [c, v / total]));
    const relatives = new Map<string, number>();
    const wordStem = stem(word);
    for (const [term, termStem] of curatedStems) {
      const k = kinship(word, term, (text) => wordnet.lemmas.has(text), wordStem, termStem);
      if (k > 0) relatives.set(term, k);
    }
    return { terms, relatives, categories };
  };

  const cache = new BoundedCache<string, Walk>(WALK_CACHE);
  return {
    walk(term) {
      let found = cache.get(term);
      if (!found) {
        found = walk(term);
        cache.set(term, found);
      }
      return found;
    },
    categoryOf: (term) => categoryOfTerm.get(term),
  };
}
