// Runs a judgement set's queries against an index in one mode and averages nDCG@5 and recall@5.
// Queries nothing in the inventory fits (no grade above 0) are left out of nDCG's mean; those
// without a grade-2 name are left out of recall's.
import { createDomainIndex, type DomainIndex, type SearchMode } from '../engine.ts';
import type { FusionMethod } from '../fusion.ts';
import { grade, judgedInventory, ndcgAt, recallAt, type Grade, type JudgementSet } from './judgements.ts';

export const CUTOFF = 5;

export interface QueryResult {
  q: string;
  ndcg: number;
  recall: number;
  top: { domain: string; grade: Grade; score: number }[];
  /** Whether the query counts towards each mean. */
  judged: boolean;
  recallJudged: boolean;
}

export interface Evaluation {
  mode: SearchMode;
  ndcg: number;
  recall: number;
  /** Queries some name fits that got no answer at all: the worst a marketplace can give. */
  empty: number;
  queries: QueryResult[];
}

export interface PreparedSet {
  set: JudgementSet;
  index: DomainIndex;
  /** Per query, every name's grade by domain. */
  grades: Map<string, Grade>[];
}

export function prepare(set: JudgementSet): PreparedSet {
  const names = judgedInventory(set);
  const index = createDomainIndex(names.map((n) => n.listing));
  const grades = set.queries.map((q) => new Map(names.map((n) => [n.listing.domain, grade(q, n)] as const)));
  return { set, index, grades };
}

export function evaluate(prepared: PreparedSet, mode: SearchMode, fusion?: FusionMethod): Evaluation {
  const queries = prepared.set.queries.map((query, i): QueryResult => {
    const byDomain = prepared.grades[i] ?? new Map<string, Grade>();
    const all = [...byDomain.values()];
    const hits = prepared.index.search(query.q, { mode, ...(fusion ? { fusion } : {}) });
    const ranked = hits.map((h) => byDomain.get(h.listing.domain) ?? 0);
    return {
      q: query.q,
      ndcg: ndcgAt(CUTOFF, ranked, all),
      recall: recallAt(CUTOFF, ranked, all),
      top: hits.map((h, j) => ({ domain: h.listing.domain, grade: ranked[j] ?? 0, score: h.score })),
      judged: all.some((g) => g > 0),
      recallJudged: all.some((g) => g >= 2),
    };
  });
  const mean = (values: number[]) => (values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length);
  return {
    mode,
    ndcg: mean(queries.filter((q) => q.judged).map((q) => q.ndcg)),
    recall: mean(queries.filter((q) => q.recallJudged).map((q) => q.recall)),
    empty: queries.filter((q) => q.judged && q.top.length === 0).length,
    queries,
  };
}
