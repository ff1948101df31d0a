// The signing guide must not drift from the vectors or from the module.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { canonicalQuery } from '../../client/protocol/index.ts';
import { loadVectors } from './vectors.ts';

const guide = readFileSync(fileURLToPath(new URL('../../spec/docs/signing.md', import.meta.url)), 'utf8');
const vectors = loadVectors();

describe('spec/docs/signing.md', () => {
  it('copies every hash and signature it shows from the vectors', () => {
    const known = new Set<string>();
    for (const v of vectors.signatures) {
      known.add(v.signature.slice(3));
      for (const line of v.canonical_string.split('\n')) known.add(line);
    }
    for (const w of vectors.webhooks) known.add(w.signature);
    const shown = guide.match(/\b[0-9a-f]{64}\b/g) ?? [];
    expect(shown.length).toBeGreaterThanOrEqual(4);
    for (const hex of shown) expect(known.has(hex)).toBe(true);
  });

  it('shows canonical strings that are in the vectors', () => {
    const blocks = [...guide.matchAll(/```\n((?:GET|POST)\n[\s\S]*?)\n```/g)].map((m) => m[1]);
    expect(blocks.length).toBe(2);
    const canonicals = new Set(vectors.signatures.map((v) => v.canonical_string));
    for (const block of blocks) expect(canonicals.has(block ?? '')).toBe(true);
  });

  it('has a canonical-query table that the module agrees with', () => {
    // Cells may be padded (the guide is kept in Prettier's table layout).
    const rows = [...guide.matchAll(/^\| `([^`]*)` +\| `([^`]*)` +\|$/gm)];
    expect(rows.length).toBeGreaterThanOrEqual(8);
    for (const [, raw, canonical] of rows) expect(canonicalQuery(raw ?? '')).toBe(canonical);
  });
});
