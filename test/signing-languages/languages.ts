// The partner signers of examples/signing/<language>/ as child processes: the one table of how
// each is started, the toolchain probe, the one-off build (Go) and the start-up measurement the
// timeouts of test/signing-languages/suite.ts are derived from. Every program has the same
// command line (examples/signing/README.md): `vectors FILE`, `request METHOD TARGET [BODY]`,
// `verify-webhook SECRET SIGNATURE < body`.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../../scripts/contract.ts';
import { loadVectors } from '../protocol/vectors.ts';

export type LanguageName = 'python' | 'php' | 'ruby' | 'shell' | 'go' | 'java';

interface Language {
  /** The folder under examples/signing/ (must exist). */
  folder: string;
  /** Commands whose success proves the toolchain is there; their first output line is reported. */
  toolchain: string[][];
  /** Builds once, in a temporary directory, before the runs (Go). */
  build?: (out: string) => { argv: string[]; cwd: string; program: string };
  /** How the program is started, from the repository root. */
  argv: string[];
}

export const LANGUAGES: Record<LanguageName, Language> = {
  python: {
    folder: 'examples/signing/python',
    toolchain: [['python3', '--version']],
    argv: ['python3', 'examples/signing/python/domain_sales_signing.py'],
  },
  php: {
    folder: 'examples/signing/php',
    toolchain: [['php', '--version']],
    argv: ['php', 'examples/signing/php/domain_sales_signing.php'],
  },
  ruby: {
    folder: 'examples/signing/ruby',
    toolchain: [['ruby', '--version']],
    argv: ['ruby', 'examples/signing/ruby/domain_sales_signing.rb'],
  },
  shell: {
    folder: 'examples/signing/shell',
    toolchain: [
      ['bash', '--version'],
      ['openssl', 'version'],
      ['curl', '--version'],
    ],
    argv: ['bash', 'examples/signing/shell/sign.sh'],
  },
  go: {
    folder: 'examples/signing/go',
    toolchain: [['go', 'version']],
    // `go run .` in the folder (its own go.mod, standard library only) compiles on every run:
    // build once instead, as a partner would.
    build: (out) => ({
      argv: ['go', 'build', '-o', join(out, 'domain-sales-signing'), '.'],
      cwd: join(ROOT, 'examples/signing/go'),
      program: join(out, 'domain-sales-signing'),
    }),
    argv: [],
  },
  java: {
    folder: 'examples/signing/java',
    toolchain: [['java', '-version']],
    // Single-file source launch (Java 11+): compiled in memory on each run, about a second.
    argv: ['java', 'examples/signing/java/DomainSalesSigning.java'],
  },
};

/** Languages a developer may leave out locally (never in CI): SIGNING_LANGUAGES_OPTIONAL=php,ruby or =all. */
export const OPT_OUT_VARIABLE = 'SIGNING_LANGUAGES_OPTIONAL';

export function optedOut(name: LanguageName): boolean {
  if (process.env.CI) return false;
  const list = (process.env[OPT_OUT_VARIABLE] ?? '').split(',').map((s) => s.trim());
  return list.includes(name) || list.includes('all');
}

export interface Run {
  code: number | null;
  stdout: Buffer;
  stderr: string;
  ms: number;
}

/** Runs `argv` from the repository root, feeding `stdin`; rejects only when it outlives `timeoutMs`. */
export function runProcess(
  argv: string[],
  options: { env?: Record<string, string>; stdin?: Buffer | string; timeoutMs: number; cwd?: string },
): Promise<Run> {
  const [command, ...args] = argv;
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command!, args, {
      cwd: options.cwd ?? ROOT,
      env: { ...process.env, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${argv.join(' ')} did not finish within ${Math.round(options.timeoutMs)} ms`));
    }, options.timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({
        code,
        stdout: Buffer.concat(out),
        stderr: Buffer.concat(err).toString('utf8'),
        ms: performance.now() - started,
      });
    });
    child.stdin.on('error', () => undefined); // a program that never reads its stdin
    child.stdin.end(options.stdin ?? '');
  });
}

export interface Ready {
  argv: string[];
  /** The toolchain's own version line(s), for the report. */
  version: string;
  /** Wall time of the program computing one vector of each kind: start-up plus a little work. */
  startupMs: number;
  /** Number of vector cases of the full run, to scale the start-up measurement. */
  cases: number;
  /** The folder of the build and of the start-up vectors; the suite removes it when done. */
  workDir: string;
}

/** One case of each kind, for the start-up measurement. */
function miniVectors(dir: string): string {
  const v = loadVectors();
  const file = join(dir, 'mini-signing.json');
  writeFileSync(
    file,
    JSON.stringify(
      {
        canonical_query: v.canonical_query.slice(0, 1),
        invalid_query: (v.invalid_query ?? []).slice(0, 1),
        signatures: v.signatures.slice(0, 1),
        webhooks: v.webhooks.slice(0, 1),
      },
      null,
      2,
    ),
  );
  return file;
}

/**
 * Checks the toolchain and the folder, builds if needed, and measures start-up. Throws with a
 * message that says what is missing and how to install it or opt out.
 */
export async function prepare(name: LanguageName): Promise<Ready> {
  const lang = LANGUAGES[name];
  const versions: string[] = [];
  for (const [command, ...args] of lang.toolchain) {
    const probe = spawnSync(command!, args, { encoding: 'utf8' });
    if (probe.error || probe.status !== 0) {
      throw new Error(
        `${name}: the toolchain command \`${command}\` is missing or broken (${probe.error?.message ?? `exit ${probe.status}`}). ` +
          `.ci/run installs it from Debian's packages; locally install it, or opt out explicitly with ${OPT_OUT_VARIABLE}=${name}.`,
      );
    }
    versions.push(`${probe.stdout}${probe.stderr}`.trim().split('\n')[0]!.split(' ').slice(0, 3).join(' '));
  }
  if (!existsSync(join(ROOT, lang.folder))) {
    throw new Error(`${name}: ${lang.folder} is missing; the signer of this language has not been written.`);
  }
  const dir = mkdtempSync(join(tmpdir(), `signing-${name}-`));
  try {
    return { ...(await built(name, dir)), version: versions.join('; '), workDir: dir };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** Builds the program in `dir` where its language needs it, then measures its start-up. */
async function built(name: LanguageName, dir: string): Promise<Pick<Ready, 'argv' | 'startupMs' | 'cases'>> {
  const lang = LANGUAGES[name];
  let argv = lang.argv;
  if (lang.build) {
    const build = lang.build(dir);
    // A ceiling, not a wait: a cold Go build cache on a busy machine takes minutes.
    const run = await runProcess(build.argv, { cwd: build.cwd, timeoutMs: 600_000 });
    if (run.code !== 0) throw new Error(`${name}: \`${build.argv.join(' ')}\` failed:\n${run.stderr}`);
    argv = [build.program];
  }
  const v = loadVectors();
  const cases = v.canonical_query.length + (v.invalid_query ?? []).length + v.signatures.length + v.webhooks.length;
  // The first run also warms file caches: measure the second.
  let startupMs = 0;
  for (let i = 0; i < 2; i++) {
    const run = await runProcess([...argv, 'vectors', miniVectors(dir)], { timeoutMs: 600_000 });
    if (run.code !== 0) throw new Error(`${name}: \`vectors\` on four cases exited ${run.code}:\n${run.stderr}`);
    startupMs = run.ms;
  }
  return { argv, startupMs, cases };
}
