// The sign-in user of the OAuth, MCP and public families. Given none (--oauth-user, or
// SANDBOX_USER_EMAIL/SANDBOX_USER_PASSWORD), a run with sandbox credentials tries the user every
// sandbox seeds unless its operator set another (the README's "Sandbox users" table, and the
// public document's bulk operations: "the seeded sign-in user (see the README)"), and says so.
// One sign-in decides: if it is refused (an operator set a secret password, as the README asks
// of shared deployments), the checks that need a user are skipped as before, with that reason.
import { CheckFailure, type Context, type Family } from './context.ts';
import { authorizationCode } from './oauth-flow.ts';

/** The documented sandbox sign-in user (README, docs/guides/oauth.md). */
export const DOCUMENTED_SANDBOX_USER = { email: 'sandbox@example.com', password: 'sandbox-password' } as const;

/** True when a selected check needs a sign-in user. */
export function needsSignIn(families: Family[]): boolean {
  return families.some((f) => f.needs.includes('oauth-user') || f.checks.some((c) => c.needs?.includes('oauth-user')));
}

/**
 * Signs in once as the documented sandbox user; on success it becomes the run's user
 * (ctx.options.oauthUser/oauthPassword). Returns the line the run prints either way.
 */
export async function tryDocumentedUser(ctx: Context): Promise<{ ok: boolean; line: string }> {
  const previous = { user: ctx.options.oauthUser, password: ctx.options.oauthPassword };
  ctx.options.oauthUser = DOCUMENTED_SANDBOX_USER.email;
  ctx.options.oauthPassword = DOCUMENTED_SANDBOX_USER.password;
  try {
    await authorizationCode(ctx, { scope: 'pricing:read' });
    return {
      ok: true,
      line: `  no --oauth-user given: signing in as the sandbox's documented user ${DOCUMENTED_SANDBOX_USER.email} (README; --oauth-user/--oauth-password for another)`,
    };
  } catch (err) {
    ctx.options.oauthUser = previous.user;
    ctx.options.oauthPassword = previous.password;
    if (!(err instanceof CheckFailure)) throw err;
    return {
      ok: false,
      line: `  no --oauth-user given, and the sandbox's documented user ${DOCUMENTED_SANDBOX_USER.email} could not sign in (${err.message.split('\n')[0]}): the checks that need a sign-in user are skipped; pass --oauth-user/--oauth-password`,
    };
  }
}
