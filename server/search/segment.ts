// Splits a label (or a query word) into words by the cheapest reading under the lexicon's costs:
// bestcoffeebeans → best / coffee / beans, northwindsailing → north / wind / sailing. Beyond the
// words read, it names two kinds of extra terms: the parts of a compound when WordNet says the
// compound is about a part (sailboat → boat, lighthouse → light, but never carpet → car), and
// the collocation two neighbours form (coffee + shop → coffee_shop).
import type { WordInfo } from '../inventory/words.ts';
import type { Form, Lexicon } from './lexicon.ts';
import { BoundedCache } from './bounded.ts';
import type { WordNet } from './wordnet.ts';

export type TokenKind = 'word' | 'digits' | 'unknown';

export interface Token {
  text: string;
  /** What the token is indexed and matched under. */
  term: string;
  kind: TokenKind;
  curated?: WordInfo;
}

export interface ExtraTerm {
  term: string;
  /** Relative to a word of the label (1). */
  weight: number;
}

export interface Segmentation {
  /** In label order; single leftover letters are dropped. */
  tokens: Token[];
  extras: ExtraTerm[];
  /** Letters no word covered, a sign of a made-up or misspelt name. */
  unknownLetters: number;
}

const DIGITS_COST = 1;
// A letter no word explains costs more than any word, so a covering by words always wins.
const UNKNOWN_LETTER_COST = 2;
const COMPOUND_MIN_LENGTH = 6;
const PART_MIN_LENGTH = 3;
const PART_WEIGHT = 0.5;
const COLLOCATION_WEIGHT = 1;

const UNKNOWN = -1;
const DIGITS = -2;

/** A stretch no word covers becomes one token (single stray letters are only counted). */
function flushUnknown(part: string, start: number, end: number, into: Token[]): number {
  const text = part.slice(start, end);
  if (text.length > 1) into.push({ text, term: text, kind: 'unknown' });
  return text.length;
}

export interface Segmenter {
  segment(text: string): Segmentation;
}

export function createSegmenter(lexicon: Lexicon, wordnet: WordNet): Segmenter {
  const partsCache = new BoundedCache<string, string[]>(100_000);

  /** Words WordNet uses to describe `lemma`: its synonyms, gloss and hypernyms, first two senses. */
  const describedBy = (lemma: string): Set<string> => {
    const words = new Set<string>();
    for (const senses of wordnet.lemmas.get(lemma) ?? []) {
      for (const offset of senses.offsets.slice(0, 2)) {
        const synset = wordnet.synset(senses.pos, offset);
        for (const w of synset.words) for (const piece of w.split('_')) words.add(lexicon.termOf(piece));
        for (const w of synset.gloss.toLowerCase().split(/[^a-z]+/))
          if (w.length >= PART_MIN_LENGTH) words.add(lexicon.termOf(w));
        for (const pointer of synset.pointers) {
          if (pointer.symbol !== '@') continue;
          for (const w of wordnet.synset(pointer.pos, pointer.offset).words)
            for (const piece of w.split('_')) words.add(lexicon.termOf(piece));
        }
      }
    }
    return words;
  };

  /** The two-word reading of a compound, kept only where it tells what the compound is about. */
  const compoundParts = (word: string, term: string): string[] => {
    const cached = partsCache.get(word);
    if (cached) return cached;
    let best: { cost: number; parts: [Form, Form] } | undefined;
    for (let cut = PART_MIN_LENGTH; cut <= word.length - PART_MIN_LENGTH; cut++) {
      const left = lexicon.lookup(word.slice(0, cut));
      const right = lexicon.lookup(word.slice(cut));
      if (!left || !right) continue;
      const cost = left.cost + right.cost;
      if (!best || cost < best.cost) best = { cost, parts: [left, right] };
    }
    let parts: string[] = [];
    if (best) {
      const candidates = best.parts.map((p) => p.term);
      // A compound WordNet does not know is read as its parts (carwash, skincare); one it knows
      // keeps only the parts its entry mentions (sailboat → sail, but carpet → neither).
      parts = wordnet.lemmas.has(term) ? candidates.filter((p) => describedBy(term).has(p)) : candidates;
    }
    partsCache.set(word, parts);
    return parts;
  };

  // The dynamic programme's tables, reused from call to call (grown for a longer word).
  let cost = new Float64Array(64);
  let from = new Int32Array(64);
  let formOf = new Int32Array(64);

  /** The cheapest reading of one run of letters and digits; returns how many letters stay unread. */
  const segmentPart = (part: string, tokens: Token[]): number => {
    const n = part.length;
    if (cost.length <= n) {
      cost = new Float64Array(2 * n + 2);
      from = new Int32Array(2 * n + 2);
      formOf = new Int32Array(2 * n + 2);
    }
    cost.fill(Number.POSITIVE_INFINITY, 0, n + 1);
    cost[0] = 0;
    for (let i = 0; i < n; i++) {
      const base = cost[i] ?? Number.POSITIVE_INFINITY;
      if (base === Number.POSITIVE_INFINITY) continue;
      const code = part.charCodeAt(i);
      if (code >= 48 && code <= 57) {
        let end = i + 1;
        while (end < n && part.charCodeAt(end) >= 48 && part.charCodeAt(end) <= 57) end++;
        if (base + DIGITS_COST < (cost[end] ?? Number.POSITIVE_INFINITY)) {
          cost[end] = base + DIGITS_COST;
          from[end] = i;
          formOf[end] = DIGITS;
        }
        continue;
      }
      // Strict improvements only, scanning starts left to right: a tie keeps the longer last word.
      for (let node = 0, j = i; j < n; j++) {
        node = lexicon.next(node, part.charCodeAt(j));
        if (node < 0) break;
        const id = lexicon.formAt(node);
        if (id < 0) continue;
        const c = base + (lexicon.forms[id]?.cost ?? Number.POSITIVE_INFINITY);
        if (c < (cost[j + 1] ?? Number.POSITIVE_INFINITY)) {
          cost[j + 1] = c;
          from[j + 1] = i;
          formOf[j + 1] = id;
        }
      }
      if (base + UNKNOWN_LETTER_COST < (cost[i + 1] ?? Number.POSITIVE_INFINITY)) {
        cost[i + 1] = base + UNKNOWN_LETTER_COST;
        from[i + 1] = i;
        formOf[i + 1] = UNKNOWN;
      }
    }
    const reversed: Token[] = [];
    let unknown = 0;
    let unknownEnd = -1;
    let end = n;
    while (end > 0) {
      const start = from[end] ?? end - 1;
      const id = formOf[end] ?? UNKNOWN;
      if (id === UNKNOWN) {
        if (unknownEnd < 0) unknownEnd = end;
      } else {
        if (unknownEnd >= 0) unknown += flushUnknown(part, end, unknownEnd, reversed);
        unknownEnd = -1;
        const text = part.slice(start, end);
        const form = id === DIGITS ? undefined : lexicon.forms[id];
        if (form)
          reversed.push({ text, term: form.term, kind: 'word', ...(form.curated ? { curated: form.curated } : {}) });
        else reversed.push({ text, term: text, kind: 'digits' });
      }
      end = start;
    }
    if (unknownEnd >= 0) unknown += flushUnknown(part, 0, unknownEnd, reversed);
    tokens.push(...reversed.reverse());
    return unknown;
  };

  return {
    segment(text) {
      const tokens: Token[] = [];
      let unknownLetters = 0;
      // Punycode labels are other scripts; an English word list cannot read them.
      const lower = text.toLowerCase();
      if (!lower.startsWith('xn--')) {
        for (const part of lower.split(/[^a-z0-9]+/)) if (part) unknownLetters += segmentPart(part, tokens);
      }
      const extras: ExtraTerm[] = [];
      const seen = new Set(tokens.map((t) => t.term));
      const addExtra = (term: string, weight: number) => {
        if (seen.has(term)) return;
        seen.add(term);
        extras.push({ term, weight });
      };
      for (const token of tokens) {
        if (token.kind === 'word' && token.text.length >= COMPOUND_MIN_LENGTH) {
          for (const p of compoundParts(token.text, token.term)) addExtra(p, PART_WEIGHT);
        }
      }
      for (let i = 1; i < tokens.length; i++) {
        const a = tokens[i - 1];
        const b = tokens[i];
        if (a?.kind !== 'word' || b?.kind !== 'word') continue;
        for (const pair of [`${a.text}_${b.text}`, `${a.term}_${b.term}`]) {
          if (wordnet.lemmas.has(pair)) {
            addExtra(pair, COLLOCATION_WEIGHT);
            break;
          }
        }
      }
      return { tokens, extras, unknownLetters };
    },
  };
}
