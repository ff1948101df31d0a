// Opaque codes and tokens: 256 random bits behind a kind prefix, stored only as a keyed hash.
// HMAC under the server's OAuth key rather than a plain hash, so a leaked table cannot even be
// used to confirm a guessed token without the key as well.
import { createHmac, randomBytes } from 'node:crypto';

export type SecretKind = 'code' | 'access' | 'refresh';

const PREFIX: Record<SecretKind, string> = { code: 'ac_', access: 'at_', refresh: 'rt_' };

export const newSecret = (kind: SecretKind) => `${PREFIX[kind]}${randomBytes(32).toString('base64url')}`;

/** The stored form of a code or token; the kind is part of the MAC so one can never pass as another. */
export function hashSecret(key: Uint8Array, kind: SecretKind, secret: string): string {
  return createHmac('sha256', key).update(`oauth-${kind}\0${secret}`, 'utf8').digest('base64url');
}
