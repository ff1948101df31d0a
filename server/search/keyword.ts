// Keyword retrieval: BM25 over the words labels were read as (and the parts and collocations the
// segmenter added), with each query concept scored by its best alternative — the word itself, or
// the listed words its n-grams say it misspells or begins. Scores are divided by what a name made
// of exactly the query's words would get, so 1 means "all of it, nothing else".
import type { Collection } from './collection.ts';
import type { ParsedQuery } from './query.ts';
import type { ScoreBoard } from './scores.ts';

const K1 = 1.2;
const B = 0.75;

export function bm25Idf(listed: number, df: number): number {
  return Math.log(1 + (listed - df + 0.5) / (df + 0.5));
}

function saturation(tf: number, length: number, averageLength: number): number {
  return (tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * length) / averageLength));
}

/** Fills `board` with each touched listed document's score, 0 to 1. */
export function keywordScores(collection: Collection, query: ParsedQuery, board: ScoreBoard, concept: ScoreBoard): void {
  board.clear();
  const listed = collection.listedCount;
  const avg = collection.averageLength;
  const mainConcepts = query.concepts.filter((c) => c.weight >= 0.5).length;
  let ideal = 0;
  for (const c of query.concepts) {
    let best = 0;
    for (const alt of c.alternatives) {
      const id = collection.termIds.get(alt.term);
      const df = id === undefined ? 0 : (collection.df.data[id] ?? 0);
      best = Math.max(best, alt.weight * bm25Idf(listed, df));
    }
    ideal += c.weight * best * saturation(1, Math.max(1, mainConcepts), avg);
  }
  if (ideal <= 0) return;

  for (const c of query.concepts) {
    concept.clear();
    for (const alt of c.alternatives) {
      const id = collection.termIds.get(alt.term);
      if (id === undefined) continue;
      const postings = collection.postings[id];
      if (!postings) continue;
      const idf = bm25Idf(listed, collection.df.data[id] ?? 0);
      const docs = postings.docs.data;
      const weights = postings.weights.data;
      const lengths = collection.lengths.data;
      const isListed = collection.listed.data;
      for (let i = 0; i < postings.docs.length; i++) {
        const doc = docs[i] ?? 0;
        if (isListed[doc] !== 1) continue;
        concept.max(doc, alt.weight * idf * saturation(weights[i] ?? 0, lengths[doc] ?? 1, avg));
      }
    }
    for (const doc of concept.touched) board.add(doc, (c.weight * concept.get(doc)) / ideal);
  }
  concept.clear();
}
