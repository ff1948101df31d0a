// The sandbox inventory: plausible names with synthetic prices, the same for the same size and
// seed on every machine, so tests, examples and partners' sandbox scripts can rely on them.
// Rows are produced one at a time; only a compact fingerprint of each name emitted so far is
// kept, which is what makes a million-row inventory possible without a million rows in memory.
import { segmentLabel, keywordsOf } from './segment.ts';
import type { InventoryRow } from './types.ts';
import { CATEGORIES, CATEGORY_NAMES, LEXICON, MODIFIERS, SUFFIXES, type Category, type WordInfo } from './words.ts';

export interface GenerateOptions {
  /** Number of rows, the well-known names included. */
  size?: number;
  /** Any 32-bit integer; other values are truncated to one. */
  seed?: number;
}

export const DEFAULT_INVENTORY_SIZE = 10_000;
export const DEFAULT_INVENTORY_SEED = 1;

/** `listed_at` falls in the two years before this instant (2026-11-01T00:00:00Z), never after. */
export const INVENTORY_EPOCH = Date.UTC(2026, 10, 1);
const LISTING_WINDOW_S = 2 * 365 * 24 * 3600;

export interface WellKnownName {
  domain: string;
  price_cents: number;
  floor_cents: number;
  listed_at: number;
}

/**
 * Listed in every generated inventory, first, at these prices: the spec's examples and the
 * README use them. The prices agree with the spec's example responses.
 */
export const WELL_KNOWN_NAMES: readonly WellKnownName[] = [
  {
    domain: 'bestcoffeebeans.com',
    price_cents: 250_000,
    floor_cents: 200_000,
    listed_at: Date.parse('2026-06-02T08:00:00Z'),
  },
  {
    domain: 'coffeebeanshop.com',
    price_cents: 180_000,
    floor_cents: 135_000,
    listed_at: Date.parse('2026-05-18T10:30:00Z'),
  },
  {
    domain: 'baristabar.com',
    price_cents: 135_000,
    floor_cents: 100_000,
    listed_at: Date.parse('2026-03-09T14:00:00Z'),
  },
  {
    domain: 'espressolab.co',
    price_cents: 120_000,
    floor_cents: 90_000,
    listed_at: Date.parse('2026-04-21T09:15:00Z'),
  },
  { domain: 'beanbrew.com', price_cents: 95_000, floor_cents: 70_000, listed_at: Date.parse('2025-12-01T12:00:00Z') },
  {
    domain: 'quietmountaintea.com',
    price_cents: 89_000,
    floor_cents: 62_000,
    listed_at: Date.parse('2025-10-14T16:45:00Z'),
  },
  { domain: 'brewhouse.io', price_cents: 72_000, floor_cents: 54_000, listed_at: Date.parse('2026-02-03T11:20:00Z') },
  { domain: 'freshroast.co', price_cents: 64_000, floor_cents: 48_000, listed_at: Date.parse('2026-01-27T08:05:00Z') },
  {
    domain: 'quantumledger.io',
    price_cents: 58_000,
    floor_cents: 40_000,
    listed_at: Date.parse('2025-08-30T07:00:00Z'),
  },
  {
    domain: 'greenleafgarden.com',
    price_cents: 39_000,
    floor_cents: 27_000,
    listed_at: Date.parse('2025-06-11T13:40:00Z'),
  },
];

/**
 * Never generated: the spec's examples use these for brokerage (acquiring an unlisted name) and
 * for unlisted lookups, so they must stay unlisted in the sandbox.
 */
export const RESERVED_UNLISTED: readonly string[] = [
  'darkroastcoffee.com',
  'morningbrew.net',
  'coffeeclub.org',
  'coffeeroasters.io',
  'dailygrind.com',
  'northwindsailing.com',
  'lanternworks.io',
  'unlisted-example.com',
];

/** mulberry32: tiny, fast and good enough for synthetic data; not for anything secret. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A set of 63-bit fingerprints in two typed arrays (8 bytes a slot, about 16 MB for a million
 * names). Two different names sharing a fingerprint only makes the second one be skipped as a
 * duplicate: uniqueness never depends on luck, the rare cost is a name not drawn.
 */
class FingerprintSet {
  private hi: Uint32Array;
  private lo: Uint32Array;
  private mask: number;
  private count = 0;

  constructor(expected: number) {
    let capacity = 1024;
    while (capacity < expected * 2) capacity *= 2;
    this.hi = new Uint32Array(capacity);
    this.lo = new Uint32Array(capacity);
    this.mask = capacity - 1;
  }

  /** Adds the name; false when it (or its fingerprint) was already there. */
  add(text: string): boolean {
    let h1 = 0x811c9dc5;
    let h2 = 0x9747b28c;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 0x01000193);
      h2 = Math.imul(h2 ^ c, 0x5bd1e995);
      h2 ^= h2 >>> 13;
    }
    h1 >>>= 0;
    // A zero `lo` marks an empty slot, so real fingerprints always have its low bit set.
    h2 = (h2 | 1) >>> 0;
    let slot = h1 & this.mask;
    for (;;) {
      const lo = this.lo[slot] ?? 0;
      if (lo === 0) break;
      if (lo === h2 && this.hi[slot] === h1) return false;
      slot = (slot + 1) & this.mask;
    }
    this.hi[slot] = h1;
    this.lo[slot] = h2;
    if (++this.count * 2 > this.mask + 1) this.grow();
    return true;
  }

  private grow(): void {
    const { hi, lo } = this;
    this.hi = new Uint32Array(hi.length * 2);
    this.lo = new Uint32Array(lo.length * 2);
    this.mask = this.hi.length - 1;
    for (let i = 0; i < hi.length; i++) {
      const l = lo[i] ?? 0;
      if (l === 0) continue;
      let slot = (hi[i] ?? 0) & this.mask;
      while ((this.lo[slot] ?? 0) !== 0) slot = (slot + 1) & this.mask;
      this.hi[slot] = hi[i] ?? 0;
      this.lo[slot] = l;
    }
  }
}

type Rng = () => number;

/** Weighted choice; weights need not sum to 1. */
function weighted<T>(rng: Rng, table: readonly (readonly [T, number])[]): T {
  const total = table.reduce((sum, [, w]) => sum + w, 0);
  let r = rng() * total;
  for (const [value, w] of table) {
    r -= w;
    if (r < 0) return value;
  }
  const last = table[table.length - 1];
  if (!last) throw new Error('empty weight table');
  return last[0];
}

/** Leans towards the front of a list, where the better words are. */
function pickWord(rng: Rng, words: readonly string[]): WordInfo {
  const word = words[Math.floor(words.length * rng() ** 1.4)] ?? words[0];
  const info = word === undefined ? undefined : LEXICON.get(word);
  if (!info) throw new Error(`unknown word ${String(word)}`);
  return info;
}

/** TLDs and how often names use them; .com dominates as it does in the aftermarket. */
const TLDS: readonly (readonly [string, number])[] = [
  ['com', 40],
  ['io', 8],
  ['co', 7],
  ['net', 6],
  ['org', 5],
  ['ai', 5],
  ['app', 4],
  ['dev', 3],
  ['shop', 3],
  ['xyz', 3],
  ['tech', 3],
  ['store', 2],
  ['me', 2],
  ['us', 2],
  ['info', 2],
  ['online', 2],
  ['biz', 1],
];

/** What a name under each TLD fetches relative to the same name in .com. */
const TLD_VALUE: Readonly<Record<string, number>> = {
  com: 1,
  ai: 0.8,
  io: 0.55,
  co: 0.45,
  net: 0.3,
  org: 0.3,
  app: 0.35,
  dev: 0.3,
  shop: 0.2,
  store: 0.18,
  tech: 0.18,
  me: 0.18,
  us: 0.15,
  xyz: 0.08,
  info: 0.08,
  online: 0.08,
  biz: 0.07,
};

type Pattern =
  | 'single'
  | 'adjective-noun'
  | 'noun-noun'
  | 'modifier-noun'
  | 'modifier-noun-noun'
  | 'adjective-noun-noun'
  | 'noun-suffix'
  | 'adjective-noun-suffix'
  | 'hyphenated'
  | 'digits';

const PATTERNS: readonly (readonly [Pattern, number])[] = [
  ['single', 6],
  ['adjective-noun', 17],
  ['noun-noun', 18],
  ['modifier-noun', 12],
  ['modifier-noun-noun', 8],
  ['adjective-noun-noun', 7],
  ['noun-suffix', 14],
  ['adjective-noun-suffix', 4],
  ['hyphenated', 8],
  ['digits', 6],
];

/** How much a pattern is worth beside a two-word name of the same length. */
const PATTERN_VALUE: Readonly<Record<Pattern, number>> = {
  single: 2.5,
  'adjective-noun': 1,
  'noun-noun': 1,
  'modifier-noun': 0.8,
  'modifier-noun-noun': 0.7,
  'adjective-noun-noun': 0.7,
  'noun-suffix': 0.8,
  'adjective-noun-suffix': 0.6,
  hyphenated: 0.25,
  digits: 0.3,
};

const HYPHENATED_SHAPES: readonly (readonly [Exclude<Pattern, 'hyphenated' | 'digits'>, number])[] = [
  ['adjective-noun', 3],
  ['noun-noun', 3],
  ['modifier-noun', 2],
  ['noun-suffix', 2],
  ['modifier-noun-noun', 1],
];

const NUMBERS = ['1', '2', '3', '4', '7', '8', '9', '10', '24', '99', '101', '123', '247', '360', '365', '2000'];

interface Draft {
  label: string;
  words: WordInfo[];
  pattern: Pattern;
}

function draftName(rng: Rng, category: Category): Draft | undefined {
  const { adjectives, nouns } = CATEGORIES[category];
  const noun = () => pickWord(rng, nouns);
  const adjective = () => pickWord(rng, adjectives);
  const modifier = () => pickWord(rng, MODIFIERS);
  const suffix = () => pickWord(rng, SUFFIXES);
  const shape = (p: Exclude<Pattern, 'hyphenated' | 'digits'>): WordInfo[] => {
    switch (p) {
      case 'single':
        return [noun()];
      case 'adjective-noun':
        return [adjective(), noun()];
      case 'noun-noun':
        return [noun(), noun()];
      case 'modifier-noun':
        return [modifier(), noun()];
      case 'modifier-noun-noun':
        return [modifier(), noun(), noun()];
      case 'adjective-noun-noun':
        return [adjective(), noun(), noun()];
      case 'noun-suffix':
        return [noun(), suffix()];
      case 'adjective-noun-suffix':
        return [adjective(), noun(), suffix()];
    }
  };
  const pattern = weighted(rng, PATTERNS);
  let words: WordInfo[];
  let separator = '';
  let digits: { text: string; before: boolean } | undefined;
  if (pattern === 'hyphenated') {
    separator = '-';
    words = shape(weighted(rng, HYPHENATED_SHAPES));
  } else if (pattern === 'digits') {
    words = [noun()];
    digits = { text: NUMBERS[Math.floor(rng() * NUMBERS.length)] ?? '1', before: rng() < 0.25 };
  } else {
    words = shape(pattern);
  }
  // "petpets", "beanbeans": one word inside its neighbour reads as a typo, not a name.
  for (let i = 1; i < words.length; i++) {
    const a = words[i - 1]?.word ?? '';
    const b = words[i]?.word ?? '';
    if (a.startsWith(b) || b.startsWith(a)) return undefined;
  }
  const parts = words.map((w) => w.word);
  if (digits?.before) parts.unshift(digits.text);
  else if (digits) parts.push(digits.text);
  return { label: parts.join(separator), words, pattern };
}

/** Dollars by label length for a two-word .com: short names are scarce and priced so. */
function lengthValue(length: number): number {
  if (length <= 3) return 40_000;
  if (length === 4) return 15_000;
  if (length === 5) return 8_000;
  if (length === 6) return 5_000;
  if (length === 7) return 3_500;
  if (length === 8) return 2_500;
  if (length === 9) return 1_800;
  if (length === 10) return 1_400;
  if (length <= 12) return 1_000;
  if (length <= 15) return 700;
  if (length <= 20) return 450;
  return 250;
}

/** Rounded as a seller would ask: $1,250 rather than $1,247. */
function askingDollars(dollars: number): number {
  const step = dollars < 100 ? 1 : dollars < 1_000 ? 5 : dollars < 10_000 ? 50 : dollars < 100_000 ? 500 : 5_000;
  return Math.max(step, Math.round(dollars / step) * step);
}

export const MIN_PRICE_CENTS = 4_900;
export const MAX_PRICE_CENTS = 25_000_000;

function priceCents(rng: Rng, draft: Draft, tld: string): number {
  const meanRank = draft.words.reduce((sum, w) => sum + w.rank, 0) / draft.words.length;
  const quality = 1.3 - 0.6 * meanRank;
  const jitter = 0.75 + 0.6 * rng();
  const dollars =
    lengthValue(draft.label.length) * PATTERN_VALUE[draft.pattern] * quality * (TLD_VALUE[tld] ?? 0.1) * jitter;
  const cents = askingDollars(Math.max(MIN_PRICE_CENTS / 100, dollars)) * 100;
  return Math.min(MAX_PRICE_CENTS, cents);
}

/** A whole-dollar floor between 50 % and 85 % of the price, both bounds included. */
export function floorCents(rng: Rng, price: number): number {
  const lo = Math.ceil(price / 200);
  const hi = Math.floor((price * 85) / 10_000);
  if (hi < lo) return Math.floor(price / 2);
  return (lo + Math.floor(rng() * (hi - lo + 1))) * 100;
}

function wellKnownRow(name: WellKnownName): InventoryRow {
  const dot = name.domain.indexOf('.');
  const label = name.domain.slice(0, dot);
  const { keywords, category } = segmentLabel(label);
  return {
    domain: name.domain,
    label,
    tld: name.domain.slice(dot + 1),
    price_cents: name.price_cents,
    floor_cents: name.floor_cents,
    currency: 'USD',
    category,
    keywords,
    listed_at: name.listed_at,
  };
}

/**
 * Yields `size` rows with distinct domains: the well-known names first, then generated ones.
 * The same size and seed always give the same rows in the same order.
 */
export function* generateInventory(options: GenerateOptions = {}): Generator<InventoryRow, void, undefined> {
  const size = options.size ?? DEFAULT_INVENTORY_SIZE;
  if (!Number.isSafeInteger(size) || size < 0) throw new RangeError(`size must be a non-negative integer, got ${size}`);
  const rng = mulberry32(options.seed ?? DEFAULT_INVENTORY_SEED);
  const seen = new FingerprintSet(size + WELL_KNOWN_NAMES.length + RESERVED_UNLISTED.length);
  for (const domain of RESERVED_UNLISTED) seen.add(domain);
  let emitted = 0;
  for (const name of WELL_KNOWN_NAMES) {
    if (emitted >= size) return;
    seen.add(name.domain);
    yield wellKnownRow(name);
    emitted++;
  }
  // The name space holds tens of millions of names, so only a broken word list could exhaust it.
  const maxAttempts = size * 50 + 10_000;
  for (let attempts = 0; emitted < size; attempts++) {
    if (attempts > maxAttempts) throw new Error(`could not find ${size} distinct names; the word list is too small`);
    const category = CATEGORY_NAMES[Math.floor(rng() * CATEGORY_NAMES.length)] ?? 'business';
    const draft = draftName(rng, category);
    if (!draft) continue;
    const tld = weighted(rng, TLDS);
    const domain = `${draft.label}.${tld}`;
    if (!seen.add(domain)) continue;
    const price = priceCents(rng, draft, tld);
    const floor = floorCents(rng, price);
    const listedAt = INVENTORY_EPOCH - (1 + Math.floor(rng() * LISTING_WINDOW_S)) * 1000;
    yield {
      domain,
      label: draft.label,
      tld,
      price_cents: price,
      floor_cents: floor,
      currency: 'USD',
      category,
      keywords: keywordsOf(draft.words),
      listed_at: listedAt,
    };
    emitted++;
  }
}
