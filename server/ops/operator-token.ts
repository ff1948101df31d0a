// The sandbox's operator token: ADMIN_TOKEN when set, else one generated on the first start and
// kept in the data directory.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeDataDir } from '../store/data-dir.ts';
import type { OperatorToken } from './banner.ts';

const TOKEN_FILE = 'admin-token';

/**
 * 24 random bytes in hex. Not base64url: one token in 64 would begin with `-`, and every CLI that
 * takes it as a separate argument (`--admin-token TOKEN`, the README's form) would read it as an
 * option (Node's parseArgs refuses it as ambiguous).
 */
export const newOperatorToken = () => randomBytes(24).toString('hex');

/**
 * ADMIN_TOKEN when set; otherwise one generated on the first start and kept in the data directory
 * (mode 0600), so credentials minted with it keep working after a restart. It is printed only
 * when generated (source `generated`), that one time.
 */
export function operatorToken(env: NodeJS.ProcessEnv, dataDir: string): Exclude<OperatorToken, { source: 'none' }> {
  if (env.ADMIN_TOKEN) return { token: env.ADMIN_TOKEN, source: 'env' };
  const file = join(dataDir, TOKEN_FILE);
  if (existsSync(file)) return { token: readFileSync(file, 'utf8').trim(), source: 'file', file };
  makeDataDir(dataDir);
  const token = newOperatorToken();
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  return { token, source: 'generated', file };
}
