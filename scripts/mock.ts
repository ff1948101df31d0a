// npm run mock [-- -d --seed 42]   Prism mocks of the partner (port 4010) and public (port 4011)
// documents of generated/, until Ctrl-C. Extra arguments go to both `prism mock` processes
// (`-d` dynamic answers generated from the schemas, `--seed N` to make them repeatable,
// `--errors` to answer request violations with an error). One alone: npm run mock:partner / mock:public.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ROOT } from './contract.ts';

export const MOCK_PORTS = { partner: 4010, public: 4011 } as const;
const PRISM = join(ROOT, 'node_modules', '.bin', 'prism');

/**
 * The document Prism serves. In dynamic mode json-schema-faker 0.5 (inside Prism 5.14) crashes
 * on a string with both `format: date-time` and a `pattern` (it generates from the pattern, then
 * parses the result as a date: our Timestamp is `pattern: Z$`), and answers a `format: uri` with
 * a `pattern` with text that is no URI. Dynamic mode therefore gets a copy without the patterns
 * of formatted strings; the generated values still match their format. Static mode serves the
 * generated document as it is.
 */
export function mockDocument(api: 'partner' | 'public', dynamic: boolean): string {
  const path = join(ROOT, 'generated', `${api}.openapi.json`);
  if (!dynamic) return path;
  const strip = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(strip);
    if (!node || typeof node !== 'object') return node;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) out[k] = strip(v);
    if (typeof out.format === 'string' && typeof out.pattern === 'string') delete out.pattern;
    return out;
  };
  // In a folder of its own, which startPrism removes once Prism has exited.
  const copy = join(mkdtempSync(join(tmpdir(), 'mock-')), `${api}.openapi.json`);
  writeFileSync(copy, JSON.stringify(strip(JSON.parse(readFileSync(path, 'utf8')))));
  return copy;
}

/** A port nothing listens on now (Prism takes a fixed port, not 0). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface RunningPrism {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Runs the Prism CLI with `args` on 127.0.0.1:`port`; resolves once it listens, rejects if it exits first. */
export function spawnPrism(
  args: string[],
  port: number,
  label: string,
  log: (line: string) => void = () => {},
): Promise<RunningPrism> {
  const child = spawn(PRISM, [...args, '--port', String(port), '--host', '127.0.0.1'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      const text = chunk.toString();
      if (output.length < 100_000) output += text;
      for (const line of text.split('\n')) if (line.trim()) log(`[${label}] ${line}`);
      if (/Prism is listening on/.test(output)) resolve({ url, child, stop });
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`prism ${label} exited with ${code}:\n${output.slice(-2000)}`)));
  });
}

/** Starts `prism mock` for one document; resolves once it listens. */
export function startPrism(
  api: 'partner' | 'public',
  port: number,
  extra: string[] = [],
  log: (line: string) => void = () => {},
): Promise<RunningPrism> {
  const dynamic = extra.includes('-d') || extra.includes('--dynamic');
  const document = mockDocument(api, dynamic);
  if (!dynamic) return spawnPrism(['mock', document, ...extra], port, api, log);
  // Prism reads the copy for as long as it runs: removed when it exits, or fails to start.
  const removeCopy = () => rmSync(dirname(document), { recursive: true, force: true });
  return spawnPrism(['mock', document, ...extra], port, api, log).then(
    (running) => {
      if (running.child.exitCode !== null || running.child.signalCode !== null) removeCopy();
      else running.child.once('exit', removeCopy);
      return running;
    },
    (err: unknown) => {
      removeCopy();
      throw err;
    },
  );
}

async function main() {
  const args = process.argv.slice(2);
  const only = args[0] === 'partner' || args[0] === 'public' ? args[0] : undefined;
  const extra = only ? args.slice(1) : args;
  const apis: Array<'partner' | 'public'> = only ? [only] : ['partner', 'public'];
  const running = await Promise.all(
    apis.map((api) => startPrism(api, MOCK_PORTS[api], extra, (line) => console.log(line))),
  );
  console.log(`\n${apis.map((api, i) => `${api} mock: ${running[i]!.url}`).join('   ')}   (Ctrl-C to stop)`);
  const stop = async () => {
    await Promise.all(running.map((r) => r.stop()));
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'))) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
