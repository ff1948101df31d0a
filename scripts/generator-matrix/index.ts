// The generator matrix (issue 32): clients generated from the bundled documents
// (generated/{public,partner}.openapi.json) by the generators partners use, each type-checked
// under `tsc --strict`. test/contract/generators.test.ts runs it and then calls a live sandbox
// with every generated client (partner calls signed through the client package's
// createPartnerFetch). `npx tsx scripts/generator-matrix/index.ts [OUT]` generates and
// type-checks alone and prints the table.
//
// hey-api and orval need Node >= 22.18 (their `engines`); the project runs on Node 20, so their
// CLIs run on the Node 22 binary of the devDependency `node` (node_modules/node/bin/node), the
// one the MCP interop tests use. openapi-zod-client runs on Node 20.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../contract.ts';

const run = promisify(execFile);
const NODE22 = join(ROOT, 'node_modules', 'node', 'bin', 'node');
const require = createRequire(join(ROOT, 'package.json'));

export const SURFACES = ['public', 'partner'] as const;
export type Surface = (typeof SURFACES)[number];
const documentOf = (surface: Surface) => join(ROOT, 'generated', `${surface}.openapi.json`);

export type GeneratorName = 'hey-api' | 'orval' | 'openapi-zod-client';

export interface Generator {
  name: GeneratorName;
  /** The npm package (a pinned devDependency). */
  pkg: string;
  /** What is generated, in a few words (the README's table). */
  output: string;
  /** Writes the client of both documents into `dir` (`dir/<surface>…`). */
  generate(dir: string): Promise<void>;
  /**
   * Constructs of the documents this generator does not express, with the reason; empty when it
   * handles them all. Each is also met in the test (a construct listed here is not called).
   */
  listed: Array<{ construct: string; reason: string }>;
}

/** The installed version of a package, from its package.json. */
export function versionOf(pkg: string): string {
  return (JSON.parse(readFileSync(require.resolve(`${pkg}/package.json`), 'utf8')) as { version: string }).version;
}

async function node22(script: string, args: string[], cwd: string): Promise<void> {
  if (!existsSync(NODE22)) throw new Error(`Node 22 is missing at ${NODE22} (the devDependency "node"): run npm ci`);
  await run(NODE22, [script, ...args], { cwd, maxBuffer: 32 * 1024 * 1024 });
}

/** Writes a module file whose default export is `value` (the generators' config files). */
const configModule = (value: unknown) => `export default ${JSON.stringify(value, null, 2)};\n`;

const heyApi: Generator = {
  name: 'hey-api',
  pkg: '@hey-api/openapi-ts',
  output: 'SDK functions on its fetch client, types, zod schemas; the SDK validates every answer with them',
  async generate(dir) {
    const config = join(dir, 'openapi-ts.config.mjs');
    await writeFile(
      config,
      configModule(
        SURFACES.map((surface) => ({
          input: documentOf(surface),
          output: join(dir, surface),
          plugins: [
            '@hey-api/client-fetch',
            '@hey-api/typescript',
            // Responses are parsed with the generated zod schemas before the call returns.
            { name: '@hey-api/sdk', validator: true },
            'zod',
          ],
        })),
      ),
    );
    await node22(
      require.resolve('@hey-api/openapi-ts/package.json').replace(/package\.json$/, 'bin/run.js'),
      ['-f', config, '--no-log-file'],
      dir,
    );
  },
  listed: [],
};

const orval: Generator = {
  name: 'orval',
  pkg: 'orval',
  output:
    'one fetch function per operation with typed parameters and answers, over a mutator (scripts/generator-matrix/orval-fetch.ts)',
  async generate(dir) {
    const mutator = join(ROOT, 'scripts', 'generator-matrix', 'orval-fetch.ts');
    const config = join(dir, 'orval.config.mjs');
    await writeFile(
      config,
      configModule(
        Object.fromEntries(
          SURFACES.map((surface) => [
            surface,
            {
              input: { target: documentOf(surface) },
              output: {
                target: join(dir, `${surface}.ts`),
                client: 'fetch',
                mode: 'single',
                override: { mutator: { path: mutator, name: 'orvalFetch' } },
              },
            },
          ]),
        ),
      ),
    );
    await node22(
      require.resolve('orval/package.json').replace(/package\.json$/, 'dist/bin/orval.mjs'),
      ['-c', config, '--quiet'],
      dir,
    );
  },
  listed: [],
};

const zodClient: Generator = {
  name: 'openapi-zod-client',
  pkg: 'openapi-zod-client',
  output: 'zod schemas and a Zodios (axios) client that validates every answer',
  async generate(dir) {
    const cli = require.resolve('openapi-zod-client/package.json').replace(/package\.json$/, 'bin.js');
    await Promise.all(
      SURFACES.map((surface) =>
        run(process.execPath, [cli, documentOf(surface), '-o', join(dir, `${surface}.ts`), '--export-schemas'], {
          cwd: dir,
          maxBuffer: 32 * 1024 * 1024,
        }),
      ),
    );
    // The generated client runs on the runtime openapi-zod-client itself depends on (@zodios/core
    // 10 with zod 3; the project's own zod is 4): linked beside the output, found wherever npm put it.
    const own = createRequire(require.resolve('openapi-zod-client/package.json'));
    const links: Record<string, string> = {
      '@zodios/core': dirname(own.resolve('@zodios/core/package.json')),
      zod: dirname(createRequire(own.resolve('@zodios/core/package.json')).resolve('zod/package.json')),
      axios: dirname(own.resolve('axios/package.json')),
    };
    await mkdir(join(dir, 'node_modules', '@zodios'), { recursive: true });
    for (const [name, target] of Object.entries(links)) await symlink(target, join(dir, 'node_modules', name), 'dir');
  },
  listed: [],
};

export const GENERATORS: Generator[] = [heyApi, orval, zodClient];

export interface TypecheckResult {
  /** tsc's error lines, by generator. */
  errors: Record<GeneratorName, string[]>;
  ms: number;
}

/**
 * Type-checks every generator's output at once under `strict` (one tsc run: the start-up is the
 * dearest part), and attributes each error line to the generator whose folder it is in.
 */
export async function typecheck(dir: string): Promise<TypecheckResult> {
  await writeFile(
    join(dir, 'tsconfig.json'),
    JSON.stringify(
      {
        compilerOptions: {
          strict: true,
          noEmit: true,
          target: 'ES2022',
          module: 'ESNext',
          moduleResolution: 'Bundler',
          lib: ['ES2023', 'DOM', 'DOM.Iterable'],
          types: [],
          // orval imports its mutator by its own file name (orval-fetch.ts).
          allowImportingTsExtensions: true,
          // Libraries' own declarations are theirs; the generated code is what is checked.
          skipLibCheck: true,
        },
        include: GENERATORS.map((g) => `${g.name}/**/*.ts`),
        exclude: ['**/node_modules'],
      },
      null,
      2,
    ),
  );
  const started = performance.now();
  let output = '';
  try {
    await run(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(dir, 'tsconfig.json')], {
      cwd: dir,
      maxBuffer: 32 * 1024 * 1024,
    });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    output = `${e.stdout ?? ''}${e.stderr ?? ''}`;
    if (!output.trim()) throw err;
  }
  const errors = Object.fromEntries(GENERATORS.map((g) => [g.name, [] as string[]])) as Record<GeneratorName, string[]>;
  for (const line of output.split('\n').filter((l) => /error TS\d+/.test(l))) {
    const owner = GENERATORS.find((g) => line.startsWith(`${g.name}/`) || line.includes(`/${g.name}/`));
    (owner ? errors[owner.name] : (errors['hey-api'] ??= [])).push(line);
  }
  return { errors, ms: performance.now() - started };
}

/** Generates every client into `dir/<generator>/` (in parallel); the time each took. */
export async function generateAll(dir: string): Promise<Record<GeneratorName, number>> {
  const times = {} as Record<GeneratorName, number>;
  await Promise.all(
    GENERATORS.map(async (g) => {
      const out = join(dir, g.name);
      await rm(out, { recursive: true, force: true });
      await mkdir(out, { recursive: true });
      const started = performance.now();
      try {
        await g.generate(out);
      } catch (err) {
        const e = err as { stderr?: string; stdout?: string; message: string };
        throw new Error(
          `${g.name} could not generate: ${e.message}\n${e.stderr ?? ''}${e.stdout ?? ''}`.slice(0, 4000),
          {
            cause: err,
          },
        );
      }
      times[g.name] = performance.now() - started;
    }),
  );
  return times;
}

/** Where a generator's client of one surface is, for `import()`. */
export function entryOf(dir: string, generator: GeneratorName, surface: Surface): string {
  return generator === 'hey-api' ? join(dir, generator, surface, 'index.ts') : join(dir, generator, `${surface}.ts`);
}

async function main(): Promise<void> {
  const dir = process.argv[2] ?? join(ROOT, '.tmp', 'generator-matrix');
  await mkdir(dir, { recursive: true });
  const times = await generateAll(dir);
  const checked = await typecheck(dir);
  for (const g of GENERATORS) {
    const errors = checked.errors[g.name];
    console.log(
      `${g.name} ${versionOf(g.pkg)}: generated in ${(times[g.name] / 1000).toFixed(1)} s; tsc --strict: ${errors.length === 0 ? 'clean' : `${errors.length} errors`}`,
    );
    for (const line of errors.slice(0, 20)) console.log(`  ${line}`);
  }
  console.log(`(tsc over all three: ${(checked.ms / 1000).toFixed(1)} s; output in ${relative(ROOT, dir) || dir})`);
  if (Object.values(checked.errors).some((e) => e.length > 0)) process.exitCode = 1;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'))) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : err);
    process.exit(1);
  });
}
