import { decodeComponent, encodeComponent } from './percent-encoding.ts';
import { compareCodePoints } from './unicode.ts';

/** One decoded `key=value` part of a query string. */
export interface QueryPair {
  readonly key: string;
  readonly value: string;
}

/**
 * Splits a raw query string (the part after `?`, exactly as it appeared in the request target)
 * into decoded pairs, in their original order. Parts split at the first `=`; a part without `=`
 * has an empty value; empty parts (`a=1&&b=2`, a leading or trailing `&`) are dropped. No `?` is
 * stripped: pass what follows the first `?`. Throws `validation_error` on a malformed escape.
 */
export function parseQueryPairs(rawQuery: string): QueryPair[] {
  const pairs: QueryPair[] = [];
  for (const part of rawQuery.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const rawKey = eq < 0 ? part : part.slice(0, eq);
    const rawValue = eq < 0 ? '' : part.slice(eq + 1);
    pairs.push({ key: decodeComponent(rawKey), value: decodeComponent(rawValue) });
  }
  return pairs;
}

/** Key first, then value, both by Unicode code point. */
export function compareQueryPairs(a: QueryPair, b: QueryPair): number {
  return compareCodePoints(a.key, b.key) || compareCodePoints(a.value, b.value);
}

/**
 * The QUERY_STRING line of the canonical string. Sorting happens on the decoded text, not on
 * the encoded form, so that `a.` sorts before `a/` even though `%2F` sorts before `.`.
 */
export function canonicalQuery(rawQuery: string): string {
  return parseQueryPairs(rawQuery)
    .sort(compareQueryPairs)
    .map((pair) => `${encodeComponent(pair.key)}=${encodeComponent(pair.value)}`)
    .join('&');
}
