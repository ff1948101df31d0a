// The grant races in-process, where the N callers interleave at every await (over HTTP they
// may arrive one after another): exactly one exchange of a code, exactly one rotation of a
// refresh token, and the losers revoke the grant, on both dialects.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../../server/clock.ts';
import { exchangeCode, issueCode, refreshGrant, type GrantDeps } from '../../server/oauth/grants.ts';
import { s256 } from '../../server/oauth/pkce.ts';
import { hashSecret } from '../../server/oauth/secrets.ts';
import { ensureSandboxUser } from '../../server/oauth/users.ts';
import { secretBox } from '../../server/security/secret-box.ts';
import { openDatabase } from '../../server/store/database.ts';
import { createStore, type Store } from '../../server/store/index.ts';
import { databases } from '../server/support/http.ts';

const N = 10;
const VERIFIER = 'v'.repeat(43);
const REDIRECT = 'http://127.0.0.1/cb';

describe.each(databases())('grant races ($name)', ({ databaseUrl }) => {
  let store: Store;
  let deps: GrantDeps;
  let userId: string;
  const clock = manualClock();

  beforeAll(async () => {
    const opened = databaseUrl
      ? await openDatabase({ databaseUrl, schema: `t_${randomBytes(6).toString('hex')}` })
      : await openDatabase({ filename: ':memory:' });
    store = createStore(opened, secretBox(randomBytes(32)));
    deps = { store, key: randomBytes(32), now: () => clock.now() };
    userId = (await ensureSandboxUser(store, { email: 'race@example.com', password: 'pw' })).userId;
    await store.oauth.insertClient({ client_id: 'cli_race', metadata: '{}', created_at: clock.now() });
  });
  afterAll(async () => {
    await store?.close();
  });

  const newCode = () =>
    issueCode(deps, {
      clientId: 'cli_race',
      userId,
      redirectUri: REDIRECT,
      codeChallenge: s256(VERIFIER),
      scope: 'pricing:read',
      resource: 'http://x',
    });
  const exchange = (code: string) =>
    exchangeCode(deps, {
      code,
      clientId: 'cli_race',
      redirectUri: REDIRECT,
      codeVerifier: VERIFIER,
      resource: undefined,
    });
  const accessAlive = async (token: string) =>
    (await store.oauth.findLiveAccessToken(hashSecret(deps.key, 'access', token), clock.now())) !== undefined;

  it('exchanges a code once among N parallel exchanges, and the replays revoke what it issued', async () => {
    const code = await newCode();
    const results = await Promise.all(Array.from({ length: N }, () => exchange(code)));
    const won = results.filter((r) => r.ok);
    expect(won).toHaveLength(1);
    for (const r of results.filter((x) => !x.ok))
      expect(r).toMatchObject({ ok: false, error: { error: 'invalid_grant' } });
    expect(won[0]!.ok && (await accessAlive(won[0]!.tokens.access_token))).toBe(false);
  });

  it('rotates a refresh token once among N parallel refreshes, and the losers revoke the grant', async () => {
    const first = await exchange(await newCode());
    if (!first.ok) throw new Error('exchange failed');
    expect(await accessAlive(first.tokens.access_token)).toBe(true);
    const results = await Promise.all(
      Array.from({ length: N }, () =>
        refreshGrant(deps, {
          refreshToken: first.tokens.refresh_token,
          clientId: undefined,
          scope: undefined,
          resource: undefined,
        }),
      ),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    for (const r of results.filter((x) => !x.ok))
      expect(r).toMatchObject({ ok: false, error: { error: 'invalid_grant' } });
    const winner = results.find((r) => r.ok);
    expect(winner?.ok && (await accessAlive(winner.tokens.access_token))).toBe(false);
    expect(await accessAlive(first.tokens.access_token)).toBe(false);
  });

  it('keeps a grant alive when refreshes are sequential', async () => {
    const first = await exchange(await newCode());
    if (!first.ok) throw new Error('exchange failed');
    let refreshToken = first.tokens.refresh_token;
    for (let i = 0; i < 3; i++) {
      const next = await refreshGrant(deps, {
        refreshToken,
        clientId: 'cli_race',
        scope: undefined,
        resource: undefined,
      });
      if (!next.ok) throw new Error(`refresh ${i} failed: ${next.error.error_description}`);
      expect(await accessAlive(next.tokens.access_token)).toBe(true);
      refreshToken = next.tokens.refresh_token;
    }
  });
});
