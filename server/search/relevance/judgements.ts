// Graded relevance judgements and the two measures the relevance test reports. A judgement set
// names an inventory (generated from a seed, or listed by hand) and, per query, the words that
// make a name fit it at each grade, written before the search was run. See README.md here.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateInventory } from '../../inventory/generate.ts';
import { segmentLabel } from '../../inventory/segment.ts';
import { CATEGORIES, type Category } from '../../inventory/words.ts';
import type { SearchListing } from '../collection.ts';

export type Grade = 0 | 1 | 2 | 3;

export interface JudgedQuery {
  q: string;
  kind: string;
  intent: string;
  /**
   * Per grade, clauses: "a|b & c" means (a or b) and c; "=x.com" means that domain; "@pets" means
   * any word of that sandbox category's list (server/inventory/words.ts).
   */
  grades: Partial<Record<'1' | '2' | '3', string[]>>;
  /** Concept sets: the sandbox categories the query's meaning belongs to (its grade-1 topics). */
  topics?: string[];
}

export interface JudgementSet {
  name: string;
  description: string;
  inventory?: { seed: number; size: number };
  /** Hand-built inventories: [domain, the words a reader sees in it]. */
  names?: [string, string][];
  queries: JudgedQuery[];
}

export interface JudgedName {
  listing: SearchListing;
  /** What the judge reads in the name, never what the search reads. */
  words: ReadonlySet<string>;
}

const DIR = fileURLToPath(new URL('.', import.meta.url));

export function loadJudgementSet(file: string): JudgementSet {
  const parsed = JSON.parse(readFileSync(join(DIR, file), 'utf8')) as JudgementSet;
  if (!Array.isArray(parsed.queries) || parsed.queries.length === 0) throw new Error(`${file}: no queries`);
  return parsed;
}

/** The inventory a set is judged over, with the judge's reading of every name. */
export function judgedInventory(set: JudgementSet): JudgedName[] {
  if (set.inventory) {
    // The generator knows which words it put into each name; that is the judge's reading.
    return [...generateInventory(set.inventory)].map((row) => ({
      listing: {
        domain: row.domain,
        label: row.label,
        tld: row.tld,
        category: row.category,
        price_cents: row.price_cents,
        currency: row.currency,
      },
      words: new Set(row.keywords),
    }));
  }
  return (set.names ?? []).map(([domain, words]) => {
    const dot = domain.indexOf('.');
    const label = domain.slice(0, dot);
    // Categories as an import would assign them: from the sandbox word list only.
    return {
      listing: {
        domain,
        label,
        tld: domain.slice(dot + 1),
        category: segmentLabel(label).category,
        price_cents: 100_000,
        currency: 'USD',
      },
      words: new Set(words.split(' ').filter((w) => w.length > 0)),
    };
  });
}

const categoryWords = new Map<string, ReadonlySet<string>>(
  Object.entries(CATEGORIES).map(([category, { nouns, adjectives }]) => [
    category,
    new Set<string>([...nouns, ...adjectives]),
  ]),
);

export function isCategory(name: string): name is Category {
  return categoryWords.has(name);
}

function hasWord(term: string, name: JudgedName): boolean {
  if (!term.startsWith('@')) return name.words.has(term);
  const words = categoryWords.get(term.slice(1));
  if (!words) throw new Error(`unknown category in a judgement: ${term}`);
  for (const w of name.words) if (words.has(w)) return true;
  return false;
}

function satisfies(clause: string, name: JudgedName): boolean {
  if (clause.startsWith('=')) return name.listing.domain === clause.slice(1);
  return clause.split('&').every((group) => group.split('|').some((w) => hasWord(w.trim(), name)));
}

export function grade(query: JudgedQuery, name: JudgedName): Grade {
  for (const g of [3, 2, 1] as const) {
    if ((query.grades[String(g) as '1' | '2' | '3'] ?? []).some((clause) => satisfies(clause, name))) return g;
  }
  return 0;
}

/** Every word a set's clauses mention, to catch a misspelt judgement. */
export function clauseWords(set: JudgementSet): string[] {
  const words = new Set<string>();
  for (const q of set.queries) {
    for (const clauses of Object.values(q.grades)) {
      for (const clause of clauses ?? []) {
        if (clause.startsWith('=')) continue;
        for (const w of clause.split(/[|&]/)) words.add(w.trim());
      }
    }
  }
  return [...words];
}

const gain = (g: Grade) => 2 ** g - 1;

/** nDCG@k with exponential gain; the ideal ranking is drawn from every judged name. */
export function ndcgAt(k: number, ranked: readonly Grade[], all: readonly Grade[]): number {
  const dcg = (grades: readonly Grade[]) =>
    grades.slice(0, k).reduce<number>((sum, g, i) => sum + gain(g) / Math.log2(i + 2), 0);
  const ideal = dcg([...all].sort((a, b) => b - a));
  return ideal === 0 ? 0 : dcg(ranked) / ideal;
}

/**
 * Names of grade 2 or more in the top k, over as many as could fit (min(k, how many exist)):
 * with hundreds of coffee names, plain recall@5 could never exceed 5/hundreds.
 */
export function recallAt(k: number, ranked: readonly Grade[], all: readonly Grade[]): number {
  const relevant = all.filter((g) => g >= 2).length;
  if (relevant === 0) return 0;
  return ranked.slice(0, k).filter((g) => g >= 2).length / Math.min(k, relevant);
}
