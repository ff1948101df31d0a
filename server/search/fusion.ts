// Fusing the two retrievers. Reciprocal rank fusion (Cormack, Clarke and Büttcher, 2009) needs
// only ranks. Here both retrievers score in the same 0-to-1 units (1 = the name is exactly what
// was asked), and keyword scores tie a lot (every two-word name with "coffee" scores the same),
// so fusing the scores keeps information ranks throw away. The score fusion mixes Fox and Shaw's
// CombMAX (a synonym only the semantic side sees still counts in full) with CombSUM (a name both
// sides agree on beats one only one side likes). Both methods are kept; the relevance test
// measures them and `comb` is the default because it ranks better on the committed set.

export type FusionMethod = 'rrf' | 'comb';

/** The RRF constant from the paper: ranks beyond the first few dozen barely differ. */
export const RRF_K = 60;
/** Share of the mean (CombSUM) in the score fusion; the rest goes to the larger (CombMAX). */
export const AGREEMENT = 0.6;

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
  const keyword = Math.min(1, input.keyword);
  const semantic = Math.min(1, input.semantic);
  return (1 - AGREEMENT) * Math.max(keyword, semantic) + (AGREEMENT * (keyword + semantic)) / 2;
}
