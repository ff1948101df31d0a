import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The envelope shared by quote ids and cursors: `<prefix><base64url payload>.<base64url MAC>`,
 * the MAC being the full HMAC-SHA256 over a purpose label and the payload text. The label keeps
 * one kind of token from ever verifying as another when both use the same server key.
 */

const B64URL = /^[A-Za-z0-9_-]*$/;
const MAC_BYTES = 32;

/**
 * Decodes only the one spelling `toString('base64url')` produces. Node's decoder skips foreign
 * characters and ignores the unused low bits of the last character, so without the round trip
 * a token with a changed character could still decode to the same bytes and verify.
 */
export function strictBase64url(text: string): Buffer | undefined {
  if (!B64URL.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : undefined;
}

function mac(key: Uint8Array, purpose: string, payload: string): Buffer {
  return createHmac('sha256', key).update(`${purpose}\0${payload}`, 'utf8').digest();
}

export function seal(key: Uint8Array, purpose: string, prefix: string, payloadJson: string): string {
  const payload = Buffer.from(payloadJson, 'utf8').toString('base64url');
  return `${prefix}${payload}.${mac(key, purpose, payload).toString('base64url')}`;
}

export type OpenResult = { ok: true; payload: unknown } | { ok: false; reason: 'malformed' | 'tampered' };

/** Checks the envelope and the MAC (in constant time) before reading the payload at all. */
export function open(key: Uint8Array, purpose: string, prefix: string, token: string): OpenResult {
  if (!token.startsWith(prefix)) return { ok: false, reason: 'malformed' };
  const parts = token.slice(prefix.length).split('.');
  if (parts.length !== 2) return { ok: false, reason: 'malformed' };
  const [payload = '', tag = ''] = parts;
  const payloadBytes = strictBase64url(payload);
  const tagBytes = strictBase64url(tag);
  if (payloadBytes === undefined || payload === '' || tagBytes === undefined || tagBytes.length !== MAC_BYTES) {
    return { ok: false, reason: 'malformed' };
  }
  if (!timingSafeEqual(tagBytes, mac(key, purpose, payload))) return { ok: false, reason: 'tampered' };
  try {
    return { ok: true, payload: JSON.parse(payloadBytes.toString('utf8')) as unknown };
  } catch {
    // Only a token this server signed gets here, so this is a format from another version.
    return { ok: false, reason: 'malformed' };
  }
}
