// npm run build [-- client server …]: compiles the workspace packages to their dist/ folders with
// tsc (ESM + .d.ts) and copies the files they read at run time, and the repository's LICENSE
// into each package folder (npm packs a package folder's LICENSE whatever its `files` say).
// Development runs from source through tsx; only the published packages run this output. Each
// package's `prepack` runs this for its own folder, so `npm pack` and `npm publish` never ship a
// package without its dist/ (or with a stale one).
//
// Layout: the client compiles its own folder (dist/ mirrors client/). The sandbox (server/) and
// the conformance kit use the signing protocol of client/ by relative import and read the
// bundled documents from generated/ by path; they are compiled with the repository root as their
// root, so dist/ mirrors the repository (dist/server/…, dist/client/protocol/…,
// dist/generated/…), and every relative import and path in the sources holds unchanged in the
// package. The documents and guides they read are copied to the same relative places.
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GUIDES, SIGNING_VECTORS_FILE } from '../server/docs/catalog.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const tsc = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');

const files = (dir: string, pattern: RegExp) =>
  readdirSync(join(ROOT, dir))
    .filter((f) => pattern.test(f))
    .map((f) => join(dir, f));

/** Copies repository-relative paths into a package's dist/, at the same relative place. */
function copyInto(pkg: string, paths: string[]): void {
  for (const path of paths) cpSync(join(ROOT, path), join(ROOT, pkg, 'dist', path));
}

function compile(pkg: string): void {
  rmSync(join(ROOT, pkg, 'dist'), { recursive: true, force: true });
  execFileSync(process.execPath, [tsc, '-p', join(pkg, 'tsconfig.build.json')], { cwd: ROOT, stdio: 'inherit' });
}

const DOCUMENTS = files('generated', /\.openapi\.json$/);
const TYPES = files('generated', /\.d\.ts$/);

export const PACKAGES: Record<string, () => void> = {
  generated() {
    // @domain-sales/contract: nothing to compile; the signing vectors join the documents.
    execFileSync(process.execPath, [join(ROOT, 'scripts', 'copy-contract-vectors.mjs')], { stdio: 'inherit' });
  },
  client() {
    compile('client');
    const bin = join(ROOT, 'client', 'dist', 'cli', 'main.js');
    if (existsSync(bin)) chmodSync(bin, 0o755);
  },
  conformance() {
    compile('conformance');
    copyInto('conformance', [
      ...DOCUMENTS,
      'conformance/bundle/replay.mjs',
      'conformance/bundle/replay.d.mts',
      'conformance/bundle/transport.mjs',
      'conformance/bundle/transport.d.mts',
    ]);
  },
  server() {
    compile('server');
    copyInto('server', [
      ...DOCUMENTS,
      ...TYPES,
      ...GUIDES.map((g) => g.file),
      SIGNING_VECTORS_FILE,
      'server/rdap/bootstrap-dns.json',
      ...files('server/search/relevance', /\.json$/),
      // Read at start by server/search/neighbours.ts, beside the compiled module.
      'server/search/word-neighbours.txt',
      'server/search/word-neighbours.LICENSE.md',
    ]);
    chmodSync(join(ROOT, 'server', 'dist', 'server', 'sandbox.js'), 0o755);
  },
};

const wanted = process.argv.slice(2);
for (const name of wanted.length ? wanted : Object.keys(PACKAGES)) {
  const build = PACKAGES[name];
  if (!build) throw new Error(`no package folder "${name}" (one of ${Object.keys(PACKAGES).join(', ')})`);
  const started = Date.now();
  build();
  // Git-ignored copies: the one LICENSE is the repository root's.
  cpSync(join(ROOT, 'LICENSE'), join(ROOT, name, 'LICENSE'));
  console.log(`built ${name}/ in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
