import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { newOperatorToken, operatorToken } from '../../server/ops/operator-token.ts';

describe("the sandbox's generated operator token", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('is taken as a separate argument by a CLI (`--admin-token TOKEN`), whatever its first character', () => {
    // base64url would begin with `-` once in 64 draws: over 4,000 draws that is all but certain.
    for (let i = 0; i < 4_000; i++) {
      const token = newOperatorToken();
      const { values } = parseArgs({ args: ['--admin-token', token], options: { 'admin-token': { type: 'string' } } });
      expect(values['admin-token']).toBe(token);
    }
  });

  it('carries 192 bits and is kept in the data directory (0600) for the next start', () => {
    const dir = mkdtempSync(join(tmpdir(), 'operator-token-'));
    dirs.push(dir);
    const first = operatorToken({}, dir);
    expect(first.source).toBe('generated');
    expect(first.token).toMatch(/^[0-9a-f]{48}$/);
    const file = join(dir, 'admin-token');
    expect(readFileSync(file, 'utf8')).toBe(`${first.token}\n`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(operatorToken({}, dir)).toEqual({ token: first.token, source: 'file', file });
    expect(operatorToken({ ADMIN_TOKEN: 'from-env' }, dir)).toEqual({ token: 'from-env', source: 'env' });
  });
});
