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

/**
 * Fills `board` with the scores (0 to 1) of the listed documents that can reach the top `wanted`.
 * Concepts go strongest first; once the ones left could not lift a new document past the
 * `wanted`-th score, they only add to documents already found (the MaxScore idea), which spares
 * a million-name index the postings of words like "best".
 */
export function keywordScores(
  collection: Collection,
  query: ParsedQuery,
  board: ScoreBoard,
  concept: ScoreBoard,
  wanted: number,
): void {
  board.clear();
  const listed = collection.listedCount;
  const avg = collection.averageLength;
  const mainConcepts = query.concepts.filter((c) => c.weight >= 0.5).length;
  const plans = query.concepts.map((c) => {
    let best = 0;
    const alternatives = c.alternatives.map((alt) => {
      const id = collection.termIds.get(alt.term);
      const idf = bm25Idf(listed, id === undefined ? 0 : (collection.df.data[id] ?? 0));
      best = Math.max(best, alt.weight * idf);
      return { id, weight: alt.weight, idf };
    });
    return { weight: c.weight, alternatives, best };
  });
  const ideal = plans.reduce((sum, p) => sum + p.weight * p.best * saturation(1, Math.max(1, mainConcepts), avg), 0);
  if (ideal <= 0) return;
  // Saturation never exceeds K1 + 1, so this bounds what a concept can add to any document.
  const bounded = plans
    .map((p) => ({ ...p, bound: (p.weight * p.best * (K1 + 1)) / ideal }))
    .sort((a, b) => b.bound - a.bound);
  const rest = bounded.map((_, i) => bounded.slice(i).reduce((sum, p) => sum + p.bound, 0));

  const lengths = collection.lengths.data;
  const isListed = collection.listed.data;
  for (const [i, plan] of bounded.entries()) {
    const addsNew = board.count < wanted || (rest[i] ?? 0) >= board.kthScore(wanted);
    concept.clear();
    for (const alt of plan.alternatives) {
      if (alt.id === undefined) continue;
      const postings = collection.postings[alt.id];
      if (!postings) continue;
      const docs = postings.docs.data;
      const weights = postings.weights.data;
      for (let j = 0; j < postings.docs.length; j++) {
        const doc = docs[j] ?? 0;
        if (isListed[doc] !== 1 || (!addsNew && !board.has(doc))) continue;
        concept.max(doc, alt.weight * alt.idf * saturation(weights[j] ?? 0, lengths[doc] ?? 1, avg));
      }
    }
    for (let j = 0; j < concept.count; j++) {
      const doc = concept.list[j] ?? 0;
      board.add(doc, (plan.weight * (concept.scores[doc] ?? 0)) / ideal);
    }
  }
  concept.clear();
}
