// Bearer tokens on the public surface (RFC 6750, RFC 9728; the public document's "Authentication" paragraph). A token is resolved on
// every request (it keys the rate limit); whether it is required, optional or ignored is read
// from the operation's `security` in the spec. A token that is sent to an operation accepting
// one must be valid: a bad one is never silently treated as anonymous.
import type { Request, RequestHandler, Response } from 'express';
import { ApiError } from '../http/errors.ts';
import type { AccessTokenVerifier, Viewer } from './context.ts';

export type SecurityRequirement = Array<Record<string, string[]>>;

/** How an operation treats tokens, from its `security` (an empty object is the anonymous alternative). */
export interface TokenPolicy {
  accepts: boolean;
  required: boolean;
  /** Scopes of the first OAuth2 alternative (empty: any valid token). */
  scopes: string[];
}

export function tokenPolicy(security: SecurityRequirement | undefined): TokenPolicy {
  const alternatives = security ?? [];
  const oauth = alternatives.find((alt) => 'OAuth2' in alt);
  return {
    accepts: oauth !== undefined,
    required: oauth !== undefined && !alternatives.some((alt) => Object.keys(alt).length === 0),
    scopes: oauth?.OAuth2 ?? [],
  };
}

/** `Authorization: Bearer <token>`; undefined without one, '' for a malformed header. */
export function bearerToken(req: Request): string | undefined {
  const header = req.get('authorization');
  if (header === undefined) return undefined;
  const m = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header);
  return m ? m[1] : '';
}

/** RFC 8707 audience: `<base>` everywhere, `<base>/mcp` only at /mcp. */
export function audienceAllows(viewer: Viewer, base: string, path: string): boolean {
  return viewer.resource === base || (viewer.resource === `${base}/mcp` && path === '/mcp');
}

export interface BearerDeps {
  accessTokens: AccessTokenVerifier;
  baseUrl(req: Request): string;
  policyOf(operationId: string): TokenPolicy;
}

/** Resolves the token into `res.locals.viewer` before the rate limit counts the request. */
export function resolveBearer(deps: BearerDeps): RequestHandler {
  return async (req, res, next) => {
    try {
      const token = bearerToken(req);
      if (token) {
        res.locals.bearerToken = token;
        const viewer = await deps.accessTokens.verify(token);
        const path = res.locals.operation?.path ?? req.path;
        if (viewer && audienceAllows(viewer, deps.baseUrl(req), path)) res.locals.viewer = viewer;
      }
      next();
    } catch (err) {
      next(err);
    }
  };
}

function challenge(
  req: Request,
  res: Response,
  deps: BearerDeps,
  scope: string,
  error?: 'invalid_token' | 'insufficient_scope',
): string {
  // RFC 9728 §3.1: the metadata of a resource with a path is at the path-inserted address.
  const resourcePath = res.locals.operation?.path === '/mcp' ? '/mcp' : '';
  const metadata = `${deps.baseUrl(req)}/.well-known/oauth-protected-resource${resourcePath}`;
  return `Bearer ${error ? `error="${error}", ` : ''}resource_metadata="${metadata}", scope="${scope}"`;
}

/** After the rate limit (so 401s carry its headers): the operation's token rules. */
export function enforceBearer(deps: BearerDeps): RequestHandler {
  return (req: Request, res: Response, next) => {
    const operation = res.locals.operation;
    if (!operation) return next();
    const policy = deps.policyOf(operation.operationId);
    if (!policy.accepts) return next();
    const scope = policy.scopes.length ? policy.scopes.join(' ') : 'pricing:read';
    const sent = res.locals.bearerToken !== undefined || req.get('authorization') !== undefined;
    if (sent && !res.locals.viewer) {
      return next(
        new ApiError(
          'invalid_token',
          'The access token is invalid, expired, revoked or meant for another resource; refresh it or sign in again',
          undefined,
          {
            'WWW-Authenticate': challenge(req, res, deps, scope, 'invalid_token'),
          },
        ),
      );
    }
    if (!sent && policy.required) {
      return next(
        new ApiError(
          'missing_credentials',
          `${operation.method} ${operation.path} needs a bearer token; see WWW-Authenticate for the authorization server`,
          undefined,
          {
            'WWW-Authenticate': challenge(req, res, deps, scope),
          },
        ),
      );
    }
    const viewer = res.locals.viewer;
    if (viewer && policy.required) {
      const missing = policy.scopes.filter((s) => !viewer.scopes.includes(s));
      if (missing.length) {
        return next(
          new ApiError(
            'insufficient_scope',
            `This token lacks the scope "${missing.join('", "')}"; request it at /oauth/authorize`,
            undefined,
            {
              'WWW-Authenticate': challenge(req, res, deps, scope, 'insufficient_scope'),
            },
          ),
        );
      }
    }
    next();
  };
}
