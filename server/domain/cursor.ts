import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json.ts';
import { open, seal } from './signed-token.ts';

/**
 * Keyset cursors: the sort key of the last row returned, never a row count, so rows inserted or
 * deleted before it cannot shift a traversal. Signed so a client cannot forge a position, and
 * bound to the scope (which list) and to the filters and sort that produced it.
 */

export type CursorPosition = Array<string | number>;

export interface CursorError {
  readonly error: 'invalid_cursor';
  readonly message: string;
}

export interface CursorInput {
  /** Which list, e.g. 'orders'. */
  readonly scope: string;
  /** The filters and sort of the request, without `limit` (which may change between pages). */
  readonly binding: Readonly<Record<string, unknown>>;
  readonly position: readonly (string | number)[];
}

const PURPOSE = 'cursor.v1';
// No prefix: the spec's cursor is opaque, and the scope inside tells lists apart.
const PREFIX = '';

// A digest rather than the filters themselves keeps a cursor short (the spec caps it at 1024
// characters) whatever the length of a search text; the MAC covers it like the rest.
function bindingDigest(binding: Readonly<Record<string, unknown>>): string {
  return createHash('sha256').update(canonicalJson(binding), 'utf8').digest('base64url').slice(0, 22);
}

function isPosition(value: unknown): value is CursorPosition {
  return (
    Array.isArray(value) && value.every((v) => typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)))
  );
}

/** Throws a TypeError for a binding with no JSON form or a non-finite number in the position. */
export function encodeCursor(key: Uint8Array, input: CursorInput): string {
  if (!isPosition(input.position)) throw new TypeError('position must hold strings and finite numbers');
  const payload = { s: input.scope, b: bindingDigest(input.binding), k: input.position };
  return seal(key, PURPOSE, PREFIX, JSON.stringify(payload));
}

const MALFORMED: CursorError = {
  error: 'invalid_cursor',
  message: 'The cursor is malformed or was altered; start again without a cursor',
};

/**
 * The position to continue after, or an `invalid_cursor` error (400). Only a verified cursor
 * is read, so its scope and binding are trusted once the MAC matches.
 */
export function decodeCursor(
  key: Uint8Array,
  cursor: string,
  scope: string,
  binding: Readonly<Record<string, unknown>>,
): CursorPosition | CursorError {
  const opened = open(key, PURPOSE, PREFIX, cursor);
  if (!opened.ok) return MALFORMED;
  const p = opened.payload;
  if (typeof p !== 'object' || p === null || Array.isArray(p)) return MALFORMED;
  const { s, b, k } = p as Record<string, unknown>;
  if (typeof s !== 'string' || typeof b !== 'string' || !isPosition(k)) return MALFORMED;
  if (s !== scope)
    return { error: 'invalid_cursor', message: 'The cursor belongs to another list; start again without a cursor' };
  if (b !== bindingDigest(binding)) {
    return {
      error: 'invalid_cursor',
      message: 'The cursor was issued for other filters; start again without a cursor',
    };
  }
  return k;
}

export function isCursorError(value: CursorPosition | CursorError): value is CursorError {
  return !Array.isArray(value);
}
