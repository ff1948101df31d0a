// The public listings' query: parsed and checked (the pipeline's validator checks the same
// rules against the spec; this keeps the read correct without it), its cursor binding, and the
// keyset position of a row. Pure.
import { ApiError, type ErrorDetail } from '../http/errors.ts';
import type { ListingFilter, ListingKey, ListingSort } from '../store/inventory.ts';

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;
export const SORTS: readonly ListingSort[] = ['domain', 'price_asc', 'price_desc', 'newest'];
const TLD = /^[a-z][a-z0-9-]{0,61}[a-z0-9]$/;

export interface ListingQuery {
  limit: number;
  offset: number;
  cursor: string | undefined;
  filter: ListingFilter;
  sort: ListingSort;
}

/** One value of a query parameter: repeated parameters and nested objects are refused. */
function single(query: Record<string, unknown>, name: string, details: ErrorDetail[]): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value === 'number') return String(value);
  if (typeof value !== 'string') {
    details.push({ path: `/query/${name}`, message: 'must be a single value' });
    return undefined;
  }
  return value;
}

function integer(
  query: Record<string, unknown>,
  name: string,
  min: number,
  max: number,
  details: ErrorDetail[],
): number | undefined {
  const text = single(query, name, details);
  if (text === undefined) return undefined;
  // Decimal digits only; up to 2^53 − 1 (16 digits) is exact, anything longer is over every maximum.
  const n = /^\d+$/.test(text) ? (text.replace(/^0+(?=\d)/, '').length > 16 ? Infinity : Number(text)) : Number.NaN;
  if (Number.isNaN(n)) details.push({ path: `/query/${name}`, message: 'must be an integer' });
  else if (n < min) details.push({ path: `/query/${name}`, message: `must be >= ${min}` });
  else if (n > max) details.push({ path: `/query/${name}`, message: `must be <= ${max}` });
  else return n;
  return undefined;
}

/** Throws ApiError `validation_error` naming every bad parameter. */
export function parseListingQuery(query: Record<string, unknown>): ListingQuery {
  const details: ErrorDetail[] = [];
  const limit = integer(query, 'limit', 1, MAX_LIMIT, details) ?? DEFAULT_LIMIT;
  const offset = integer(query, 'offset', 0, Number.MAX_SAFE_INTEGER, details) ?? 0;
  const minPrice = integer(query, 'min_price', 0, Number.MAX_SAFE_INTEGER, details);
  const maxPrice = integer(query, 'max_price', 0, Number.MAX_SAFE_INTEGER, details);
  const cursor = single(query, 'cursor', details);
  if (cursor !== undefined && (cursor.length < 1 || cursor.length > 1024))
    details.push({ path: '/query/cursor', message: 'must be 1 to 1024 characters' });
  const tld = single(query, 'tld', details);
  if (tld !== undefined && !TLD.test(tld))
    details.push({ path: '/query/tld', message: 'must be a lowercase TLD without the leading dot' });
  const q = single(query, 'q', details);
  if (q !== undefined && (q.length < 1 || q.length > 253))
    details.push({ path: '/query/q', message: 'must be 1 to 253 characters' });
  const sortText = single(query, 'sort', details) ?? 'domain';
  const sort = SORTS.find((s) => s === sortText);
  if (!sort) details.push({ path: '/query/sort', message: `must be one of ${SORTS.join(', ')}` });
  if (minPrice !== undefined && maxPrice !== undefined && maxPrice < minPrice) {
    details.push({ path: '/query/max_price', message: 'must not be below min_price' });
  }
  if (details.length > 0 || !sort) {
    throw new ApiError(
      'validation_error',
      `Query is invalid: ${details.map((d) => `${d.path} ${d.message}`).join('; ')}`,
      details,
    );
  }
  return {
    limit,
    offset,
    cursor,
    sort,
    // Domains are lowercase, so matching the lowercased text is the documented case-insensitive match.
    filter: { tld, minPrice, maxPrice, contains: q?.toLowerCase() },
  };
}

/** What a cursor is bound to: every filter and the sort (not limit or offset, which may change between pages). */
export function cursorBinding(query: ListingQuery): Record<string, string | number | null> {
  const f = query.filter;
  return {
    tld: f.tld ?? null,
    min_price: f.minPrice ?? null,
    max_price: f.maxPrice ?? null,
    q: f.contains ?? null,
    sort: query.sort,
  };
}

/** For messages: the binding as `sort=price_asc, tld=com`. */
export function describeBinding(query: ListingQuery): string {
  return Object.entries(cursorBinding(query))
    .filter(([, v]) => v !== null)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(', ');
}

/** The keyset position of a row in `sort` order, as a cursor stores it. */
export function positionOf(
  sort: ListingSort,
  row: { domain: string; price_cents: number; listed_at: number },
): (string | number)[] {
  if (sort === 'domain') return [row.domain];
  return [sort === 'newest' ? row.listed_at : row.price_cents, row.domain];
}

/** A verified cursor's position back as a key; undefined when its shape does not fit the sort. */
export function keyOf(sort: ListingSort, position: readonly (string | number)[]): ListingKey | undefined {
  if (sort === 'domain') {
    const [domain] = position;
    return position.length === 1 && typeof domain === 'string' ? { domain } : undefined;
  }
  const [value, domain] = position;
  return position.length === 2 && typeof value === 'number' && Number.isSafeInteger(value) && typeof domain === 'string'
    ? { domain, value }
    : undefined;
}
