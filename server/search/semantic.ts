// Semantic retrieval: each query concept is compared in meaning (WordNet relatedness) with every
// term the index holds — a few thousand words, not the million listings — and the closest ones
// are looked up in the postings like keywords, each counting by how close it is. A name scores
// on a concept by its closest word, and on the query by the concepts it covers.
import type { Collection } from './collection.ts';
import type { ParsedQuery } from './query.ts';
import type { Profile, Relatedness } from './relatedness.ts';
import type { ScoreBoard } from './scores.ts';

/** Below this cosine two words share only a stray definition word. */
const MIN_SIMILARITY = 0.03;
/** Related words beyond this many per concept add noise and cost. */
const MAX_EXPANSIONS = 40;
/**
 * Cosines of related words are small (latte to espresso 0.45, cafe 0.10); a power below 1 lifts
 * them to a usable scale (0.73, 0.40) while only the word itself reaches 1.
 */
const CLOSENESS_CURVE = 0.4;
/** Postings visited per query at most, nearest words first; keeps a million listings fast. */
const POSTINGS_BUDGET = 300_000;
/** Names found for one concept after which farther words are not looked up. */
const ENOUGH = 2_000;
/** Each word of a name beyond what the query asks dilutes it a little. */
const EXTRA_WORD = 0.1;

export function closeness(similarity: number): number {
  return Math.min(1, similarity) ** CLOSENESS_CURVE;
}

interface FeatureList {
  terms: number[];
  weights: number[];
}

/** The meaning profile of every term of a collection, with an inverted list per feature. */
export class SemanticVocabulary {
  private synced = 0;
  private readonly byFeature = new Map<number, FeatureList>();
  private sums = new Float64Array(1024);

  constructor(private readonly relatedness: Relatedness) {}

  /** Profiles the terms added to the collection since the last call. */
  sync(collection: Collection): void {
    for (; this.synced < collection.terms.length; this.synced++) {
      const profile = this.relatedness.profile(collection.terms[this.synced] ?? '');
      for (let i = 0; i < profile.ids.length; i++) {
        const feature = profile.ids[i] ?? 0;
        let list = this.byFeature.get(feature);
        if (!list) {
          list = { terms: [], weights: [] };
          this.byFeature.set(feature, list);
        }
        list.terms.push(this.synced);
        list.weights.push(profile.weights[i] ?? 0);
      }
    }
    if (this.sums.length < this.synced) this.sums = new Float64Array(Math.max(this.synced, this.sums.length * 2));
  }

  /** Terms of the collection with their cosine to `profile`, at least `min`. */
  related(profile: Profile, min: number): Map<number, number> {
    const touched: number[] = [];
    for (let i = 0; i < profile.ids.length; i++) {
      const list = this.byFeature.get(profile.ids[i] ?? -1);
      if (!list) continue;
      const w = profile.weights[i] ?? 0;
      for (let j = 0; j < list.terms.length; j++) {
        const term = list.terms[j] ?? 0;
        if (this.sums[term] === 0) touched.push(term);
        this.sums[term] = (this.sums[term] ?? 0) + w * (list.weights[j] ?? 0);
      }
    }
    const result = new Map<number, number>();
    for (const term of touched) {
      // Feature ids, and so the order of this sum, depend on which words were profiled first;
      // rounding keeps the last bits of that order from ever deciding a ranking.
      const sim = Math.min(1, Math.round((this.sums[term] ?? 0) * 1e6) / 1e6);
      if (sim >= min) result.set(term, sim);
      this.sums[term] = 0;
    }
    return result;
  }
}

/** Per concept, the collection's terms close to it (term id → closeness, 0 to 1). */
export function expandConcepts(collection: Collection, vocabulary: SemanticVocabulary, relatedness: Relatedness, query: ParsedQuery): Map<number, number>[] {
  vocabulary.sync(collection);
  return query.concepts.map((c) => {
    const expansion = new Map<number, number>();
    for (const alt of c.alternatives) {
      for (const [term, sim] of vocabulary.related(relatedness.profile(alt.term), MIN_SIMILARITY)) {
        const value = alt.weight * closeness(sim);
        if (value > (expansion.get(term) ?? 0)) expansion.set(term, value);
      }
    }
    return expansion;
  });
}

/**
 * Fills `board` with the semantic scores (0 to 1) of the listed documents that can reach the top
 * `wanted`; concepts strongest first, the weak ones only adding to documents already found, as
 * keywordScores does.
 */
export function semanticScores(
  collection: Collection,
  query: ParsedQuery,
  expansions: readonly Map<number, number>[],
  board: ScoreBoard,
  concept: ScoreBoard,
  wanted: number,
): void {
  board.clear();
  const totalWeight = query.concepts.reduce((sum, c) => sum + c.weight, 0);
  if (totalWeight <= 0) return;
  let budget = POSTINGS_BUDGET;
  const plans = query.concepts
    .map((c, i) => {
      const expansion = expansions[i] ?? new Map<number, number>();
      // Nearest first, ties by term id (stable across runs: ids follow insertion order).
      const nearest = [...expansion].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, MAX_EXPANSIONS);
      return { weight: c.weight, nearest, bound: (c.weight * (nearest[0]?.[1] ?? 0)) / totalWeight };
    })
    .sort((a, b) => b.bound - a.bound);
  const rest = plans.map((_, i) => plans.slice(i).reduce((sum, p) => sum + p.bound, 0));
  const isListed = collection.listed.data;
  for (const [i, plan] of plans.entries()) {
    const addsNew = board.count < wanted || (rest[i] ?? 0) >= board.kthScore(wanted);
    concept.clear();
    for (const [term, value] of plan.nearest) {
      const postings = collection.postings[term];
      if (!postings) continue;
      // Words come nearest first, so every name already found scores at least what a name only
      // the remaining words would find could: with enough found, the rest cannot reach the top.
      if (budget <= 0 || concept.count >= ENOUGH) break;
      budget -= postings.docs.length;
      const docs = postings.docs.data;
      const weights = postings.weights.data;
      for (let j = 0; j < postings.docs.length; j++) {
        const doc = docs[j] ?? 0;
        if (isListed[doc] !== 1 || (!addsNew && !board.has(doc))) continue;
        concept.max(doc, value * Math.min(1, weights[j] ?? 0));
      }
    }
    for (let j = 0; j < concept.count; j++) {
      const doc = concept.list[j] ?? 0;
      board.add(doc, (plan.weight * (concept.scores[doc] ?? 0)) / totalWeight);
    }
  }
  concept.clear();
  const asked = query.concepts.filter((c) => c.weight >= 0.5).length;
  for (let i = 0; i < board.count; i++) {
    const doc = board.list[i] ?? 0;
    const extra = Math.max(0, (collection.lengths.data[doc] ?? 1) - Math.max(1, asked));
    board.scores[doc] = (board.scores[doc] ?? 0) / (1 + EXTRA_WORD * extra);
  }
}
