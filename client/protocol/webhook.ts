import { createHmac, timingSafeEqual } from 'node:crypto';
import type { RawBody } from './body-hash.ts';
import { ProtocolError } from './errors.ts';
import { hasLoneSurrogate } from './unicode.ts';

function bodyBytes(rawBody: RawBody): Buffer {
  return typeof rawBody === 'string'
    ? Buffer.from(rawBody, 'utf8')
    : Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
}

function usable(secret: string, rawBody: RawBody): boolean {
  return secret.length > 0 && !hasLoneSurrogate(secret) && !(typeof rawBody === 'string' && hasLoneSurrogate(rawBody));
}

/**
 * The X-Service-Signature of a webhook delivery: lowercase hex HMAC-SHA256 of the raw body,
 * keyed with the registered webhook secret (UTF-8). Unlike request signatures it has no `v1=`
 * prefix, and it covers nothing but the body.
 */
export function webhookSignature(secret: string, rawBody: RawBody): string {
  if (!usable(secret, rawBody)) {
    throw new ProtocolError(
      'validation_error',
      'The webhook secret must be non-empty and the body valid Unicode text',
      [{ path: '/secret', message: 'must be a non-empty string' }],
    );
  }
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(bodyBytes(rawBody)).digest('hex');
}

/**
 * Whether a delivery's X-Service-Signature matches its raw body. Verify the bytes as received,
 * before any JSON parsing. Never throws: anything malformed is `false`.
 */
export function verifyWebhookSignature(rawBody: RawBody, header: string | null | undefined, secret: string): boolean {
  if (typeof header !== 'string' || !usable(secret, rawBody)) return false;
  const expected = Buffer.from(webhookSignature(secret, rawBody), 'utf8');
  const actual = Buffer.from(header, 'utf8');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
