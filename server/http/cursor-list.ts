// The one cursor-list helper: every keyset-paged list (partner orders, settlements, transactions,
// payouts, brokerage cases, referral lists; the public listings) reads its cursor and writes the
// next one here. The contract is the partner document's "Lists" paragraph (info.description):
// `limit` and an opaque, signed cursor bound to the list and its filters, reused with other
// filters it is 400 `invalid_cursor`; a page is fetched with one row more than asked, which tells
// whether another page follows.
import { decodeCursor, encodeCursor, isCursorError, type CursorError, type CursorPosition } from '../domain/cursor.ts';
import { ApiError } from './errors.ts';

export interface CursorListRequest {
  /** Which list, and whose: e.g. `orders:<partner id>`. */
  scope: string;
  /** The filters (and sort) the cursor is bound to, without `limit`. */
  binding: Readonly<Record<string, unknown>>;
  limit: number;
  cursor: string | undefined;
  /** The message of the 400 `invalid_cursor` answer; the cursor module's own by default. */
  refusal?: (error: CursorError) => string;
}

export interface CursorList {
  readonly limit: number;
  /** How many rows to fetch: one more than the page, to know whether another follows. */
  readonly fetch: number;
  /** The keyset position the page continues after; undefined on the first page. */
  readonly after: CursorPosition | undefined;
  /**
   * The page of `rows` (fetched with `fetch`) and the cursor after its last row, or null on the
   * last page. `lastShift` moves the row the cursor names (the pagination faults of server/faults.ts).
   */
  page<T>(
    rows: readonly T[],
    positionOf: (row: T) => CursorPosition,
    lastShift?: number,
  ): { data: T[]; next_cursor: string | null };
}

export function cursorList(key: Uint8Array, request: CursorListRequest): CursorList {
  const { scope, binding, limit } = request;
  let after: CursorPosition | undefined;
  if (request.cursor !== undefined) {
    const position = decodeCursor(key, request.cursor, scope, binding);
    if (isCursorError(position))
      throw new ApiError('invalid_cursor', request.refusal ? request.refusal(position) : position.message);
    after = position;
  }
  return {
    limit,
    fetch: limit + 1,
    after,
    page(rows, positionOf, lastShift = 0) {
      const data = rows.slice(0, limit);
      const last = rows[Math.max(0, data.length - 1 + lastShift)];
      const next_cursor =
        rows.length > limit && last !== undefined
          ? encodeCursor(key, { scope, binding, position: positionOf(last) })
          : null;
      return { data, next_cursor };
    },
  };
}
