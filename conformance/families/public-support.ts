// What the public families share: sending a request aimed at an operation of the public document,
// checking an `Error` answer against the public ErrorCode table, reading a Bearer challenge, and
// one access token per scope set for the whole run (the OAuth flow is costly: run it once).
import { CheckFailure, CheckSkipped, type Context } from '../context.ts';
import { jsonOf, type Exchange, type SendOptions } from '../http.ts';
import type { SpecOperation } from '../spec.ts';
import { obtainTokens, type Tokens } from '../oauth-flow.ts';
import { expectCode } from './errors.ts';

export interface PublicRequest {
  /** Query string without `?`, or pairs (encoded with encodeURIComponent). */
  query?: string | Record<string, string | number | undefined>;
  pathParams?: Record<string, string>;
  /** A JSON value (serialised), or a raw string sent as is. */
  json?: unknown;
  raw?: string;
  contentType?: string;
  headers?: Record<string, string>;
  bearer?: string;
  client?: string;
  deliberate?: boolean;
  acceptRateLimit?: boolean;
  cost?: number;
}

export function publicOp(ctx: Context, operationId: string): SpecOperation {
  const op = ctx.spec.byId(operationId);
  if (op.api !== 'public') throw new Error(`${operationId} is not a public operation`);
  return op;
}

export function queryString(query: PublicRequest['query']): string {
  if (query === undefined) return '';
  if (typeof query === 'string') return query;
  return Object.entries(query)
    .filter((e): e is [string, string | number] => e[1] !== undefined)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
    .join('&');
}

/** Sends a request aimed at one public operation (recorded with it, for the schema family). */
export function callPublic(ctx: Context, operationId: string, r: PublicRequest = {}): Promise<Exchange> {
  const op = publicOp(ctx, operationId);
  const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(r.pathParams?.[name] ?? name));
  const query = queryString(r.query);
  const body = r.raw ?? (r.json === undefined ? undefined : JSON.stringify(r.json));
  const options: SendOptions = {
    method: op.method,
    target: query ? `${path}?${query}` : path,
    operation: { method: op.method, path: op.path },
    rateClass: op.rateClass ?? 'public',
    headers: { ...(body !== undefined ? { 'content-type': r.contentType ?? 'application/json' } : {}), ...r.headers },
    ...(body !== undefined ? { body } : {}),
    ...(r.bearer !== undefined ? { bearer: r.bearer } : {}),
    ...(r.client !== undefined ? { client: r.client } : {}),
    ...(r.deliberate ? { deliberate: true } : {}),
    ...(r.acceptRateLimit ? { acceptRateLimit: true } : {}),
    // A batch counts one call per entry.
    cost:
      r.cost ??
      (operationId === 'runBatch' && Array.isArray((r.json as { operations?: unknown[] } | undefined)?.operations)
        ? Math.max(1, (r.json as { operations: unknown[] }).operations.length)
        : 1),
  };
  return ctx.http.send(options);
}

/** The JSON body of a 200 answer, or a failure naming what came instead. */
export function okJson<T>(exchange: Exchange, why: string, status = 200): T {
  if (exchange.status !== status) {
    const body = jsonOf(exchange) as { code?: unknown; message?: unknown } | undefined;
    throw new CheckFailure(
      `${why}: expected ${status}, got ${exchange.status}${body?.code ? ` ${String(body.code)} (${String(body.message ?? '')})` : ''}`,
      [exchange],
    );
  }
  const body = jsonOf(exchange);
  if (body === undefined) throw new CheckFailure(`${why}: the ${status} answer is not JSON`, [exchange]);
  return body as T;
}

/**
 * Fails unless the exchange is the public contract's answer for `code`: its status by the public
 * `x-status-of-code`, an Error body with that code and a non-empty message, and `request_id`, when
 * present, equal to the X-Request-Id header.
 */
export function expectPublicCode(ctx: Context, exchange: Exchange, code: string, why: string): void {
  expectCode(ctx, exchange, code, why, 'public');
}

/** The auth-params of a `Bearer` challenge (RFC 6750 §3), or undefined when there is none. */
export function bearerChallenge(header: string | undefined): Record<string, string> | undefined {
  if (!header) return undefined;
  const match = /(?:^|,\s*)Bearer(?:\s+(.*))?$/i.exec(header.trim());
  if (!match) return undefined;
  const params: Record<string, string> = {};
  const re = /([A-Za-z_][\w-]*)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))\s*,?\s*/g;
  for (const m of (match[1] ?? '').matchAll(re))
    params[m[1]!.toLowerCase()] = m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : (m[3] ?? '');
  return params;
}

/**
 * Fails unless the answer carries `WWW-Authenticate: Bearer` with the given `error` (or none),
 * `resource_metadata` pointing at the protected-resource document (`suffix` for `/mcp`) and,
 * when given, `scope`.
 */
export function expectChallenge(
  ctx: Context,
  exchange: Exchange,
  expected: { error: string | undefined; scope?: string; resourcePath?: string },
  why: string,
): void {
  const header = exchange.responseHeaders['www-authenticate'];
  const params = bearerChallenge(header);
  if (!params)
    throw new CheckFailure(
      `${why}: no WWW-Authenticate: Bearer challenge (got ${header === undefined ? 'none' : `"${header}"`})`,
      [exchange],
    );
  if (params.error !== expected.error)
    throw new CheckFailure(
      `${why}: the challenge's error is ${params.error === undefined ? 'absent' : `"${params.error}"`}, expected ${expected.error === undefined ? 'none' : `"${expected.error}"`} ("${header}")`,
      [exchange],
    );
  const metadata = `${ctx.http.baseUrl}/.well-known/oauth-protected-resource${expected.resourcePath ?? ''}`;
  if (params.resource_metadata !== metadata)
    throw new CheckFailure(
      `${why}: resource_metadata is ${params.resource_metadata === undefined ? 'absent' : `"${params.resource_metadata}"`}, expected "${metadata}" ("${header}")`,
      [exchange],
    );
  if (expected.scope !== undefined && params.scope !== expected.scope)
    throw new CheckFailure(
      `${why}: the challenge's scope is ${params.scope === undefined ? 'absent' : `"${params.scope}"`}, expected "${expected.scope}" ("${header}")`,
      [exchange],
    );
}

const tokenCache = new WeakMap<Context, Map<string, Promise<Tokens>>>();

/** Tokens of the sandbox user for these scopes, obtained once per run (needs --oauth-user). */
export function tokensFor(ctx: Context, scope = 'pricing:read'): Promise<Tokens> {
  if (!ctx.options.oauthUser || !ctx.options.oauthPassword) throw CheckSkipped.need('oauth-user');
  let cache = tokenCache.get(ctx);
  if (!cache) tokenCache.set(ctx, (cache = new Map()));
  let tokens = cache.get(scope);
  if (!tokens) {
    tokens = obtainTokens(ctx, { scope });
    cache.set(scope, tokens);
    // A failed flow is reported by each check that needed it, and tried again by the next.
    tokens.catch(() => cache.delete(scope));
  }
  return tokens;
}

/** A bearer token value no deployment issued. */
export const BOGUS_TOKEN = 'at_conformance_not_a_real_token_0123456789';
