// The seeded sandbox user: created by startServer from SANDBOX_USER_EMAIL / _PASSWORD, signs in
// through the real form, keeps its id across restarts and takes a changed password.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { configFromEnv, DEFAULT_SANDBOX_USER } from '../../server/config.ts';
import { startServer } from '../../server/embedded.ts';
import { ensureSandboxUser } from '../../server/oauth/index.ts';
import { openAuthorize, register, submitForm } from './support.ts';

const REDIRECT = 'http://127.0.0.1:9/cb';
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

describe('sandbox sign-in user', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'oauth-sandbox-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  const start = (password?: string) =>
    startServer({
      config: configFromEnv({
        DATA_DIR: dataDir,
        PORT: '0',
        SANDBOX_INVENTORY_SIZE: '20',
        ...(password ? { SANDBOX_USER_PASSWORD: password } : {}),
      }),
      log: () => {},
    });

  async function signIn(base: string, email: string, password: string): Promise<number> {
    const client = await register(base, { client_name: 'Sandbox', redirect_uris: [REDIRECT] });
    const url = new URL(`${base}/oauth/authorize`);
    for (const [k, v] of Object.entries({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      code_challenge: CHALLENGE,
      code_challenge_method: 'S256',
    }))
      url.searchParams.set(k, v);
    const page = await openAuthorize(url);
    expect(page.status, page.html).toBe(200);
    return (await submitForm(base, page, { email, password, decision: 'approve' })).status;
  }

  it('signs in with the documented default, then with a changed password only, keeping the user id', async () => {
    const first = await start();
    let firstId: string;
    try {
      expect(await signIn(first.url, DEFAULT_SANDBOX_USER.email, DEFAULT_SANDBOX_USER.password)).toBe(303);
      firstId = (await ensureSandboxUser(first.store, DEFAULT_SANDBOX_USER)).userId;
    } finally {
      await first.stop();
    }
    const second = await start('a-new-sandbox-password');
    try {
      expect(await signIn(second.url, DEFAULT_SANDBOX_USER.email, DEFAULT_SANDBOX_USER.password)).toBe(200);
      expect(await signIn(second.url, DEFAULT_SANDBOX_USER.email, 'a-new-sandbox-password')).toBe(303);
      expect(
        (
          await ensureSandboxUser(second.store, {
            email: DEFAULT_SANDBOX_USER.email,
            password: 'a-new-sandbox-password',
          })
        ).userId,
      ).toBe(firstId);
    } finally {
      await second.stop();
    }
  });
});
