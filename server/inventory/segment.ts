// Splits a label into the known words it is made of. Naive on purpose (a dictionary and the
// fewest pieces); the hybrid search brings its own understanding of names later.
import { LEXICON, LONGEST_WORD, UNCATEGORISED, type WordInfo } from './words.ts';

export interface Segmentation {
  /** The known words in label order (digits and unknown stretches are left out). */
  words: WordInfo[];
  keywords: string[];
  category: string;
}

/**
 * Keywords put the themed words (nouns, adjectives) first and the generic ones (best, hub)
 * after, so the most significant come first as the spec's metadata asks.
 */
export function keywordsOf(words: readonly WordInfo[]): string[] {
  const themed = words.filter((w) => w.category !== undefined).map((w) => w.word);
  const generic = words.filter((w) => w.category === undefined).map((w) => w.word);
  return [...new Set([...themed, ...generic])];
}

/**
 * English compounds put their head noun last (coffee beans are beans, a brew house is about the
 * brew only because `house` is generic), so the last themed noun decides, then the last adjective.
 */
export function categoryOf(words: readonly WordInfo[]): string {
  const nouns = words.filter((w) => w.role === 'noun' && w.category);
  const adjectives = words.filter((w) => w.role === 'adjective' && w.category);
  return nouns.at(-1)?.category ?? adjectives.at(-1)?.category ?? UNCATEGORISED;
}

// An unknown character costs more than a word, so any covering by words beats leaving gaps.
const WORD_COST = 1;
const DIGITS_COST = 1;
const UNKNOWN_CHAR_COST = 2;

/** The known words of one hyphen-free part, by dynamic programming over its prefixes. */
function segmentPart(part: string): WordInfo[] {
  const n = part.length;
  const cost = new Array<number>(n + 1).fill(Number.POSITIVE_INFINITY);
  const from = new Array<number>(n + 1).fill(-1);
  cost[0] = 0;
  for (let end = 1; end <= n; end++) {
    // Longest piece first and only strict improvements, so ties keep the longer last word.
    for (let start = Math.max(0, end - LONGEST_WORD); start < end; start++) {
      const piece = part.slice(start, end);
      const base = cost[start] ?? Number.POSITIVE_INFINITY;
      let c: number;
      if (LEXICON.has(piece)) c = WORD_COST;
      else if (/^\d+$/.test(piece)) c = DIGITS_COST;
      else if (end - start === 1) c = UNKNOWN_CHAR_COST;
      else continue;
      if (base + c < (cost[end] ?? Number.POSITIVE_INFINITY)) {
        cost[end] = base + c;
        from[end] = start;
      }
    }
  }
  const words: WordInfo[] = [];
  for (let end = n; end > 0;) {
    const start = from[end] ?? end - 1;
    const info = LEXICON.get(part.slice(start, end));
    if (info) words.push(info);
    end = start;
  }
  return words.reverse();
}

export function segmentLabel(label: string): Segmentation {
  // Punycode labels are other scripts; a dictionary of English words cannot read them.
  const words = label.startsWith('xn--') ? [] : label.split('-').flatMap((part) => segmentPart(part));
  return { words, keywords: keywordsOf(words), category: categoryOf(words) };
}
