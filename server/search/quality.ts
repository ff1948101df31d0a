// How good a name is as a name, whatever the query: short, under a strong TLD, without hyphens,
// digits or letters no word explains, in few words. From 0 to 1; the reranker lets it decide
// between names about equally relevant, never over relevance.

/** Relative worth of TLDs in the aftermarket (.com first), as the sandbox generator prices them. */
const TLD_QUALITY: Readonly<Record<string, number>> = {
  com: 1,
  ai: 0.85,
  io: 0.85,
  co: 0.8,
  net: 0.7,
  org: 0.7,
  app: 0.7,
  dev: 0.65,
  shop: 0.6,
  store: 0.6,
  tech: 0.6,
  me: 0.55,
  us: 0.55,
  xyz: 0.45,
  info: 0.45,
  online: 0.45,
  biz: 0.4,
};
const OTHER_TLD = 0.5;

export interface NameShape {
  label: string;
  tld: string;
  /** Words the segmenter read in the label. */
  words: number;
  unknownLetters: number;
}

export function nameQuality({ label, tld, words, unknownLetters }: NameShape): number {
  const length = label.length;
  const lengthQuality = length <= 8 ? 1 : Math.max(0.3, 1 - (length - 8) * 0.05);
  const hyphens = (label.match(/-/g) ?? []).length;
  const digits = /\d/.test(label);
  const wordQuality = words <= 2 ? 1 : words === 3 ? 0.9 : 0.8;
  const letters = label.replace(/[^a-z]/g, '').length || 1;
  return (
    lengthQuality *
    (TLD_QUALITY[tld] ?? OTHER_TLD) *
    Math.max(0.5, 1 - 0.25 * hyphens) *
    (digits ? 0.8 : 1) *
    wordQuality *
    (1 - 0.5 * Math.min(1, unknownLetters / letters))
  );
}
