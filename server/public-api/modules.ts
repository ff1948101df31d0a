// Composes the public surface's handlers from the modules that own them: the documents and
// docs, the OAuth authorization server, the REST reads (shared with batch and MCP), MCP, bulk.
import { bulkHandlers } from '../bulk/index.ts';
import { documentHandlers } from '../docs/index.ts';
import { mcpHandlers } from '../mcp/index.ts';
import { createOAuthServer } from '../oauth/index.ts';
import { landingHandlers } from '../public/landing.ts';
import { rdapFromConfig } from '../rdap/index.ts';
import type { AccessTokenVerifier, HandlerMap, PublicDeps } from './context.ts';
import { createPublicReads, readHandlers } from './reads.ts';

export interface PublicModules {
  handlers: HandlerMap;
  /** Handlers that check their whole input themselves (see PublicRouterOptions.selfValidating). */
  selfValidating: HandlerMap;
  accessTokens: AccessTokenVerifier;
}

export function publicModules(deps: PublicDeps): PublicModules {
  const oauth = createOAuthServer(deps);
  const registrations = rdapFromConfig({ enabled: deps.rdapLookup === true });
  const reads = createPublicReads(deps, registrations ? { registrations } : {});
  const handlers: HandlerMap = {
    ...documentHandlers(deps),
    ...oauth.handlers,
    ...readHandlers(deps, reads),
    ...mcpHandlers(deps, reads, deps.mcpAllowedOrigins?.length ? { allowedOrigins: deps.mcpAllowedOrigins } : {}),
    ...bulkHandlers(deps),
    ...landingHandlers(deps),
  };
  // A token-holding prober gets the API index (probeApi: "the same as GET /api/v1").
  if (!handlers.probeApi && handlers.getApiIndex) handlers.probeApi = handlers.getApiIndex;
  return { handlers, selfValidating: oauth.selfValidating, accessTokens: oauth.accessTokens };
}
