// CORS for browser clients, following the Fetch standard's CORS protocol. Which paths answer
// which origins is each path item's `x-cors` in the public document; the policies, the request
// headers a preflight allows, the response headers answers expose and the preflight's max-age
// are its root `x-cors`. Paths without `x-cors` (and the partner and operator APIs, which are not
// in that document) get no CORS headers at all. Credentials are never allowed: tokens travel in
// `Authorization`, which a page must set itself, so no ambient cookie or HTTP authentication is
// ever read across origins.
//
// This layer sets only Access-Control-* and Vary headers, and answers preflights itself, before
// the rate limit (a preflight is the browser's question, not the client's call).
import type { Request, RequestHandler } from 'express';
import { ApiError } from './errors.ts';
import type { ApiContract, CorsPolicy } from '../contract/index.ts';

export interface CorsRules {
  /** `Access-Control-Allow-Headers` of a preflight: the request headers this surface reads. */
  allowHeaders: readonly string[];
  /** `Access-Control-Expose-Headers` of an answer: the response headers a client may read. */
  exposeHeaders: readonly string[];
  /** `Access-Control-Max-Age` of a preflight, in seconds. */
  maxAgeSeconds: number;
}

/** The root `x-cors` of a document; a document that lacks or garbles it is refused at start-up. */
export function corsRules(contract: ApiContract): CorsRules {
  const root = contract.root<{
    'allow-headers'?: unknown;
    'expose-headers'?: unknown;
    preflight?: { 'max-age-seconds'?: unknown };
  }>('x-cors');
  const list = (value: unknown, name: string): string[] => {
    if (
      !Array.isArray(value) ||
      value.length === 0 ||
      !value.every((v) => typeof v === 'string' && /^[A-Za-z0-9-]+$/.test(v))
    ) {
      throw new TypeError(`x-cors.${name} must be a non-empty list of header names`);
    }
    return value as string[];
  };
  const maxAge = root?.preflight?.['max-age-seconds'];
  if (typeof maxAge !== 'number' || !Number.isInteger(maxAge) || maxAge < 0)
    throw new TypeError('x-cors.preflight.max-age-seconds must be a whole number of seconds');
  return {
    allowHeaders: list(root?.['allow-headers'], 'allow-headers'),
    exposeHeaders: list(root?.['expose-headers'], 'expose-headers'),
    maxAgeSeconds: maxAge,
  };
}

export type CorsHeaders = Record<string, string>;

/**
 * The CORS headers of an answer (not a preflight) on a path with `policy`. `*` needs no `Vary`:
 * it is the same for every origin. An echoed origin varies with `Origin`, so `Vary: Origin` is
 * sent whether or not this request's origin is allowed (a cache must not reuse either answer).
 */
export function answerHeaders(
  policy: CorsPolicy,
  origin: string | undefined,
  allowed: boolean,
  rules: CorsRules,
): CorsHeaders {
  const expose = { 'Access-Control-Expose-Headers': rules.exposeHeaders.join(', ') };
  if (policy === 'any-origin') return { 'Access-Control-Allow-Origin': '*', ...expose };
  if (origin === undefined || !allowed) return { Vary: 'Origin' };
  return { 'Access-Control-Allow-Origin': origin, Vary: 'Origin', ...expose };
}

/**
 * The answer to a preflight on a path with `policy` and `methods`: its headers, or 'refused' for
 * an origin `allowed-origins` does not allow. Every method of the path is listed; the browser
 * itself refuses a request for another one.
 */
export function preflightHeaders(
  policy: CorsPolicy,
  origin: string,
  allowed: boolean,
  methods: readonly string[],
  rules: CorsRules,
): CorsHeaders | 'refused' {
  if (policy === 'allowed-origins' && !allowed) return 'refused';
  return {
    'Access-Control-Allow-Origin': policy === 'any-origin' ? '*' : origin,
    'Access-Control-Allow-Methods': methods.join(', '),
    'Access-Control-Allow-Headers': rules.allowHeaders.join(', '),
    'Access-Control-Max-Age': String(rules.maxAgeSeconds),
    ...(policy === 'allowed-origins' ? { Vary: 'Origin' } : {}),
  };
}

export interface CorsOptions {
  /** The public document's index, with each path's `x-cors`. */
  contract: ApiContract;
  rules: CorsRules;
  /** The `allowed-origins` rule for this request (the `/mcp` Origin rule). */
  originAllowed(origin: string, req: Request): boolean;
}

export function cors(options: CorsOptions): RequestHandler {
  return (req, res, next) => {
    const path = req.originalUrl.split('?')[0] ?? '/';
    const operations = options.contract.operationsAt(path);
    const policy = operations.find((op) => op.cors)?.cors;
    if (!policy) return next();
    const origin = req.get('origin');
    const allowed = origin !== undefined && policy === 'allowed-origins' && options.originAllowed(origin, req);
    const setAll = (headers: CorsHeaders) => {
      for (const [name, value] of Object.entries(headers)) {
        if (name === 'Vary') res.vary(value);
        else res.setHeader(name, value);
      }
    };
    const requestedMethod = req.get('access-control-request-method');
    if (req.method === 'OPTIONS' && origin !== undefined && requestedMethod !== undefined) {
      const headers = preflightHeaders(
        policy,
        origin,
        allowed,
        operations.map((op) => op.method),
        options.rules,
      );
      if (headers === 'refused')
        return next(new ApiError('forbidden', `Origin "${origin}" is not allowed to call ${path}`));
      setAll(headers);
      res.status(204).end();
      return;
    }
    setAll(answerHeaders(policy, origin, allowed, options.rules));
    next();
  };
}
