// GET /api/market/listings: the sandbox environment's listed domains, offset and cursor paging
// (DECISIONS §4). The cursor names the page's last row (keyset), so a traversal sees every row
// that existed throughout it exactly once while rows are added or sold.
import type { RequestHandler } from 'express';
import type { components } from '../../generated/public.d.ts';
import { decodeCursor, encodeCursor, isCursorError } from '../domain/cursor.ts';
import { rfc3339 } from '../domain/rfc3339.ts';
import { ApiError } from '../http/errors.ts';
import type { Store } from '../store/index.ts';
import { PUBLIC_ENVIRONMENT } from './reads/environment.ts';
import { cursorBinding, describeBinding, keyOf, parseListingQuery, positionOf, type ListingQuery } from './listings-query.ts';
import type { PublicDeps } from './context.ts';

type Schemas = components['schemas'];
const SCOPE = 'public.listings';

export async function listMarketListings(store: Store, cursorKey: Uint8Array, query: ListingQuery): Promise<Schemas['ListingPage']> {
  const binding = cursorBinding(query);
  let after;
  if (query.cursor !== undefined) {
    const position = decodeCursor(cursorKey, query.cursor, SCOPE, binding);
    if (isCursorError(position)) {
      const message = position.message.includes('other filters')
        ? `The cursor was issued for other filters or sort than ${describeBinding(query)}; start again without a cursor`
        : position.message;
      throw new ApiError('invalid_cursor', message);
    }
    after = keyOf(query.sort, position);
    // Signed by us for this binding, so only a cursor of an older format gets here.
    if (!after) throw new ApiError('invalid_cursor', 'The cursor is malformed or was altered; start again without a cursor');
  }
  // One row more than asked tells whether another page follows.
  const rows = await store.inventory.listings(PUBLIC_ENVIRONMENT, query.filter, query.sort, { after, offset: query.offset, limit: query.limit + 1 });
  const counts = await store.inventory.countListings(PUBLIC_ENVIRONMENT, query.filter, query.sort, after);
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  const next = rows.length > query.limit && last ? encodeCursor(cursorKey, { scope: SCOPE, binding, position: positionOf(query.sort, last) }) : null;
  return {
    data: page.map((r) => ({ domain: r.domain, tld: r.tld, price: r.price_cents, currency: r.currency, listed_at: rfc3339(r.listed_at) })),
    page: { next_cursor: next, limit: query.limit, offset: after ? counts.upTo : query.offset, total: counts.total },
  };
}

export function listingsHandler(deps: PublicDeps): RequestHandler {
  return async (req, res) => {
    const query = parseListingQuery(req.query);
    res.json(await listMarketListings(deps.store, deps.keys.cursors, query));
  };
}
