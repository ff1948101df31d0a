// Typos and half-typed words against the index's own vocabulary: character trigrams (with the
// word's start and end marked) shortlist the terms that share enough of the spelling, then an
// edit distance or a prefix decides. Only the vocabulary is scanned, never the listings, so the
// cost does not grow with the inventory.

export interface FuzzyMatch {
  term: string;
  /** 0 to 1: 0.9 one edit away, 0.75 two, a prefix by how much of the term it covers. */
  similarity: number;
}

const ONE_EDIT = 0.9;
const TWO_EDITS = 0.75;
const MIN_WORD = 4;
const MAX_WORD = 30;
const TWO_EDITS_FROM = 7;

function trigrams(word: string): string[] {
  const padded = `^${word}$`;
  const grams: string[] = [];
  for (let i = 0; i + 3 <= padded.length; i++) grams.push(padded.slice(i, i + 3));
  return grams;
}

/** Damerau–Levenshtein (adjacent transpositions), giving up beyond `max`. */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const n = b.length;
  let previous2 = new Array<number>(n + 1).fill(0);
  let previous = Array.from({ length: n + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = new Array<number>(n + 1).fill(0);
    current[0] = i;
    let rowMin = current[0];
    for (let j = 1; j <= n; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        value = Math.min(value, (previous2[j - 2] ?? 0) + 1);
      current[j] = value;
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin > max) return max + 1;
    previous2 = previous;
    previous = current;
  }
  return previous[n] ?? max + 1;
}

export class FuzzyVocabulary {
  private readonly byGram = new Map<string, number[]>();
  private readonly terms: string[] = [];

  add(term: string): void {
    // Collocations and numbers are never typed as one misspelt word.
    if (!/^[a-z]+$/.test(term) || term.length < 3) return;
    const id = this.terms.length;
    this.terms.push(term);
    for (const gram of new Set(trigrams(term))) {
      const list = this.byGram.get(gram);
      if (list) list.push(id);
      else this.byGram.set(gram, [id]);
    }
  }

  /** Up to `limit` terms the word may be a misspelling or the beginning of, best first. */
  similar(word: string, limit: number): FuzzyMatch[] {
    if (word.length < MIN_WORD || word.length > MAX_WORD || !/^[a-z]+$/.test(word)) return [];
    const grams = trigrams(word);
    const shared = new Map<number, number>();
    for (const gram of new Set(grams))
      for (const id of this.byGram.get(gram) ?? []) shared.set(id, (shared.get(id) ?? 0) + 1);
    const maxEdits = word.length >= TWO_EDITS_FROM ? 2 : 1;
    // Each edit breaks at most three trigrams; a prefix keeps all but the end marker's.
    const needed = Math.max(1, Math.min(grams.length - 1, grams.length - 3 * maxEdits));
    const matches: FuzzyMatch[] = [];
    for (const [id, count] of shared) {
      if (count < needed) continue;
      const term = this.terms[id] ?? '';
      if (term === word) continue;
      let similarity = 0;
      if (term.startsWith(word)) similarity = 0.55 + (0.35 * word.length) / term.length;
      const distance = editDistance(word, term, maxEdits);
      if (distance === 1) similarity = Math.max(similarity, ONE_EDIT);
      else if (distance === 2) similarity = Math.max(similarity, TWO_EDITS);
      if (similarity > 0) matches.push({ term, similarity });
    }
    matches.sort((a, b) => b.similarity - a.similarity || a.term.length - b.term.length || (a.term < b.term ? -1 : 1));
    return matches.slice(0, limit);
  }
}
