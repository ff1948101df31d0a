import { createHmac, timingSafeEqual } from 'node:crypto';
import { canonicalString, type CanonicalRequest } from './canonical-request.ts';
import { ProtocolError } from './errors.ts';
import {
  HEADER_IDEMPOTENCY_KEY,
  HEADER_KEY_ID,
  HEADER_NONCE,
  HEADER_SIGNATURE,
  HEADER_TIMESTAMP,
  SIGNATURE_PREFIX,
} from './headers.ts';
import { hasLoneSurrogate } from './unicode.ts';

export interface SignInput extends CanonicalRequest {
  /** The API secret (`sk_test_…` / `sk_live_…`), never the public key id. */
  readonly secret: string;
}

export interface VerifyInput extends SignInput {
  /** The X-Service-Signature header as received. */
  readonly signatureHeader: string | null | undefined;
}

export interface SignedHeadersInput extends SignInput {
  readonly keyId: string;
  readonly idempotencyKey?: string | undefined;
}

function usableSecret(secret: string): boolean {
  return secret.length > 0 && !hasLoneSurrogate(secret);
}

/** Lowercase hex HMAC-SHA256 of the canonical string (UTF-8), keyed with the secret (UTF-8). */
export function signatureHex(secret: string, canonical: string): string {
  // An empty key is valid HMAC, so an unset secret would otherwise sign without complaint.
  if (!usableSecret(secret)) {
    throw new ProtocolError('validation_error', 'The signing secret must be non-empty Unicode text', [
      { path: '/secret', message: 'must be a non-empty string' },
    ]);
  }
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(canonical, 'utf8').digest('hex');
}

/** The X-Service-Signature header value: `v1=` and the lowercase hex signature. */
export function sign(input: SignInput): string {
  return SIGNATURE_PREFIX + signatureHex(input.secret, canonicalString(input));
}

/**
 * Whether `signatureHeader` is exactly the header `sign` gives for this request. Anything wrong
 * with the header or the secret (absent, no `v1=`, uppercase hex, wrong length) is `false`.
 * It throws only when the request itself is malformed (a bad query escape, which the API
 * answers with `validation_error` before it looks at signatures).
 */
export function verify(input: VerifyInput): boolean {
  const canonical = canonicalString(input);
  const received = input.signatureHeader;
  if (typeof received !== 'string' || !usableSecret(input.secret)) return false;
  const expected = Buffer.from(SIGNATURE_PREFIX + signatureHex(input.secret, canonical), 'utf8');
  const actual = Buffer.from(received, 'utf8');
  // The length of a valid header is public, so returning early on it leaks nothing.
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** The authentication headers of one request, ready to send. */
export function signedHeaders(input: SignedHeadersInput): Record<string, string> {
  const headers: Record<string, string> = {
    [HEADER_KEY_ID]: input.keyId,
    [HEADER_TIMESTAMP]: input.timestamp,
    [HEADER_NONCE]: input.nonce,
    [HEADER_SIGNATURE]: sign(input),
  };
  if (input.idempotencyKey !== undefined) headers[HEADER_IDEMPOTENCY_KEY] = input.idempotencyKey;
  return headers;
}
