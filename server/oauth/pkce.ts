// PKCE (RFC 7636), S256 only: the one method OAuth 2.1 leaves a public client.
import { createHash, timingSafeEqual } from 'node:crypto';

/** BASE64URL(SHA-256(ASCII(verifier))) without padding. */
export const s256 = (verifier: string) => createHash('sha256').update(verifier, 'ascii').digest('base64url');

/** 43 to 128 unreserved characters (RFC 7636 §4.1). */
export const VERIFIER_FORM = /^[A-Za-z0-9._~-]{43,128}$/;
/** A SHA-256 digest in unpadded base64url is always 43 characters. */
export const CHALLENGE_FORM = /^[A-Za-z0-9_-]{43}$/;

/** Whether the verifier hashes to the challenge, compared in constant time. */
export function verifyS256(verifier: string, challenge: string): boolean {
  if (!VERIFIER_FORM.test(verifier) || !CHALLENGE_FORM.test(challenge)) return false;
  return timingSafeEqual(Buffer.from(s256(verifier)), Buffer.from(challenge));
}
