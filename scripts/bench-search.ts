// npm run bench:search — relevance first: nDCG@5 and empty answers of keyword, semantic and
// hybrid search on every judgement set (server/search/relevance/), the concept sets beside the
// older ones; then the hybrid search over 10,000, 100,000 and 1,000,000 sandbox listings:
// index build time and memory, p50/p99 query latency over the judged queries (each also typed
// with a typo), the cost of a sale, a relisting and a new listing reaching the index, and the
// server's start-up at 100,000 (store filled, index built from it). Not part of `npm test`.
//
//   npm run bench:search                  all three sizes
//   npm run bench:search -- 10000 100000  chosen sizes
//   npm run bench:search -- --relevance   the relevance table alone
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import { generateInventory } from '../server/inventory/generate.ts';
import {
  createDomainIndex,
  createDomainSearchService,
  storeListingSource,
  type DomainIndex,
  type SearchListing,
} from '../server/search/index.ts';
import { language } from '../server/search/language.ts';
import { evaluate, prepare } from '../server/search/relevance/evaluate.ts';
import { loadJudgementSet } from '../server/search/relevance/judgements.ts';
import { secretBox } from '../server/security/secret-box.ts';
import { openDatabase } from '../server/store/database.ts';
import { createStore } from '../server/store/index.ts';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

const ONE = process.argv.indexOf('--one');
const SIZES = process.argv
  .slice(2)
  .map(Number)
  .filter((n) => Number.isSafeInteger(n) && n > 0);
const ROUNDS = 20;
const UPDATES = 1_000;
const STARTUP_SIZE = 100_000;

const toListing = ({ domain, label, tld, category, price_cents, currency }: SearchListing): SearchListing => ({
  domain,
  label,
  tld,
  category,
  price_cents,
  currency,
});

/** Every judgement set, the concept sets (words outside the sandbox vocabulary) first. */
const JUDGEMENT_SETS = [
  'concepts.json',
  'concepts-held-out.json',
  'committed.json',
  'held-out.json',
  'hand-built.json',
];

/** nDCG@5 and empty answers per set and mode, in a table. */
function relevanceTable(): void {
  const modes = ['keyword', 'semantic', 'hybrid'] as const;
  const rows = JUDGEMENT_SETS.map((file) => {
    const prepared = prepare(loadJudgementSet(file));
    const results = modes.map((mode) => evaluate(prepared, mode));
    return [
      `${prepared.set.name} (${prepared.set.queries.length})`,
      ...results.map((r) => `${r.ndcg.toFixed(3)} / ${r.empty}`),
    ];
  });
  const header = ['judgement set (queries)', ...modes.map((m) => `${m} nDCG@5 / empty`)];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (values: string[]) =>
    `| ${values.map((v, i) => (i === 0 ? v.padEnd(widths[i] ?? 0) : v.padStart(widths[i] ?? 0))).join(' | ')} |`;
  console.log(line(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const r of rows) console.log(line(r));
  console.log(
    'empty: queries some listed name fits that got no answer at all. Judgement rules: server/search/relevance/README.md\n',
  );
}

/** The judged queries of all the sets, and each with one letter dropped (a typo). */
function queries(): string[] {
  const all = JUDGEMENT_SETS.flatMap((f) => loadJudgementSet(f).queries.map((q) => q.q));
  const typos = all.filter((q) => q.length > 5).map((q) => q.slice(0, 2) + q.slice(3));
  const long = 'fresh roasted coffee beans espresso latte cappuccino barista cafe '.repeat(16).slice(0, 1000);
  return [...new Set([...all, ...typos, long])];
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;
}

const mb = (bytes: number) => `${(bytes / 1_048_576).toFixed(0)} MB`;
const ms = (value: number) => (value < 10 ? value.toFixed(2) : value.toFixed(0));

function memory(): number {
  // Twice: the first pass can leave what only became unreachable during it.
  collectGarbage();
  collectGarbage();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

interface Row {
  size: number;
  buildMs: number;
  memory: number;
  coldP50: number;
  p50: number;
  p99: number;
  max: number;
  longMs: number;
  updateUs: number;
}

function measureQueries(index: DomainIndex, qs: readonly string[]): { p50: number; p99: number; max: number } {
  const times: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const q of qs) {
      const started = performance.now();
      index.search(q);
      times.push(performance.now() - started);
    }
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 0.5), p99: percentile(times, 0.99), max: times.at(-1) ?? Number.NaN };
}

/** Sales, relistings and new listings, each checked to be visible to the next search. */
function measureUpdates(index: DomainIndex, listings: readonly SearchListing[], size: number): number {
  const fresh = [...generateInventory({ size: UPDATES + 50, seed: 99 })].slice(50).map(toListing);
  const started = performance.now();
  for (let i = 0; i < UPDATES; i++) {
    const sold = listings[(i * 7919) % listings.length];
    if (!sold) continue;
    index.remove(sold.domain);
    index.upsert(sold);
    const added = fresh[i];
    if (added) index.upsert(added);
  }
  const perUpdate = ((performance.now() - started) * 1000) / (UPDATES * 3);
  const probe = fresh[0];
  if (probe && !index.search(probe.domain).some((h) => h.listing.domain === probe.domain))
    throw new Error(`new listing ${probe.domain} not found at ${size}`);
  const gone = listings[1];
  if (gone) {
    index.remove(gone.domain);
    if (index.search(gone.domain).some((h) => h.listing.domain === gone.domain))
      throw new Error(`sold ${gone.domain} still found at ${size}`);
  }
  return perUpdate;
}

function benchSize(size: number, qs: readonly string[]): Row {
  const before = memory();
  let listings: SearchListing[] | undefined = [...generateInventory({ size, seed: 1 })].map(toListing);
  const started = performance.now();
  const index = createDomainIndex(listings);
  const buildMs = performance.now() - started;
  const sample = listings.filter((_, i) => i % 97 === 0);
  // Dropped so the garbage collector can reclaim the rows: the figure below is the index alone.
  // eslint-disable-next-line no-useless-assignment
  listings = undefined;
  const used = memory() - before;

  const cold: number[] = [];
  for (const q of qs) {
    const t = performance.now();
    index.search(q);
    cold.push(performance.now() - t);
  }
  cold.sort((a, b) => a - b);
  const { p50, p99, max } = measureQueries(index, qs);
  const long = qs.find((q) => q.length === 1000) ?? '';
  const t = performance.now();
  index.search(long);
  const longMs = performance.now() - t;
  const updateUs = measureUpdates(index, sample, size);
  return { size, buildMs, memory: used, coldP50: percentile(cold, 0.5), p50, p99, max, longMs, updateUs };
}

/** What `startServer` does on an empty database, then the search index built from the store. */
async function benchStartup(): Promise<{ fillMs: number; indexMs: number; readyMs: number }> {
  const store = createStore(await openDatabase({ filename: ':memory:' }), secretBox(randomBytes(32)));
  try {
    let started = performance.now();
    await store.inventory.replaceEnvironment('sandbox', generateInventory({ size: STARTUP_SIZE, seed: 1 }));
    const fillMs = performance.now() - started;
    started = performance.now();
    const service = createDomainSearchService(storeListingSource(store));
    await service.warm('sandbox');
    const indexMs = performance.now() - started;
    service.close();
    // performance.now() counts from the start of the process, module loading included.
    return { fillMs, indexMs, readyMs: performance.now() };
  } finally {
    await store.close();
  }
}

/** Loads the language resources and the word profiles every sandbox index shares. */
function loadLanguage(): { languageMs: number; languageMemory: number } {
  const bare = memory();
  const started = performance.now();
  language().relatedness.profile('coffee');
  const languageMs = performance.now() - started;
  createDomainIndex([...generateInventory({ size: 2_000, seed: 7 })].map(toListing));
  return { languageMs, languageMemory: memory() - bare };
}

/** Runs this script in a process of its own, so memory and timings do not carry over. */
function runChild(args: readonly string[]): unknown {
  const child = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
    env: { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --max-old-space-size=4096`.trim() },
  });
  const line = child.stdout.trim().split('\n').at(-1) ?? '';
  if (child.status !== 0 || !line.startsWith('{'))
    throw new Error(`benchmark ${args.join(' ')} failed: ${child.stderr || child.stdout}`);
  return JSON.parse(line);
}

async function main(): Promise<void> {
  if (ONE >= 0) {
    loadLanguage();
    console.log(JSON.stringify(benchSize(Number(process.argv[ONE + 1]), queries())));
    return;
  }
  if (process.argv.includes('--startup')) {
    console.log(JSON.stringify(await benchStartup()));
    return;
  }
  const sizes = SIZES.length > 0 ? SIZES : [10_000, 100_000, 1_000_000];
  if (process.argv.includes('--relevance')) {
    relevanceTable();
    return;
  }
  const { languageMs, languageMemory } = loadLanguage();
  const qs = queries();
  console.log(
    `Hybrid domain search benchmark — Node ${process.version}, ${qs.length} distinct queries × ${ROUNDS} rounds per size`,
  );
  console.log(
    `language resources (WordNet, word list, relatedness): ${ms(languageMs)} ms and ${mb(languageMemory)}, once per process\n`,
  );
  const rows = sizes.map((size) => runChild(['--one', String(size)]) as Row);
  const header = ['listings', 'build', 'index memory', 'cold p50', 'p50', 'p99', 'max', '1,000-char q', 'update'];
  const cells = rows.map((r) => [
    r.size.toLocaleString('en'),
    `${ms(r.buildMs / 1000)} s`,
    mb(r.memory),
    `${ms(r.coldP50)} ms`,
    `${ms(r.p50)} ms`,
    `${ms(r.p99)} ms`,
    `${ms(r.max)} ms`,
    `${ms(r.longMs)} ms`,
    `${r.updateUs.toFixed(0)} µs`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] ?? '').length)));
  const line = (values: string[]) => `| ${values.map((v, i) => v.padStart(widths[i] ?? 0)).join(' | ')} |`;
  console.log(line(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const c of cells) console.log(line(c));
  console.log('\nRelevance (10,000-name inventories):');
  relevanceTable();
  console.log(
    '\ncold p50: first time each query is seen; p50/p99/max: afterwards. update: one sale, relisting or new listing.',
  );

  const startup = runChild(['--startup']) as { fillMs: number; indexMs: number; readyMs: number };
  console.log(
    `\nstart-up at ${STARTUP_SIZE.toLocaleString('en')} listings in a fresh process (SQLite): store filled ${ms(startup.fillMs / 1000)} s, ` +
      `index built from the store ${ms(startup.indexMs / 1000)} s (WordNet and word profiles included); ` +
      `index ready ${ms(startup.readyMs / 1000)} s after the process started`,
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
