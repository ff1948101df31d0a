import { createHash } from 'node:crypto';
import { assertWellFormed } from './unicode.ts';

/** A body as sent on the wire; a string stands for its UTF-8 bytes. */
export type RawBody = Uint8Array | string;

/** SHA-256 of the empty byte string: the BODY_SHA256_HEX line of GET, HEAD and body-less requests. */
export const EMPTY_BODY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

/**
 * Lowercase hex SHA-256 of the raw body bytes. Hash the bytes that go on the wire: a body that
 * is parsed and serialised again (other key order, other whitespace, escaped non-ASCII) no
 * longer matches.
 */
export function bodySha256Hex(body: RawBody): string {
  if (typeof body === 'string') {
    assertWellFormed(body, '/body');
    return createHash('sha256').update(body, 'utf8').digest('hex');
  }
  return createHash('sha256').update(body).digest('hex');
}
