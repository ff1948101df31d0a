// Child processes of the benchmarks and drills: the reference server (scripts/bench/serve.ts)
// and the bare node:http server, each in a process of its own so that the load generator never
// shares a core's event loop with what it measures.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { track } from './children.ts';

export const ROOT = join(fileURLToPath(import.meta.url), '../../../..');
export const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';

export interface Child {
  url: string;
  child: ChildProcess;
  /** Everything the child wrote on stderr (bounded), for a failure message. */
  output(): string;
  /** SIGTERM and wait for the exit. */
  stop(): Promise<void>;
  /** SIGKILL and wait for the exit: the crash of the drills. */
  kill(): Promise<void>;
}

export interface ServerEnv {
  dataDir?: string;
  /** PostgreSQL (a fresh database per run: lib/postgres.ts); absent means SQLite in dataDir. */
  databaseUrl?: string;
  masterKey?: string;
  validateResponses?: boolean;
  inventorySize?: number;
  backoffScale?: number;
  webhookTimeoutMs?: number;
  extra?: Record<string, string>;
}

/** `node --import tsx <script>`; resolves on the child's `READY <url>` line. */
export function spawnReady(script: string, env: Record<string, string>, nodeArgs: string[] = []): Promise<Child> {
  const child = track(
    spawn(process.execPath, [...nodeArgs, '--import', 'tsx', join(ROOT, script)], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-20_000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ended = () => child.exitCode !== null || child.signalCode !== null;
  const signal = async (name: NodeJS.Signals) => {
    if (!ended()) child.kill(name);
    await exited;
  };
  return new Promise((resolve, reject) => {
    let stdout = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const m = /READY (\S+)/.exec(stdout);
      if (m) {
        stdout = '';
        resolve({
          url: m[1] as string,
          child,
          output: () => stderr,
          stop: () => signal('SIGTERM'),
          kill: () => signal('SIGKILL'),
        });
      }
    });
    child.once('exit', (code, sig) =>
      reject(new Error(`${script} exited (${code ?? sig}) before it was ready:\n${stderr.slice(-3000)}`)),
    );
  });
}

// Every folder made here holds a server's data (an orders leg's: 176 MB) and is removed when this
// process exits, at its end, through process.exit or on a signal (children.ts): one session's
// bench runs had left 2.7 GB of them in the temporary folder.
const made: string[] = [];
process.on('exit', () => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A new folder in the temporary folder, removed when this process exits. */
export const tempDir = (label: string) => {
  const dir = mkdtempSync(join(tmpdir(), `${label}-`));
  made.push(dir);
  return dir;
};
export const newMasterKey = () => randomBytes(32).toString('hex');

/** A reference server child. */
export function spawnServer(e: ServerEnv, nodeArgs: string[] = []): Promise<Child> {
  const env: Record<string, string> = {
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: e.dataDir ?? tempDir('srv'),
    ADMIN_TOKEN,
    MASTER_KEY: e.masterKey ?? newMasterKey(),
    VALIDATE_RESPONSES: e.validateResponses === false ? 'false' : 'true',
    SANDBOX_INVENTORY_SIZE: String(e.inventorySize ?? 2000),
    WEBHOOK_BACKOFF_SCALE: String(e.backoffScale ?? 1),
    WEBHOOK_TIMEOUT_MS: String(e.webhookTimeoutMs ?? 5000),
    SERVE_QUIET: '1',
    DATABASE_URL: e.databaseUrl ?? '',
    ...e.extra,
  };
  return spawnReady('scripts/bench/serve.ts', env, nodeArgs);
}

/** Express 5 + express-openapi-validator answering the same JSON (scripts/bench/floor.ts). */
export function spawnFloor(body: string): Promise<Child> {
  return spawnReady('scripts/bench/floor.ts', { BARE_BODY: body });
}

/**
 * The stack alone plus the partner document's required work on a signed GET (scripts/bench/minimum.ts),
 * its store in `dataDir`; `signature`: that work up to the signature only.
 */
export function spawnMinimum(body: string, dataDir: string, upTo?: 'signature'): Promise<Child> {
  return spawnReady('scripts/bench/minimum.ts', {
    BARE_BODY: body,
    DATA_DIR: dataDir,
    ...(upTo ? { REQUIRED: upTo } : {}),
  });
}

export function spawnBare(body: string): Promise<Child> {
  return spawnReady('scripts/bench/bare.ts', { BARE_BODY: body });
}
