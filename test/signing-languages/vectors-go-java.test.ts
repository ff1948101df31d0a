// The Go and Java reference signers (examples/signing/go, examples/signing/java) against every case
// of the known-answer vectors, byte for byte. Each program is another language's standard library
// (crypto/hmac, javax.crypto) computing the same strings: the expected values are read from
// spec/vectors/signing.json here, never from our TypeScript protocol module. A missing toolchain
// FAILS (the issue: a language that cannot be installed fails loudly, never skips).
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const VECTORS = join(ROOT, 'spec/vectors/signing.json');

interface Case {
  name: string;
  [field: string]: string;
}
interface Vectors {
  canonical_query: Case[];
  invalid_query: Case[];
  signatures: Case[];
  webhooks: Case[];
}
interface Line {
  kind: string;
  name: string;
  result: string;
}

/** What each line must say, from the vector file alone. */
function expectedLines(doc: Vectors): Line[] {
  return [
    ...doc.canonical_query.map((c) => ({ kind: 'canonical_query', name: c.name, result: c.canonical! })),
    ...doc.invalid_query.map((c) => ({ kind: 'invalid_query', name: c.name, result: 'rejected' })),
    ...doc.signatures.map((c) => ({ kind: 'signature', name: c.name, result: c.signature! })),
    ...doc.webhooks.map((c) => ({ kind: 'webhook', name: c.name, result: c.signature! })),
  ];
}

// Generous bounds for a cold toolchain on a busy machine (a Go build from an empty cache, javac
// in-process); the per-run limit below comes from the measured first run.
const TOOLCHAIN_LIMIT_MS = 300_000;

interface Language {
  name: string;
  /** The command line that runs the program, ready after setup. */
  command: [string, ...string[]];
}

let dir: string;
let doc: Vectors;
let escapedFile: string;
const languages: Language[] = [];
const firstRunMs = new Map<string, number>();
const firstRunOutput = new Map<string, string>();

async function toolchain(binary: string, versionArgs: string[]): Promise<string> {
  try {
    const { stdout, stderr } = await run(binary, versionArgs, { timeout: TOOLCHAIN_LIMIT_MS });
    return (stdout + stderr).split('\n')[0]!;
  } catch (err) {
    throw new Error(
      `*** ${binary} is not usable (${(err as Error).message.split('\n')[0]}): install it (Debian: golang-go, default-jdk-headless; .ci/run does) ***`,
      { cause: err },
    );
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'signing-go-java-'));
  doc = JSON.parse(await readFile(VECTORS, 'utf8')) as Vectors;
  // The same vectors with every non-ASCII character as a \uXXXX escape (astral ones as surrogate
  // pairs), so that each program's JSON reading is tested too, not just its signing.
  escapedFile = join(dir, 'signing-escaped.json');
  await writeFile(
    escapedFile,
    JSON.stringify(doc, null, 1).replace(
      /[\u0080-\uffff]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    ),
  );

  console.info(`go: ${await toolchain('go', ['version'])}`);
  const goBinary = join(dir, 'go-signer');
  await run('go', ['build', '-o', goBinary, './examples/signing/go'], { cwd: ROOT, timeout: TOOLCHAIN_LIMIT_MS });
  languages.push({ name: 'go', command: [goBinary] });

  console.info(`java: ${await toolchain('java', ['-version'])}`);
  // The documented launch, source file and all: what a partner types.
  languages.push({ name: 'java', command: ['java', join(ROOT, 'examples/signing/java/DomainSalesSigning.java')] });

  for (const language of languages) {
    const started = performance.now();
    const [bin, ...args] = language.command;
    const { stdout } = await run(bin, [...args, 'vectors', VECTORS], { cwd: ROOT, timeout: TOOLCHAIN_LIMIT_MS });
    firstRunMs.set(language.name, performance.now() - started);
    firstRunOutput.set(language.name, stdout);
  }
}, TOOLCHAIN_LIMIT_MS * 4);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

function parseLines(stdout: string): Line[] {
  return stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Line);
}

describe.each(['go', 'java'])('the %s reference signer', (name) => {
  it('reproduces every vector: canonical queries, refused queries, request and webhook signatures', () => {
    const got = parseLines(firstRunOutput.get(name)!);
    const want = expectedLines(doc);
    expect(want.length).toBeGreaterThan(100);
    // Case by case, so a failure names the vector.
    const byKey = new Map(got.map((l) => [`${l.kind} / ${l.name}`, l.result]));
    const mismatches = want
      .filter((w) => byKey.get(`${w.kind} / ${w.name}`) !== w.result)
      .map(
        (w) =>
          `${w.kind} / ${w.name}: want ${JSON.stringify(w.result)}, got ${JSON.stringify(byKey.get(`${w.kind} / ${w.name}`))}`,
      );
    expect(mismatches).toEqual([]);
    expect(got).toHaveLength(want.length);
  });

  it(
    'reads the vector file with \\u escapes and surrogate pairs the same way',
    async () => {
      const language = languages.find((l) => l.name === name)!;
      const [bin, ...args] = language.command;
      // A later run is bounded by the measured first one (with room for a busy machine).
      const limit = Math.ceil(Math.max(10_000, firstRunMs.get(name)! * 10));
      const { stdout } = await run(bin, [...args, 'vectors', escapedFile], { cwd: ROOT, timeout: limit });
      expect(parseLines(stdout)).toEqual(expectedLines(doc));
    },
    TOOLCHAIN_LIMIT_MS,
  );
});
