// Against a sandbox with no --oauth-user given, the kit signs in as the sandbox's documented user
// (conformance/sandbox-user.ts) and says so, instead of skipping every check that needs a user;
// where the operator set another password, it says the documented user was refused and skips.
import { afterEach, describe, expect, it } from 'vitest';
import { runConformance, startReferenceServer } from '../../conformance/run.ts';

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

async function oauthFlowAgainst(sandboxUser?: { email: string; password: string }) {
  const server = await startReferenceServer(undefined, sandboxUser ? { sandboxUser } : {});
  stop = server.stop;
  const lines: string[] = [];
  // Not `reference: true`: the kit knows nothing of this server but its URL and operator token.
  const run = await runConformance({
    baseUrl: server.url,
    adminToken: server.adminToken,
    only: ['public.oauth.flow'],
    seed: 1,
    numRuns: 2,
    log: (line) => lines.push(line),
  });
  return { results: run.results, output: lines.join('\n') };
}

describe('the documented sandbox sign-in user, when none is given', () => {
  it('is used, and the output says so: the OAuth flow runs instead of being skipped', async () => {
    const { results, output } = await oauthFlowAgainst();
    expect(output).toMatch(/signing in as the sandbox's documented user sandbox@example\.com/);
    expect(results.map((r) => [r.id, r.status, r.message?.slice(0, 300)])).toEqual([
      ['public.oauth.flow', 'passed', undefined],
    ]);
  }, 120_000);

  it('refused (the operator set its own password): the checks are skipped and the output says why', async () => {
    const { results, output } = await oauthFlowAgainst({
      email: 'sandbox@example.com',
      password: 'an-operator-secret',
    });
    expect(output).toMatch(/documented user sandbox@example\.com could not sign in/);
    expect(results.map((r) => r.status)).toEqual(['skipped']);
  }, 120_000);
});
