// The discovery documents: RFC 8414 authorization server metadata, the one discovery document of
// the authorization server (no OpenID Connect discovery: the public document's
// getAuthorizationServerMetadata says why), and RFC 9728 protected resource metadata. Every URL
// is absolute, built from the deployment's base URL.
import type { Request, RequestHandler } from 'express';
import type { components } from '../../generated/public.d.ts';
import type { PublicDeps } from '../public-api/context.ts';
import { DEFAULT_SCOPE, SCOPES } from './scopes.ts';

type Schemas = components['schemas'];

export function authorizationServerMetadata(base: string): Schemas['AuthorizationServerMetadata'] {
  return {
    issuer: base,
    authorization_endpoint: `${base}/oauth/authorize`,
    token_endpoint: `${base}/api/oauth/token`,
    registration_endpoint: `${base}/api/oauth/register`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    scopes_supported: [...SCOPES],
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${base}/docs/oauth`,
  };
}

export function protectedResourceMetadata(base: string, which: 'api' | 'mcp'): Schemas['ProtectedResourceMetadata'] {
  return which === 'api'
    ? {
        resource: base,
        authorization_servers: [base],
        scopes_supported: [...SCOPES],
        bearer_methods_supported: ['header'],
        resource_name: 'Domain Sales API',
        resource_documentation: `${base}/docs/oauth`,
      }
    : {
        resource: `${base}/mcp`,
        authorization_servers: [base],
        scopes_supported: [DEFAULT_SCOPE],
        bearer_methods_supported: ['header'],
        resource_name: 'Domain Sales MCP server',
        resource_documentation: `${base}/docs/mcp`,
      };
}

const serve =
  (deps: PublicDeps, body: (base: string) => unknown): RequestHandler =>
  (req: Request, res) => {
    // Public, identical for every caller of a deployment: caches may keep it a while.
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.json(body(deps.baseUrl(req)));
  };

export function metadataHandlers(deps: PublicDeps) {
  return {
    getAuthorizationServerMetadata: serve(deps, authorizationServerMetadata),
    getProtectedResourceMetadata: serve(deps, (base) => protectedResourceMetadata(base, 'api')),
    getMcpProtectedResourceMetadata: serve(deps, (base) => protectedResourceMetadata(base, 'mcp')),
  };
}
