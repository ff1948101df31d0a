import canonicalize from 'canonicalize';

/** A value JSON can carry (what `JSON.parse` produces). */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/**
 * RFC 8785 (JCS) text of a JSON value: keys sorted, no insignificant whitespace, numbers in their
 * shortest round-trip form. JCS sorts keys by UTF-16 code unit, not by code point as the signed
 * query does; that is the RFC's rule and, since this text is only ever hashed on the server, the
 * order just has to be fixed, not shared with clients.
 *
 * Throws a TypeError for what JSON cannot represent (undefined at the top, NaN, Infinity, a lone
 * surrogate, a cycle), so a caller never hashes a lossy rendering by accident.
 */
export function canonicalJson(value: unknown): string {
  let text: string | undefined;
  try {
    text = canonicalize(value);
  } catch (error) {
    throw new TypeError(`value has no canonical JSON form: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  if (text === undefined) throw new TypeError('value has no canonical JSON form');
  return text;
}

// fatal: bytes that are not UTF-8 must not be decoded to U+FFFD, which would make two different
// bodies alike. ignoreBOM: keep a BOM so that such a body is not JSON (JSON.parse refuses it)
// rather than silently equal to the body without it.
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The parsed body, or undefined when the bytes are not UTF-8 JSON text. */
export function parseJsonBytes(bytes: Uint8Array): JsonValue | undefined {
  let text: string;
  try {
    text = STRICT_UTF8.decode(bytes);
  } catch {
    return undefined;
  }
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
}
