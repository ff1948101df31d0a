// The last word on order: relevance from fusion, then name quality for names about equally
// relevant, a bonus for the name the buyer typed, and a small penalty for a name another
// partner holds a quote on (it is still listed and still shown, just not first).

/** Quality moves a score by at most this fraction, so it orders near-ties, not topics. */
export const QUALITY_SHARE = 0.2;
/** The exact label typed (any TLD) scores at least this. */
export const EXACT_LABEL = 0.9;
/** Reserved names keep this fraction of their score. */
export const RESERVED = 0.9;
/** A name neither retriever relates to the query at least this much is not shown. */
export const MIN_RELEVANCE = 0.12;

export interface RerankInput {
  relevance: number;
  quality: number;
  exactDomain: boolean;
  exactLabel: boolean;
}

export function rerank({ relevance, quality, exactDomain, exactLabel }: RerankInput): number {
  if (exactDomain) return 1;
  const score = Math.min(1, relevance) * (1 - QUALITY_SHARE + QUALITY_SHARE * quality);
  return exactLabel ? Math.max(score, EXACT_LABEL + (1 - EXACT_LABEL) * 0.5 * quality) : score;
}

/**
 * Whether a name is related enough to show. Asked of each retriever on its own, so a synonym
 * only the semantic side sees (attorney for lawyer) is shown as surely as a keyword match.
 */
export function isShown(keyword: number, semantic: number, exact: boolean): boolean {
  return exact || Math.max(keyword, semantic) >= MIN_RELEVANCE;
}

export function withAvailability(score: number, available: boolean): number {
  return available ? score : roundScore(score * RESERVED);
}

/** Four decimals: enough to order by, and the same on every machine. */
export function roundScore(score: number): number {
  return Math.round(score * 10_000) / 10_000;
}
