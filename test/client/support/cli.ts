// Runs the partner CLI as a child process, the way a partner runs it: `node` with tsx loaded
// (one process, so SIGINT reaches the CLI itself), from the repository root.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const ENTRY = 'client/cli/main.ts';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** An environment without the caller's partner settings, plus `env`. */
export function cliEnv(env: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['SERVICE_KEY_ID', 'SERVICE_SECRET', 'SERVICE_BASE_URL', 'WEBHOOK_SECRET']) delete base[name];
  for (const [k, v] of Object.entries(env)) if (v !== undefined) base[k] = v;
  return base;
}

export function startCli(args: string[], env: Record<string, string | undefined> = {}): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, ['--import', 'tsx', ENTRY, ...args], { cwd: ROOT, env: cliEnv(env) });
}

/** Runs the CLI to its end, with `stdin` as its standard input. */
export function runCli(
  args: string[],
  env: Record<string, string | undefined> = {},
  stdin?: string | Buffer,
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = startCli(args, env);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin ?? '');
  });
}

/** A long-running CLI (listen): its output so far, a wait for a line, and Ctrl-C. */
export interface RunningCli {
  output(): { stdout: string; stderr: string };
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** SIGINT (a Ctrl-C) by default, or SIGTERM (a supervisor's stop). */
  interrupt(signal?: 'SIGINT' | 'SIGTERM'): Promise<CliRun>;
  kill(): void;
}

export function runningCli(args: string[], env: Record<string, string | undefined> = {}): RunningCli {
  const child = startCli(args, env);
  let stdout = '';
  let stderr = '';
  const listeners = new Set<() => void>();
  const notify = () => listeners.forEach((l) => l());
  child.stdout.on('data', (c: Buffer) => ((stdout += c.toString()), notify()));
  child.stderr.on('data', (c: Buffer) => ((stderr += c.toString()), notify()));
  const closed = new Promise<number | null>((resolve) => child.on('close', (code) => (notify(), resolve(code))));
  return {
    output: () => ({ stdout, stderr }),
    waitForOutput(pattern, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (pattern.test(stdout + stderr)) {
            cleanup();
            resolve();
          } else if (child.exitCode !== null) {
            cleanup();
            reject(new Error(`the CLI exited (${child.exitCode}) before printing ${pattern}:\n${stdout}\n${stderr}`));
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`timed out waiting for ${pattern}; output so far:\n${stdout}\n${stderr}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        check();
      });
    },
    async interrupt(signal: 'SIGINT' | 'SIGTERM' = 'SIGINT') {
      child.kill(signal);
      const code = await closed;
      return { code, stdout, stderr };
    },
    kill() {
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}
