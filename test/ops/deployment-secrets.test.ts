// A shared deployment (PUBLIC_BASE_URL https) refuses to start with a guessable operator token
// (an example of the README, or shorter than 32 characters) or with the sandbox user's documented
// password (README "Deploying safely"): the real process, started as `npm start` starts it, exits
// non-zero with one stderr line naming the setting and what to do, and never the secret itself.
// A plain-http loopback server keeps starting with them, with a warning line.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, measureStartup } from '../support/startup.ts';

const timing = await measureStartup();
const STRONG_TOKEN = 'operator-token-long-and-random-0123456789abcdef';
const STRONG_PASSWORD = 'a-secret-sandbox-password-for-tests';
const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

interface Outcome {
  /** The exit code, or 'listening' when the server started (then stopped by the test). */
  result: number | null | 'listening';
  stderr: string;
  lines: { event?: string; level?: number | string; msg?: string }[];
}

/** Starts `node --import tsx server/main.ts` with `extra` in its environment; stops it once listening. */
function start(extra: Record<string, string>): Promise<Outcome> {
  const dataDir = mkdtempSync(join(tmpdir(), 'deployment-secrets-'));
  dirs.push(dataDir);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    SANDBOX_INVENTORY_SIZE: '50',
    LOG_LEVEL: 'info',
    LOG_FORMAT: 'json',
    ...extra,
  };
  for (const name of ['DATABASE_URL', 'METRICS_PORT', 'ADMIN_TOKEN', 'SANDBOX_USER_PASSWORD', 'PUBLIC_BASE_URL'])
    if (!(name in extra)) delete env[name];
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let listening = false;
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    if (!listening && /"event":"listening"/.test(stdout)) {
      listening = true;
      child.kill('SIGKILL');
    }
  });
  return new Promise((resolve) =>
    child.once('close', (code) => {
      const lines = stdout
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Outcome['lines'][number]);
      resolve({ result: listening ? 'listening' : code, stderr, lines });
    }),
  );
}

describe('start-up on a shared (https) deployment', () => {
  const shared = { PUBLIC_BASE_URL: 'https://shared.example.test' };

  it(
    "refuses the README's example operator token and the default sandbox password, naming both",
    async () => {
      const { result, stderr } = await start({ ...shared, ADMIN_TOKEN: 'change-me' });
      expect(result).not.toBe('listening');
      expect(result).not.toBe(0);
      expect(stderr.trim().split('\n')).toHaveLength(1);
      expect(stderr).toMatch(/PUBLIC_BASE_URL is https/);
      expect(stderr).toMatch(/ADMIN_TOKEN is an example value/);
      expect(stderr).toMatch(/SANDBOX_USER_PASSWORD/);
      expect(stderr).not.toContain('change-me');
      expect(stderr).not.toContain('sandbox-password');
    },
    timing.timeout(20),
  );

  it(
    'refuses an operator token shorter than 32 characters without printing it',
    async () => {
      const short = 'short-but-secret-token-31-chars';
      expect(short).toHaveLength(31);
      const { result, stderr } = await start({ ...shared, ADMIN_TOKEN: short, SANDBOX_USER_PASSWORD: STRONG_PASSWORD });
      expect(result).not.toBe('listening');
      expect(result).not.toBe(0);
      expect(stderr).toMatch(/ADMIN_TOKEN is shorter than 32 characters/);
      expect(stderr).not.toMatch(/SANDBOX_USER_PASSWORD/);
      expect(stderr).not.toContain(short);
    },
    timing.timeout(20),
  );

  it(
    'refuses the default sandbox password even with a strong operator token, or none',
    async () => {
      for (const token of [{ ADMIN_TOKEN: STRONG_TOKEN }, {}] as Record<string, string>[]) {
        const { result, stderr } = await start({ ...shared, ...token });
        expect(result).not.toBe('listening');
        expect(result).not.toBe(0);
        expect(stderr).toMatch(/SANDBOX_USER_PASSWORD is unset or the documented default/);
        expect(stderr).not.toMatch(/ADMIN_TOKEN/);
      }
    },
    timing.timeout(30),
  );

  it(
    'starts with a strong operator token and a secret sandbox password',
    async () => {
      const { result, lines } = await start({
        ...shared,
        ADMIN_TOKEN: STRONG_TOKEN,
        SANDBOX_USER_PASSWORD: STRONG_PASSWORD,
      });
      expect(result).toBe('listening');
      expect(lines.some((l) => l.event === 'weak_secrets')).toBe(false);
    },
    timing.timeout(30),
  );
});

describe('start-up on a plain-http loopback server (`ADMIN_TOKEN=change-me npm start`)', () => {
  it(
    'starts as before, with one warning line naming the weak settings',
    async () => {
      const { result, lines, stderr } = await start({ ADMIN_TOKEN: 'change-me' });
      expect(result, stderr).toBe('listening');
      const warnings = lines.filter((l) => l.event === 'weak_secrets');
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.msg).toMatch(/ADMIN_TOKEN.*SANDBOX_USER_PASSWORD/);
      expect(JSON.stringify(warnings[0])).not.toContain('change-me');
    },
    timing.timeout(30),
  );
});
