// Fusing the two retrievers. Reciprocal rank fusion (Cormack et al., 2009) needs only ranks;
// a convex combination of the two scores keeps how strongly each retriever matched, which
// matters here because both score in the same 0-to-1 units and keyword scores tie a lot (every
// two-word name with "coffee" scores the same). Both are kept: the relevance test measures them.

export type FusionMethod = 'rrf' | 'linear';

/** The RRF constant from the paper: ranks beyond the first few dozen barely differ. */
export const RRF_K = 60;
/** Weight of the keyword score in the linear fusion; the semantic score gets the rest. */
export const KEYWORD_WEIGHT = 0.5;

export interface FusionInput {
  keyword: number;
  semantic: number;
  /** 1-based ranks in each retriever's list, undefined when not in it. */
  keywordRank: number | undefined;
  semanticRank: number | undefined;
}

/** Relevance from 0 to 1. */
export function fuse(method: FusionMethod, input: FusionInput): number {
  if (method === 'rrf') {
    const best = 2 / (RRF_K + 1);
    const part = (rank: number | undefined) => (rank === undefined ? 0 : 1 / (RRF_K + rank));
    return (part(input.keywordRank) + part(input.semanticRank)) / best;
  }
  return KEYWORD_WEIGHT * Math.min(1, input.keyword) + (1 - KEYWORD_WEIGHT) * Math.min(1, input.semantic);
}
