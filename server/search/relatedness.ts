// How close two words are in meaning, from WordNet alone. Each word becomes a sparse vector of
// what WordNet says about it — its senses, synonyms, the words of its definitions, its broader
// and narrower terms, its parts and topics — weighted by sense order and by how rare each
// feature is, plus the editorial category of the curated sandbox words. Two words are related as
// far as those vectors point the same way (cosine). This is the gloss-vector idea: espresso and
// latte share "coffee", "strong" and their hypernym; cafe and bistro share "restaurant".
import { LEXICON, type Category } from '../inventory/words.ts';
import { BoundedCache } from './bounded.ts';
import type { Lexicon } from './lexicon.ts';
import { SUPPLEMENT } from './supplement.ts';
import type { Pos, Synset, WordNet } from './wordnet.ts';

export interface Profile {
  /** Feature ids, ascending. */
  ids: Int32Array;
  /** Unit length. */
  weights: Float32Array;
}

export interface Relatedness {
  profile(term: string): Profile;
  /** Cosine of the two profiles, 0 to 1. */
  similarity(a: Profile, b: Profile): number;
}

const SELF = 1.5;
const SYNONYM = 0.8;
const SYNSET = 1;
const GLOSS = 0.5;
const HYPERNYM = 0.6;
const HYPERNYM_WORDS = 0.4;
const HYPERNYM_2 = 0.3;
const HYPONYM = 0.3;
const HYPONYM_WORDS = 0.25;
const MAX_HYPONYMS = 12;
const PART = 0.4;
const PART_WORDS = 0.3;
const RELATED = 0.5;
const RELATED_WORDS = 0.4;
const DERIVED_WORDS = 0.3;
const CATEGORY = 0.7;
const SENSE_DECAY = 0.65;
const MAX_GLOSS_WORDS = 16;
/** Names and what buyers type are mostly nouns: couch is a sofa before it is a way of wording. */
const POS_WEIGHT: Record<Pos, number> = { n: 1, v: 0.5, a: 0.8, r: 0.3 };
/** Profiles kept: every indexed word of a large live inventory, and the recent query words. */
const PROFILE_CACHE = 200_000;

/** Words too common in definitions to say anything about the word defined. */
export const STOPWORDS: ReadonlySet<string> = new Set(
  (
    'the and for that with from this which who whom whose what when where while are was were been being have has had ' +
    'not but its their them they there than then into onto upon over under out off about above below such some any ' +
    'each every other another more most less least many much very can could may might must shall should will would ' +
    'also often usually especially esp etc one two three used use using make made makes something someone somebody ' +
    'thing things kind kinds type types form forms way ways part parts act acts relating related characteristic ' +
    'consisting consists having small large various certain given being person people especially typically ' +
    'general generally particular particularly sometimes either neither both same own just only like made ' +
    'found called known give gives given take takes taken become becomes usual within without whether'
  ).split(' '),
);

const PART_SYMBOLS = new Set(['#m', '#s', '#p', '%m', '%s', '%p']);
const RELATED_SYMBOLS = new Set([';c', '-c', ';r', '-r', '&', '^', '=', '\\']);

export function createRelatedness(wordnet: WordNet, lexicon: Lexicon): Relatedness {
  const featureIds = new Map<string, number>();
  const featureId = (name: string): number => {
    let id = featureIds.get(name);
    if (id === undefined) {
      id = featureIds.size;
      featureIds.set(name, id);
    }
    return id;
  };

  const categoryOfTerm = new Map<string, Category>();
  for (const info of LEXICON.values()) {
    if (info.category) categoryOfTerm.set(lexicon.termOf(info.word), info.category);
  }

  const glossWords = (gloss: string): string[] => {
    const words: string[] = [];
    for (const raw of gloss.toLowerCase().split(/[^a-z]+/)) {
      if (raw.length < 3 || STOPWORDS.has(raw)) continue;
      const term = lexicon.termOf(raw);
      if (STOPWORDS.has(term) || !wordnet.lemmas.has(term)) continue;
      words.push(term);
      if (words.length >= MAX_GLOSS_WORDS) break;
    }
    return words;
  };

  const rawProfile = (term: string): Map<string, number> => {
    const raw = new Map<string, number>();
    const add = (feature: string, weight: number) => raw.set(feature, (raw.get(feature) ?? 0) + weight);
    const addWords = (words: readonly string[], weight: number) => {
      for (const w of words) {
        add(`w:${w}`, weight);
        // A collocation also speaks for its words (coffee_bar → coffee, bar), at half weight.
        if (w.includes('_'))
          for (const piece of w.split('_'))
            if (piece.length >= 3 && !STOPWORDS.has(piece)) add(`w:${lexicon.termOf(piece)}`, weight / 2);
      }
    };
    add(`w:${term}`, SELF);
    const category = categoryOfTerm.get(term);
    if (category) add(`c:${category}`, CATEGORY);

    const senses: { synset: Synset; weight: number }[] = [];
    for (const entry of wordnet.lemmas.get(term) ?? []) {
      entry.offsets.forEach((offset, rank) => {
        // How often the sense was seen decides first (dog the animal, not dog the andiron); the
        // order WordNet gives breaks the many ties of senses never seen.
        const seen = 1 + wordnet.senseTagCount(term, entry.pos, offset);
        senses.push({
          synset: wordnet.synset(entry.pos, offset),
          weight: POS_WEIGHT[entry.pos] * seen * SENSE_DECAY ** rank,
        });
      });
    }
    const supplement = SUPPLEMENT[term];
    if (supplement) {
      addWords(glossWords(supplement.gloss), GLOSS);
      for (const near of supplement.near) {
        addWords([near], SYNONYM);
        for (const entry of wordnet.lemmas.get(near) ?? []) {
          const offset = entry.offsets[0];
          if (offset !== undefined)
            senses.push({ synset: wordnet.synset(entry.pos, offset), weight: 0.5 * POS_WEIGHT[entry.pos] });
        }
      }
    }
    // Each word gets the same total say however many senses it has.
    const total = senses.reduce((sum, s) => sum + s.weight, 0);
    for (const { synset, weight: raw } of senses) {
      const w = raw / total;
      add(`s:${synset.pos}${synset.offset}`, SYNSET * w);
      addWords(synset.words, SYNONYM * w);
      addWords(glossWords(synset.gloss), GLOSS * w);
      let hyponyms = 0;
      for (const p of synset.pointers) {
        const target = () => wordnet.synset(p.pos, p.offset);
        if (p.symbol === '@' || p.symbol === '@i') {
          const h = target();
          add(`s:${h.pos}${h.offset}`, HYPERNYM * w);
          addWords(h.words, HYPERNYM_WORDS * w);
          for (const q of h.pointers)
            if (q.symbol === '@' || q.symbol === '@i') add(`s:${q.pos}${q.offset}`, HYPERNYM_2 * w);
        } else if ((p.symbol === '~' || p.symbol === '~i') && hyponyms < MAX_HYPONYMS) {
          hyponyms++;
          const h = target();
          add(`s:${h.pos}${h.offset}`, HYPONYM * w);
          addWords(h.words, HYPONYM_WORDS * w);
        } else if (PART_SYMBOLS.has(p.symbol)) {
          const t = target();
          add(`s:${t.pos}${t.offset}`, PART * w);
          addWords(t.words, PART_WORDS * w);
        } else if (RELATED_SYMBOLS.has(p.symbol)) {
          const t = target();
          add(`s:${t.pos}${t.offset}`, RELATED * w);
          addWords(t.words, RELATED_WORDS * w);
        } else if (p.symbol === '+') {
          addWords(target().words, DERIVED_WORDS * w);
        }
      }
    }
    return raw;
  };

  // Rarity is measured once, over the curated vocabulary, so a word's profile never depends on
  // what else happens to be listed: the same query means the same thing in every inventory.
  let idf: Map<string, number> | undefined;
  let referenceSize = 1;
  const idfOf = (feature: string): number => {
    if (!idf) {
      idf = new Map();
      const df = new Map<string, number>();
      const terms = new Set([...LEXICON.keys()].map((w) => lexicon.termOf(w)));
      referenceSize = terms.size;
      for (const t of terms) for (const f of rawProfile(t).keys()) df.set(f, (df.get(f) ?? 0) + 1);
      for (const [f, n] of df) idf.set(f, Math.log(1 + referenceSize / n));
    }
    return idf.get(feature) ?? Math.log(1 + referenceSize);
  };

  const cache = new BoundedCache<string, Profile>(PROFILE_CACHE);
  return {
    profile(term) {
      const cached = cache.get(term);
      if (cached) return cached;
      const entries = [...rawProfile(term)]
        .map(([f, w]) => [featureId(f), w * idfOf(f)] as const)
        .sort((a, b) => a[0] - b[0]);
      const norm = Math.sqrt(entries.reduce((sum, [, w]) => sum + w * w, 0)) || 1;
      const profile: Profile = {
        ids: Int32Array.from(entries, ([id]) => id),
        weights: Float32Array.from(entries, ([, w]) => w / norm),
      };
      cache.set(term, profile);
      return profile;
    },
    similarity(a, b) {
      let i = 0;
      let j = 0;
      let dot = 0;
      while (i < a.ids.length && j < b.ids.length) {
        const x = a.ids[i] ?? 0;
        const y = b.ids[j] ?? 0;
        if (x === y) dot += (a.weights[i++] ?? 0) * (b.weights[j++] ?? 0);
        else if (x < y) i++;
        else j++;
      }
      return Math.min(1, Math.max(0, dot));
    },
  };
}
