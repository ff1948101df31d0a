// Third-party MCP tools run as child processes against a real reference server: the Node 22
// they may need (the devDependency `node`, whose binary stays in node_modules/node), a server
// whose rate-limit windows pass quickly, and a bounded child-process runner.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { configFromEnv } from '../../server/config.ts';
import { startServer, type RunningServer } from '../../server/embedded.ts';
import { startTestServer, type TestServer } from '../bulk/support.ts';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The Node 22 binary of the devDependency `node`, or undefined (said loudly) when it is missing. */
export function node22(purpose: string): string | undefined {
  const binary = join(ROOT, 'node_modules', 'node', 'bin', 'node');
  if (!existsSync(binary)) {
    console.warn(
      `*** ${purpose} SKIPPED: node_modules/node/bin/node (the devDependency node@22) is not installed; run npm ci ***`,
    );
    return undefined;
  }
  return binary;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `file args` to its end (at most `timeoutMs`) and answers its exit code and output. */
export function run(
  file: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {},
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      {
        cwd: options.cwd ?? ROOT,
        env: options.env ?? process.env,
        timeout: options.timeoutMs ?? 60_000,
        maxBuffer: 32 * 1024 * 1024,
      },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        if (err && typeof err.code !== 'number')
          return reject(new Error(`${file} ${args.join(' ')} did not finish: ${err.message}\n${stderr}`));
        resolve({ code, stdout, stderr });
      },
    );
  });
}

export interface InteropServer extends RunningServer {
  close(): Promise<void>;
}

/**
 * A reference server started as `npm start` starts it (no PUBLIC_BASE_URL, loopback), whose
 * clock runs `speed` times faster than real time: a suite of third-party scenarios sends more
 * requests from one address than the public rate limit lets through in a minute, and the rate
 * limit is not what they test. Nothing else these tools touch depends on the clock.
 */
export async function startInteropServer(speed = 1): Promise<InteropServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mcp-interop-'));
  const config = configFromEnv({ DATA_DIR: dataDir, PORT: '0', SANDBOX_INVENTORY_SIZE: '100' });
  const start = Date.now();
  const running = await startServer({
    config,
    clock: { now: () => start + (Date.now() - start) * speed },
    log: () => {},
  });
  return {
    ...running,
    async close() {
      await running.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The reference server with the sandbox user (for tokens) and the first domain it lists for
 * sale, started before the file's tests and stopped after them.
 */
export function sharedServerWithListing(): { readonly server: TestServer; readonly listed: string } {
  const state: { server?: TestServer; listed?: string } = {};
  beforeAll(async () => {
    state.server = await startTestServer();
    const page = (await (await fetch(`${state.server.url}/api/market/listings?limit=1`)).json()) as {
      data: Array<{ domain: string }>;
    };
    state.listed = page.data[0]?.domain;
    if (!state.listed) throw new Error('the sandbox lists no domain for sale');
  });
  afterAll(async () => {
    await state.server?.close();
  });
  return {
    get server() {
      if (!state.server) throw new Error('the server is not started yet (use it inside a test)');
      return state.server;
    },
    get listed() {
      return state.listed as string;
    },
  };
}
