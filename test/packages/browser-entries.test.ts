// The client package's README says which entry points run in browsers and edge runtimes. This
// follows each entry's static imports through the sources and holds those to it: no `node:`
// module, no Node global (Buffer, process), and only third-party packages that run in browsers.
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const client = JSON.parse(readFileSync(join(ROOT, 'client', 'package.json'), 'utf8')) as {
  exports: Record<string, { default?: string }>;
};

/** The README's table: these subpaths need no Node; the rest do. */
const PORTABLE = ['./public', './oauth', './rate-limit', './retry'];
const NODE_ONLY = ['.', './protocol', './partner', './webhooks'];
/** Third-party packages that run in browsers and edge runtimes (fetch and Web Crypto only). */
const PORTABLE_PACKAGES = new Set([
  'openapi-fetch',
  'oauth4webapi',
  '@domain-sales/contract/public',
  '@domain-sales/contract/partner',
]);

/** The source file an export's built file comes from (dist/x.js ← x.ts). */
const sourceOf = (subpath: string) =>
  join(ROOT, 'client', (client.exports[subpath]?.default ?? '').replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts'));

/** Every file reached by static imports from `entry`, with what each needs from outside. */
function closure(entry: string): { files: string[]; external: string[]; globals: string[] } {
  const files: string[] = [];
  const external = new Set<string>();
  const globals = new Set<string>();
  const queue = [entry];
  while (queue.length) {
    const file = queue.shift() as string;
    if (files.includes(file)) continue;
    files.push(file);
    const code = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
    for (const m of code.matchAll(/(?:^|\n)\s*(?:import|export)\s+(?!type\s)[^'"]*?from\s+['"]([^'"]+)['"]/g)) {
      const spec = m[1] ?? '';
      if (spec.startsWith('.')) queue.push(join(dirname(file), spec));
      else external.add(spec);
    }
    for (const g of ['Buffer', 'process', 'require', '__dirname'])
      if (new RegExp(`\\b${g}\\b`).test(code)) globals.add(`${g} in ${relative(ROOT, file)}`);
  }
  return { files, external: [...external], globals: [...globals] };
}

describe('the client entry points the README calls portable', () => {
  it.each(PORTABLE)('%s reaches no Node module or global', (subpath) => {
    const { files, external, globals } = closure(sourceOf(subpath));
    expect(files.length).toBeGreaterThan(0);
    expect(external.filter((s) => !PORTABLE_PACKAGES.has(s))).toEqual([]);
    expect(globals).toEqual([]);
  });

  it.each(NODE_ONLY)('%s is listed as Node-only because it does need Node', (subpath) => {
    const { external, globals } = closure(sourceOf(subpath));
    expect([...external.filter((s) => s.startsWith('node:')), ...globals].length).toBeGreaterThan(0);
  });

  it('covers every export of the package', () => {
    expect(
      Object.keys(client.exports)
        .filter((k) => k !== './package.json')
        .sort(),
    ).toEqual([...PORTABLE, ...NODE_ONLY].sort());
  });
});
