// POST /api/domains/bulk/{op}: one operation on up to 1,000 of the signed-in user's domains.
// The public pipeline has already answered bad tokens, missing tokens and missing scopes from
// the operation's `security`; the checks here hold the same line if the handler is mounted
// without it.
import type { Request } from 'express';
import { ApiError } from '../http/errors.ts';
import type { HandlerMap, PublicDeps, Viewer } from '../public-api/context.ts';
import { tldMetadata } from '../tlds/index.ts';
import { DEFAULT_MAX_TERM_YEARS, parseBulkRequest } from './operations.ts';
import { runBulk } from './run.ts';

export const MANAGE_SCOPE = 'domains:manage';

function challenge(deps: PublicDeps, req: Request, error?: 'insufficient_scope'): Record<string, string> {
  const metadata = `${deps.baseUrl(req)}/.well-known/oauth-protected-resource`;
  return {
    'WWW-Authenticate': `Bearer ${error ? `error="${error}", ` : ''}resource_metadata="${metadata}", scope="${MANAGE_SCOPE}"`,
  };
}

function managingViewer(deps: PublicDeps, req: Request, viewer: Viewer | undefined): Viewer {
  if (!viewer) {
    throw new ApiError(
      'missing_credentials',
      'Bulk operations need a bearer token with the scope "domains:manage"; see WWW-Authenticate for the authorization server',
      undefined,
      challenge(deps, req),
    );
  }
  if (!viewer.scopes.includes(MANAGE_SCOPE)) {
    const granted = viewer.scopes.join(' ') || 'no scope';
    throw new ApiError(
      'insufficient_scope',
      `This operation needs the scope "${MANAGE_SCOPE}"; the token grants "${granted}"`,
      undefined,
      challenge(deps, req, 'insufficient_scope'),
    );
  }
  return viewer;
}

/** A TLD's longest term from its metadata; the registry-wide ten years for one not in the table. */
const maxTermYears = (tld: string) => tldMetadata(tld)?.term_years.max ?? DEFAULT_MAX_TERM_YEARS;

export function bulkHandlers(deps: PublicDeps): HandlerMap {
  return {
    async runBulkDomainOperation(req, res) {
      const viewer = managingViewer(deps, req, res.locals.viewer);
      const { command, domains } = parseBulkRequest(res.locals.pathParams?.op, req.body);
      res.json(await runBulk(deps.store, viewer.userId, command, domains, { now: deps.clock.now(), maxTermYears }));
    },
  };
}
