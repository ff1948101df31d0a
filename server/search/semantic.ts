// Semantic retrieval: each query concept is compared in meaning (WordNet relatedness) with every
// term the index holds — a few thousand words, not the million listings — and the closest ones
// are looked up in the postings like keywords, each counting by how close it is. A name scores
// on a concept by its closest word, and on the query by the concepts it covers.
import type { Collection } from './collection.ts';
import type { Alternative, ParsedQuery } from './query.ts';
import type { Profile, Relatedness } from './relatedness.ts';
import type { ScoreBoard } from './scores.ts';
import type { Neighbour, WordNeighbours } from './neighbours.ts';
import type { Walk, Walker } from './walk.ts';

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

/**
 * For a word outside the sandbox vocabulary: a curated word its WordNet walk reached first counts
 * this much, others by the root of their credit. Walk credits are noisier than profile cosines,
 * so they mostly rescue what the cosine misses (symphony → music) rather than reorder.
 */
const WALK_WEIGHT = 0.3;
/** A word of the same family (dentist → dental, pianist → piano) counts this much times its kinship. */
const FAMILY = 0.9;
/** A word of a topic the query's walk does not reach keeps this share of its closeness. */
const OFF_TOPIC = 0.1;
/** What the query's own sandbox words add to a walked word's topics (its walk's shares sum to 1). */
const ASKED = 0.5;
/** The category given to generic sandbox words (best, shop, online): a topic no query walk reaches. */
export const GENERIC = 'generic';
/**
 * A word outside the vocabulary also brings its nearest sandbox words in static word embeddings
 * (GloVe, via neighbours.ts): the nearest counts this much, the others by (cosine ÷ nearest)^4,
 * so in practice only the one or two nearest do. Like the walk's words they are tempered by the
 * walk's topics: raw embedding neighbours are noisy (confectionery's include cosmetics).
 */
const NEIGHBOUR_WEIGHT = 0.5;
const NEIGHBOUR_CURVE = 4;
/**
 * Neighbours below this cosine are not used: in 100 dimensions 0.4–0.5 is mostly shared context
 * (grooming: wardrobe, puppy, fitness at 0.42–0.44), which cost the committed set's pet grooming.
 */
const NEIGHBOUR_MIN = 0.55;
/**
 * The neighbours also vote on the word's topics, with this share of the weight, but only for a
 * topic they agree on: at least NEIGHBOUR_BLOC of them in its category (every neighbour counted
 * is at least NEIGHBOUR_MIN close), or one at least NEIGHBOUR_WITNESS close. A lone neighbour at
 * 0.55–0.7 is as often a word used alike as a thing alike (casino: hotel 0.65; chiropractor:
 * realtor 0.56), while three of one category (dealership: auto, car, dealer, garage, truck) or one
 * very close (motel: hotel 0.71; database: data 0.72) rarely mislead.
 */
const NEIGHBOUR_TOPICS = 0.3;
const NEIGHBOUR_BLOC = 3;
const NEIGHBOUR_WITNESS = 0.7;
/**
 * A weaker bloc: MAJORITY neighbours in one category (most of the 8 the file lists for a form; an
 * inflection also brings its lemma's), each at least MAJORITY_MIN close, when none of them is in
 * the walk's leading topic (see topicsOf).
 */
const MAJORITY = 5;
const MAJORITY_MIN = 0.45;
/** When nothing else relates, every listed word of the query's leading topic counts this much. */
const TOPIC_FLOOR = 0.3;

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

  private readonly categories: (string | undefined)[] = [];
  private readonly byCategory = new Map<string, number[]>();

  constructor(
    private readonly relatedness: Relatedness,
    private readonly categoryOfWord: (term: string) => string | undefined = () => undefined,
  ) {}

  /** The sandbox category of an indexed term, when it is a curated word. */
  categoryOf(term: number): string | undefined {
    return this.categories[term];
  }

  /** The indexed terms of a sandbox category. */
  termsOf(category: string): readonly number[] {
    return this.byCategory.get(category) ?? [];
  }

  /** Profiles the terms added to the collection since the last call. */
  sync(collection: Collection): void {
    for (; this.synced < collection.terms.length; this.synced++) {
      const word = collection.terms[this.synced] ?? '';
      const category = this.categoryOfWord(word);
      this.categories[this.synced] = category;
      if (category !== undefined) {
        let list = this.byCategory.get(category);
        if (!list) this.byCategory.set(category, (list = []));
        list.push(this.synced);
      }
      const profile = this.relatedness.profile(word);
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
export interface ConceptContext {
  relatedness: Relatedness;
  walker: Walker;
  /** Nearest sandbox words in a static embedding space, for words outside the vocabulary. */
  neighbours?: WordNeighbours;
  /** Whether a term is a word of the sandbox vocabulary (its meaning is then its own). */
  isCurated: (term: string) => boolean;
}

/**
 * A word's embedding neighbours as the file lists them (8 a form, nearest first), less the query's
 * own words; the expansion uses those at NEIGHBOUR_MIN or closer. The word as typed is looked up
 * as well as its lemma, each neighbour at its closer cosine: an inflection can be the common form
 * and so the better placed vector (fireworks: celebration, festive, confetti; firework, rare in
 * the corpus: gadget at 0.37).
 */
function neighboursOf(alt: Alternative, context: ConceptContext, own: ReadonlySet<string>): readonly Neighbour[] {
  const forms = alt.surface !== undefined ? [alt.term, alt.surface] : [alt.term];
  const best = new Map<string, number>();
  for (const form of forms)
    for (const n of context.neighbours?.of(form) ?? [])
      if (n.cosine > (best.get(n.word) ?? 0)) best.set(n.word, n.cosine);
  return [...best]
    .map(([word, cosine]) => ({ word, cosine }))
    .filter((n) => !own.has(n.word))
    .sort((a, b) => b.cosine - a.cosine || (a.word < b.word ? -1 : 1));
}

/**
 * A walked word's topics: the walk's shares, and, when the embedding neighbours agree on some
 * topics, NEIGHBOUR_TOPICS of the weight spread over those (one vote per neighbour). WordNet's
 * senses can miss the sandbox's sense entirely (its database is a "list", its dealership a
 * business); neighbours that agree are then the better witness.
 */
function topicsOf(
  walk: Walk | undefined,
  /** Nearest first, down to the file's own floor; empty for a word that is not walked. */
  listed: readonly Neighbour[],
  categoryOf: (term: string) => string | undefined,
): Map<string, number> {
  const votes = new Map<string, number>();
  const strongest = new Map<string, number>();
  const majority = new Map<string, number>();
  for (const n of listed) {
    const category = categoryOf(n.word);
    if (category === undefined) continue;
    if (n.cosine >= MAJORITY_MIN) majority.set(category, (majority.get(category) ?? 0) + 1);
    if (n.cosine < NEIGHBOUR_MIN) continue;
    votes.set(category, (votes.get(category) ?? 0) + 1);
    strongest.set(category, Math.max(strongest.get(category) ?? 0, n.cosine));
  }
  let total = 0;
  for (const [category, v] of votes) {
    if (v >= NEIGHBOUR_BLOC || (strongest.get(category) ?? 0) >= NEIGHBOUR_WITNESS) total += v;
    else votes.delete(category);
  }
  // Most of the neighbours in one category outvote a walk none of them backs (fireworks: WordNet
  // leads to light and energy, while celebration, confetti, festive, ceremony and gala agree);
  // one neighbour in the walk's leading topic keeps the walk's reading (arithmetic: math beside
  // six technology words).
  const leading = [...(walk?.categories ?? [])].sort((a, b) => b[1] - a[1])[0]?.[0];
  if (leading !== undefined && (majority.get(leading) ?? 0) === 0) {
    for (const [category, v] of majority) {
      if (v < MAJORITY || votes.has(category)) continue;
      votes.set(category, v);
      total += v;
    }
  }
  const walkShare = walk && walk.categories.size > 0 ? (total > 0 ? 1 - NEIGHBOUR_TOPICS : 1) : 0;
  const topics = new Map<string, number>();
  for (const [category, share] of walk?.categories ?? []) topics.set(category, walkShare * share);
  for (const [category, v] of votes) topics.set(category, (topics.get(category) ?? 0) + ((1 - walkShare) * v) / total);
  return topics;
}

export function expandConcepts(
  collection: Collection,
  vocabulary: SemanticVocabulary,
  context: ConceptContext,
  query: ParsedQuery,
): Map<number, number>[] {
  vocabulary.sync(collection);
  // The sandbox words of the query say what it is about too: in "pet grooming", pets.
  const asked = new Map<string, number>();
  for (const c of query.concepts) {
    for (const alt of c.alternatives) {
      const category = context.isCurated(alt.term) ? context.walker.categoryOf(alt.term) : undefined;
      if (category !== undefined) asked.set(category, (asked.get(category) ?? 0) + c.weight * alt.weight);
    }
  }
  const askedTotal = [...asked.values()].reduce((a, b) => a + b, 0);
  // The query's own words: a neighbour that is one of them (trading → stock in "stock trading")
  // would count that word twice and crowd out the names that have both.
  const own = new Set(query.concepts.flatMap((c) => c.alternatives.map((alt) => alt.term)));
  return query.concepts.map((c) => {
    const expansion = new Map<number, number>();
    const offer = (term: number, value: number) => {
      if (value > (expansion.get(term) ?? 0)) expansion.set(term, value);
    };
    for (const alt of c.alternatives) {
      const related = vocabulary.related(context.relatedness.profile(alt.term), MIN_SIMILARITY);
      // A word outside the sandbox vocabulary is placed by where WordNet leads from it: its
      // topics (categories of the curated words reached) temper every related word's closeness.
      const walk = context.isCurated(alt.term) ? undefined : context.walker.walk(alt.term);
      const listed = walk ? neighboursOf(alt, context, own) : [];
      const near = listed.filter((n) => n.cosine >= NEIGHBOUR_MIN);
      const topics = topicsOf(walk, listed, (term) => context.walker.categoryOf(term));
      if (walk && askedTotal > 0)
        for (const [category, weight] of asked)
          topics.set(category, (topics.get(category) ?? 0) + (ASKED * weight) / askedTotal);
      const top = Math.max(0, ...topics.values());
      if (!walk || top <= 0) {
        for (const [term, sim] of related) offer(term, alt.weight * closeness(sim));
        continue;
      }
      const fit = (term: number) => {
        const category = vocabulary.categoryOf(term);
        if (category === undefined) return 1;
        return OFF_TOPIC + (1 - OFF_TOPIC) * Math.min(1, (topics.get(category) ?? 0) / top);
      };
      for (const [term, sim] of related) offer(term, alt.weight * closeness(sim) * fit(term));
      for (const [word, credit] of walk.terms) {
        const term = collection.termIds.get(word);
        if (term !== undefined) offer(term, alt.weight * WALK_WEIGHT * Math.sqrt(credit) * fit(term));
      }
      const nearest = near[0]?.cosine ?? 1;
      for (const n of near) {
        const term = collection.termIds.get(n.word);
        if (term !== undefined)
          offer(term, alt.weight * NEIGHBOUR_WEIGHT * (n.cosine / nearest) ** NEIGHBOUR_CURVE * fit(term));
      }
      for (const [word, kin] of walk.relatives) {
        const term = collection.termIds.get(word);
        if (term !== undefined) offer(term, alt.weight * FAMILY * kin * fit(term));
      }
      if (expansion.size > 0) continue;
      // Nothing listed relates: the words of the query's leading topic are better than no answer.
      for (const [category, share] of topics) {
        if (share < top) continue;
        for (const term of vocabulary.termsOf(category)) offer(term, alt.weight * TOPIC_FLOOR);
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
