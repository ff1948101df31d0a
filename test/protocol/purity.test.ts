// client/protocol is imported by the server, the clients and the conformance suite: it must stay
// pure (no I/O, no framework) and typed without `any`.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const DIR = fileURLToPath(new URL('../../client/protocol/', import.meta.url));
const files = readdirSync(DIR).filter((f) => f.endsWith('.ts'));

describe('client/protocol', () => {
  it.each(files)('%s imports only node:crypto, node:buffer and its siblings', (file) => {
    const source = readFileSync(DIR + file, 'utf8');
    const specifiers = [...source.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]/g)].map(
      (m) => m[1],
    );
    for (const spec of specifiers) {
      expect(spec === 'node:crypto' || spec === 'node:buffer' || /^\.\/[a-z-]+\.ts$/.test(spec ?? '')).toBe(true);
    }
    expect(source).not.toMatch(/\bimport\s*\(/);
    expect(source).not.toMatch(/\brequire\s*\(/);
  });

  it.each(files)('%s uses no `any`', (file) => {
    const code = readFileSync(DIR + file, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
    expect(code).not.toMatch(/(?::|<|\bas)\s*any\b/);
  });
});
