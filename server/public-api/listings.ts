// GET /api/market/listings: the sandbox environment's listed domains, offset and cursor paging
// (the operation's description, spec/public/paths/market-listings.yaml). The cursor names the page's last row (keyset), so a traversal sees every row
// that existed throughout it exactly once while rows are added or sold.
import type { RequestHandler } from 'express';
import type { components } from '../../generated/public.d.ts';
import { rfc3339 } from '../domain/rfc3339.ts';
import { cursorList } from '../http/cursor-list.ts';
import { ApiError } from '../http/errors.ts';
import type { Store } from '../store/index.ts';
import { PUBLIC_ENVIRONMENT } from './reads/environment.ts';
import {
  cursorBinding,
  describeBinding,
  keyOf,
  parseListingQuery,
  positionOf,
  type ListingQuery,
} from './listings-query.ts';
import type { PublicDeps } from './context.ts';

type Schemas = components['schemas'];
const SCOPE = 'public.listings';

export async function listMarketListings(
  store: Store,
  cursorKey: Uint8Array,
  query: ListingQuery,
): Promise<Schemas['ListingPage']> {
  const list = cursorList(cursorKey, {
    scope: SCOPE,
    binding: cursorBinding(query),
    limit: query.limit,
    cursor: query.cursor,
    refusal: (error) =>
      error.message.includes('other filters')
        ? `The cursor was issued for other filters or sort than ${describeBinding(query)}; start again without a cursor`
        : error.message,
  });
  let after;
  if (list.after) {
    after = keyOf(query.sort, list.after);
    // Signed by us for this binding, so only a cursor of an older format gets here.
    if (!after)
      throw new ApiError('invalid_cursor', 'The cursor is malformed or was altered; start again without a cursor');
  }
  const rows = await store.inventory.listings(PUBLIC_ENVIRONMENT, query.filter, query.sort, {
    after,
    offset: query.offset,
    limit: list.fetch,
  });
  const counts = await store.inventory.countListings(PUBLIC_ENVIRONMENT, query.filter, query.sort, after);
  const { data, next_cursor: next } = list.page(rows, (r) => positionOf(query.sort, r));
  return {
    data: data.map((r) => ({
      domain: r.domain,
      tld: r.tld,
      price: r.price_cents,
      currency: r.currency,
      listed_at: rfc3339(r.listed_at),
    })),
    page: { next_cursor: next, limit: query.limit, offset: after ? counts.upTo : query.offset, total: counts.total },
  };
}

export function listingsHandler(deps: PublicDeps): RequestHandler {
  return async (req, res) => {
    const query = parseListingQuery(req.query);
    const answer = await listMarketListings(deps.store, deps.keys.cursors, query);
    if (deps.faults.has('offset-pages-null-cursor') && query.cursor === undefined) answer.page.next_cursor = null;
    res.json(answer);
  };
}
