// The last word on order: relevance from fusion, then name quality for names about equally
// relevant, a bonus for the name the buyer typed, and a small penalty for a name another
// partner holds a quote on (it is still listed and still shown, just not first).

/** Quality moves a score by at most this fraction, so it orders near-ties, not topics. */
export const QUALITY_SHARE = 0.2;
/** The exact label typed (any TLD) scores at least this. */
export const EXACT_LABEL = 0.9;
/** Reserved names keep this fraction of their score. */
export const RESERVED = 0.9;
/** Below this a name is too weakly related to show. */
export const MIN_SCORE = 0.12;

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

export function withAvailability(score: number, available: boolean): number {
  return available ? score : score * RESERVED;
}
