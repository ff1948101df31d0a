// The word list names are segmented with: the curated sandbox vocabulary, every single-word
// WordNet lemma and the regular inflections of its nouns and verbs, each with a cost (the lower,
// the likelier a reader sees that word in a run of letters), in a character trie so a label is
// segmented without building substrings.
import { LEXICON, type WordInfo } from '../inventory/words.ts';
import { BoundedCache } from './bounded.ts';
import type { WordNet } from './wordnet.ts';

export interface Form {
  /** The spelling as it appears in a name. */
  text: string;
  /** The lemma it is indexed and compared under (beans → bean, weddings → wedding). */
  term: string;
  cost: number;
  /** Present for the curated sandbox vocabulary. */
  curated?: WordInfo;
}

/** A curated word is what the sandbox names are made of, so it is always the likeliest reading. */
export const CURATED_COST = 1;
const WORDNET_BASE_COST = 1.15;
const RARITY_COST = 0.6;
const INFLECTION_COST = 0.1;
// Three-letter WordNet entries are mostly abbreviations and rare words (ess, ava, ers); they
// should only win when nothing longer fits.
const SHORT_COST: Readonly<Record<number, number>> = { 2: 0.6, 3: 0.25 };
/** Two-letter words worth reading inside a name; WordNet's others are abbreviations. */
const TWO_LETTER = new Set(['go', 'my', 'up', 'me', 'we', 'us', 'on', 'in', 'ox', 'ax', 'hi', 'ok']);

function pluralOf(word: string): string {
  if (/(s|x|z|ch|sh)$/.test(word)) return `${word}es`;
  if (/[^aeiou]y$/.test(word)) return `${word.slice(0, -1)}ies`;
  return `${word}s`;
}

function verbForms(word: string): string[] {
  const forms = [pluralOf(word)];
  if (word.endsWith('e')) forms.push(`${word}d`, word.endsWith('ee') ? `${word}ing` : `${word.slice(0, -1)}ing`);
  else if (/[^aeiou]y$/.test(word)) forms.push(`${word.slice(0, -1)}ied`, `${word}ing`);
  // One-syllable verbs ending consonant-vowel-consonant double it (wed → wedding, shop → shopped);
  // a wrong form here would make a misspelling read as a word.
  else if (/^[^aeiou]*[aeiou][bdgklmnprt]$/.test(word))
    forms.push(`${word}${word.at(-1)}ed`, `${word}${word.at(-1)}ing`);
  else forms.push(`${word}ed`, `${word}ing`);
  return forms;
}

/** Character trie over a-z and 0-9 in flat typed arrays: first child, next sibling, label, form. */
class Trie {
  private firstChild: Int32Array;
  private nextSibling: Int32Array;
  private chars: Uint8Array;
  private forms: Int32Array;
  private size = 1;

  constructor(capacity: number) {
    this.firstChild = new Int32Array(capacity).fill(-1);
    this.nextSibling = new Int32Array(capacity).fill(-1);
    this.chars = new Uint8Array(capacity);
    this.forms = new Int32Array(capacity).fill(-1);
  }

  /** The root's children by character code: the first step of every walk is one array read. */
  private rootChildren = new Int32Array(128).fill(-1);

  child(node: number, code: number): number {
    if (node === 0) return code < 128 ? (this.rootChildren[code] ?? -1) : -1;
    for (let c = this.firstChild[node] ?? -1; c >= 0; c = this.nextSibling[c] ?? -1) {
      if (this.chars[c] === code) return c;
    }
    return -1;
  }

  form(node: number): number {
    return this.forms[node] ?? -1;
  }

  insert(text: string, formId: number): void {
    let node = 0;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      let next = this.child(node, code);
      if (next < 0) {
        if (this.size === this.chars.length) this.grow();
        next = this.size++;
        this.chars[next] = code;
        this.nextSibling[next] = this.firstChild[node] ?? -1;
        this.firstChild[node] = next;
        if (node === 0 && code < 128) this.rootChildren[code] = next;
      }
      node = next;
    }
    this.forms[node] = formId;
  }

  private grow(): void {
    const capacity = this.chars.length * 2;
    const grown = (from: Int32Array) => {
      const to = new Int32Array(capacity).fill(-1);
      to.set(from);
      return to;
    };
    this.firstChild = grown(this.firstChild);
    this.nextSibling = grown(this.nextSibling);
    this.forms = grown(this.forms);
    const chars = new Uint8Array(capacity);
    chars.set(this.chars);
    this.chars = chars;
  }
}

export interface Lexicon {
  readonly forms: readonly Form[];
  lookup(text: string): Form | undefined;
  /** The canonical term of any word, known or not (unknown words are their own term). */
  termOf(word: string): string;
  /** The longest form length, so callers can bound their scans. */
  readonly longest: number;
  /** Trie step: the node reached from `node` (0 is the root) by the character `code`, or -1. */
  next(node: number, code: number): number;
  /** The id (index in `forms`) of the form spelt by the path to `node`, or -1. */
  formAt(node: number): number;
}

export function buildLexicon(wordnet: WordNet): Lexicon {
  const forms: Form[] = [];
  const byText = new Map<string, number>();
  const put = (form: Form) => {
    const existing = byText.get(form.text);
    if (existing !== undefined) {
      const old = forms[existing];
      if (old && (old.curated || old.cost <= form.cost)) return;
      forms[existing] = form;
      return;
    }
    byText.set(form.text, forms.length);
    forms.push(form);
  };

  const termCache = new BoundedCache<string, string>(100_000);
  /** Of the lemmas a word can be, the one WordNet's tagged corpus saw most (beans → bean, tours → tour). */
  const termOf = (word: string): string => {
    const cached = termCache.get(word);
    if (cached !== undefined) return cached;
    const bases = wordnet.baseForms(word);
    let best = bases[0] ?? word;
    let bestCount = wordnet.tagCount(best);
    for (const base of bases.slice(1)) {
      const count = wordnet.tagCount(base);
      if (count > bestCount) {
        best = base;
        bestCount = count;
      }
    }
    termCache.set(word, best);
    return best;
  };

  for (const info of LEXICON.values())
    put({ text: info.word, term: termOf(info.word), cost: CURATED_COST, curated: info });

  for (const [lemma, senses] of wordnet.lemmas) {
    if (!/^[a-z]+$/.test(lemma) || lemma.length < 2 || (lemma.length === 2 && !TWO_LETTER.has(lemma))) continue;
    const senseCount = senses.reduce((n, s) => n + s.offsets.length, 0);
    const commonness = Math.log1p(wordnet.tagCount(lemma)) + 0.5 * Math.log(senseCount);
    const cost = WORDNET_BASE_COST + RARITY_COST / (1 + commonness) + (SHORT_COST[lemma.length] ?? 0);
    put({ text: lemma, term: lemma, cost });
    if (lemma.length < 3) continue;
    const inflections = new Set<string>();
    for (const s of senses) {
      if (s.pos === 'n') inflections.add(pluralOf(lemma));
      if (s.pos === 'v') for (const f of verbForms(lemma)) inflections.add(f);
    }
    for (const text of inflections) {
      if (!wordnet.lemmas.has(text)) put({ text, term: lemma, cost: cost + INFLECTION_COST });
    }
  }

  const trie = new Trie(1 << 19);
  let longest = 0;
  forms.forEach((form, id) => {
    trie.insert(form.text, id);
    longest = Math.max(longest, form.text.length);
  });

  return {
    forms,
    longest,
    lookup(text) {
      const id = byText.get(text);
      return id === undefined ? undefined : forms[id];
    },
    termOf(word) {
      const id = byText.get(word);
      return id === undefined ? termOf(word) : (forms[id]?.term ?? word);
    },
    next: (node, code) => trie.child(node, code),
    formAt: (node) => trie.form(node),
  };
}
