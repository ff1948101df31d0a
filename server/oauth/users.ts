// Sign-in users: the sandbox's seeded user, and checking an email and password.
import { newId } from '../ids.ts';
import type { Store } from '../store/index.ts';
import { DUMMY_HASH, hashPassword, verifyPassword } from './passwords.ts';

export const normaliseEmail = (email: string) => email.trim().toLowerCase();

/**
 * Makes sure the sandbox sign-in user exists with this password (idempotent: a restart keeps the
 * user's id, and a changed SANDBOX_USER_PASSWORD takes effect). Returns the user's id, which
 * other modules use to seed what the user owns.
 */
export async function ensureSandboxUser(
  store: Pick<Store, 'oauth'>,
  user: { email: string; password: string },
  now = Date.now(),
): Promise<{ userId: string }> {
  const email = normaliseEmail(user.email);
  const existing = await store.oauth.findUserByEmail(email);
  if (existing && (await verifyPassword(user.password, existing.password_hash))) return { userId: existing.id };
  const userId = await store.oauth.upsertUser({
    id: newId('usr'),
    email,
    password_hash: await hashPassword(user.password),
    created_at: now,
    updated_at: now,
  });
  return { userId };
}

/** The user's id when the email and password match an account; undefined otherwise. */
export async function authenticate(
  store: Pick<Store, 'oauth'>,
  email: string,
  password: string,
): Promise<string | undefined> {
  const user = await store.oauth.findUserByEmail(normaliseEmail(email));
  const ok = await verifyPassword(password, user?.password_hash ?? DUMMY_HASH);
  return ok && user ? user.id : undefined;
}
