// Static word-embedding neighbours: for an English word outside the sandbox vocabulary, the
// sandbox words nearest to it in GloVe's co-occurrence space (culinary → cooking, chef, food;
// meditation → yoga). WordNet knows what a word *is*; the embeddings know what it is *used
// with*, which is what a buyer means when WordNet's senses are not the sandbox's (WordNet's
// culinary leads to heat, its meditation to study). The file is derived once by
// scripts/build-word-neighbours.ts and read at start: nothing is downloaded at run time.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The first line of a neighbour file, so an unrelated or older file is refused. */
export const NEIGHBOURS_FORMAT = 'word-neighbours v1';
/** Repository-relative path of the committed file (the package build copies it to the same place). */
export const NEIGHBOURS_FILE = 'server/search/word-neighbours.txt';
/** Neighbours a line may carry at most: more would mean a file built for another reader. */
export const MAX_NEIGHBOURS = 16;

export interface Neighbour {
  /** A sandbox word (its index term). */
  word: string;
  /** Cosine in the embedding space, 0.01 to 1. */
  cosine: number;
}

export interface WordNeighbours {
  /** Words that have neighbours. */
  readonly size: number;
  /** The sandbox words neighbours are drawn from. */
  readonly targets: readonly string[];
  /** The nearest sandbox words of `word`, nearest first; empty when the file does not know it. */
  of(word: string): readonly Neighbour[];
}

/** Parses a neighbour file; throws naming the line on anything malformed. */
export function parseNeighbours(text: string, source = 'word-neighbours'): WordNeighbours {
  const lines = text.split('\n');
  const fail = (line: number, why: string): never => {
    throw new Error(`${source}:${line + 1}: ${why}`);
  };
  if (lines[0]?.trim() !== `# ${NEIGHBOURS_FORMAT}`) fail(0, `not a "${NEIGHBOURS_FORMAT}" file`);
  let targets: string[] | undefined;
  const entries = new Map<string, number>();
  const starts: number[] = [0];
  const ids: number[] = [];
  const cosines: number[] = [];
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (line === '' || line.startsWith('#')) continue;
    const fields = line.split(' ');
    if (fields[0] === '@') {
      if (targets) fail(i, 'a second @ line');
      targets = fields.slice(1);
      if (targets.length === 0 || targets.some((w) => !/^[a-z]+$/.test(w)))
        fail(i, 'the @ line must list lowercase words');
      continue;
    }
    if (!targets) fail(i, 'a word before the @ line of sandbox words');
    const word = fields[0] ?? '';
    if (!/^[a-z]+$/.test(word)) fail(i, `"${word}" is not a lowercase word`);
    if (entries.has(word)) fail(i, `"${word}" listed twice`);
    const pairs = fields.slice(1);
    if (pairs.length === 0 || pairs.length > MAX_NEIGHBOURS)
      fail(i, `"${word}" has ${pairs.length} neighbours (1 to ${MAX_NEIGHBOURS})`);
    let previous = Infinity;
    for (const pair of pairs) {
      const match = /^([0-9a-z]+):([0-9]{1,3})$/.exec(pair);
      const id = match ? parseInt(match[1] ?? '', 36) : NaN;
      const score = match ? Number(match[2]) : NaN;
      if (!(id >= 0 && id < (targets?.length ?? 0))) fail(i, `"${pair}": no such sandbox word`);
      if (!(score >= 1 && score <= 100)) fail(i, `"${pair}": a cosine must be 1 to 100 hundredths`);
      if (score > previous) fail(i, `"${word}": neighbours must come nearest first`);
      previous = score;
      ids.push(id);
      cosines.push(score);
    }
    entries.set(word, starts.length - 1);
    starts.push(ids.length);
  }
  if (!targets) fail(lines.length - 1, 'no @ line of sandbox words');
  const words = targets ?? [];
  // Flat typed arrays: 70,000 words × 8 neighbours as objects would cost tens of megabytes.
  const idArray = Uint16Array.from(ids);
  const cosineArray = Uint8Array.from(cosines);
  const startArray = Uint32Array.from(starts);
  return {
    size: entries.size,
    targets: words,
    of(word) {
      const entry = entries.get(word);
      if (entry === undefined) return [];
      const found: Neighbour[] = [];
      for (let j = startArray[entry] ?? 0; j < (startArray[entry + 1] ?? 0); j++)
        found.push({ word: words[idArray[j] ?? 0] ?? '', cosine: (cosineArray[j] ?? 0) / 100 });
      return found;
    },
  };
}

/** The committed neighbour file, beside this module (in the repository and in the package). */
export function loadNeighbours(
  path = join(dirname(fileURLToPath(import.meta.url)), 'word-neighbours.txt'),
): WordNeighbours {
  return parseNeighbours(readFileSync(path, 'utf8'), path);
}
