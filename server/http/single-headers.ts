// Headers that a request may send once only (each document's `x-single-headers`). Node joins
// repeated headers (`a, b`) or keeps the first (`Host`, `Authorization`), so a request carrying two
// `Host`s, two credentials or two nonces would be judged on a value its sender may not have meant
// (RFC 9112 §3.2: a request with more than one Host is a 400). The raw header list tells them
// apart: a repeated one is refused with 400 `validation_error` before anything reads it, the
// Host check included.
import type { RequestHandler } from 'express';
import type { ApiContract } from '../contract/index.ts';
import { ApiError } from './errors.ts';

/** The header names (lowercased) of every document's `x-single-headers.headers`; throws when malformed. */
export function singleHeadersOf(contracts: readonly ApiContract[]): ReadonlySet<string> {
  const names = new Set<string>();
  for (const contract of contracts) {
    const root = contract.root<{ headers?: unknown }>('x-single-headers');
    const headers = root?.headers;
    if (!Array.isArray(headers) || !headers.every((h) => typeof h === 'string' && /^[A-Za-z0-9-]+$/.test(h)))
      throw new Error('x-single-headers.headers must list header names');
    for (const h of headers as string[]) names.add(h.toLowerCase());
  }
  return names;
}

/** The first of `names` that `rawHeaders` (name, value, name, value…) carries more than once. */
export function repeatedHeader(rawHeaders: readonly string[], names: ReadonlySet<string>): string | undefined {
  const seen = new Set<string>();
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = (rawHeaders[i] as string).toLowerCase();
    if (!names.has(name)) continue;
    if (seen.has(name)) return rawHeaders[i];
    seen.add(name);
  }
  return undefined;
}

export function refuseRepeatedHeaders(names: ReadonlySet<string>): RequestHandler {
  return (req, _res, next) => {
    const repeated = repeatedHeader(req.rawHeaders, names);
    if (repeated === undefined) return next();
    next(
      new ApiError('validation_error', `The ${repeated} header may be sent once only; this request sends it twice`, [
        { path: `/headers/${repeated.toLowerCase()}`, message: 'is repeated' },
      ]),
    );
  };
}
