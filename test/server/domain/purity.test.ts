// server/domain holds the rules the HTTP and storage layers share: no I/O, no clock, no randomness,
// and typed without `any` so those layers can lean on the types.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const DIR = fileURLToPath(new URL('../../../server/domain/', import.meta.url));
const files = readdirSync(DIR).filter((f) => f.endsWith('.ts'));
const ALLOWED = new Set(['node:crypto', 'node:net', 'node:buffer', 'canonicalize']);

const code = (file: string): string => readFileSync(DIR + file, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');

describe('server/domain', () => {
  it('has the files of its brief', () => {
    for (const f of [
      'canonical-json.ts',
      'idempotency.ts',
      'order-state.ts',
      'quote-token.ts',
      'cursor.ts',
      'money.ts',
      'webhook-url.ts',
      'webhook-schedule.ts',
      'rate-limit.ts',
      'nonce.ts',
    ]) {
      expect(files).toContain(f);
    }
  });

  it.each(files)('%s imports only pure modules', (file) => {
    const source = readFileSync(DIR + file, 'utf8');
    const specifiers = [...source.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]/g)].map(
      (m) => m[1] ?? '',
    );
    for (const spec of specifiers) {
      const ok =
        ALLOWED.has(spec) ||
        /^\.\/[a-z0-9-]+\.ts$/.test(spec) ||
        /^\.\.\/\.\.\/client\/protocol\/[a-z-]+\.ts$/.test(spec);
      expect(ok, `${file} imports ${spec}`).toBe(true);
    }
    expect(source).not.toMatch(/\bimport\s*\(/);
    expect(source).not.toMatch(/\brequire\s*\(/);
  });

  it.each(files)('%s reads no clock, randomness or environment', (file) => {
    const text = code(file);
    expect(text).not.toMatch(
      /Date\.now|new Date\(\s*\)|performance\.now|Math\.random|randomBytes|randomUUID|process\.|setTimeout|setInterval/,
    );
  });

  it.each(files)('%s uses no `any`', (file) => {
    expect(code(file)).not.toMatch(/(?::|<|\bas)\s*any\b/);
  });
});
