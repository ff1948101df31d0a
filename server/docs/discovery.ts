// The two JSON discovery documents of this module: the API index (`/api/v1`, also answered by
// the `/api` probe with a valid token) and the AI catalog (`/.well-known/ai-catalog.json`).
// Pure: a base URL in, a document out.
import type { components } from '../../generated/public.d.ts';

export type ApiIndex = components['schemas']['ApiIndex'];
export type AiCatalog = components['schemas']['AiCatalog'];

export function apiIndex(baseUrl: string): ApiIndex {
  const at = (path: string) => `${baseUrl}${path}`;
  return {
    name: 'Domain Sales API',
    openapi: { public: at('/openapi.json'), partner: at('/api/partner/v1/openapi.json') },
    docs: { html: at('/docs'), markdown: at('/docs.md'), llms_txt: at('/llms.txt') },
    mcp: { endpoint: at('/mcp'), manifest: at('/.well-known/mcp.json'), server_card: at('/mcp/server-card') },
    oauth: {
      authorization_server_metadata: at('/.well-known/oauth-authorization-server'),
      protected_resource_metadata: at('/.well-known/oauth-protected-resource'),
    },
    ai_catalog: at('/.well-known/ai-catalog.json'),
  };
}

const OPENAPI_TYPE = 'application/vnd.oai.openapi+json;version=3.1';

export function aiCatalog(baseUrl: string): AiCatalog {
  // The authority (host and port) names the deployment: two sandboxes on one host stay apart.
  const host = new URL(baseUrl).host;
  return {
    specVersion: '1.0',
    host: { displayName: 'Domain Sales', identifier: host, documentationUrl: `${baseUrl}/docs` },
    entries: [
      {
        identifier: `urn:air:${host}:mcp:domain-sales`,
        displayName: 'Domain Sales MCP server',
        description:
          'Domain search, WHOIS, TLD prices and requirements as MCP tools (Streamable HTTP, optional OAuth for real prices).',
        type: 'application/mcp-server-card+json',
        url: `${baseUrl}/mcp/server-card`,
        tags: ['mcp', 'domains'],
      },
      {
        identifier: `urn:air:${host}:openapi:public`,
        displayName: 'Domain Sales Public API',
        type: OPENAPI_TYPE,
        url: `${baseUrl}/openapi.json`,
        tags: ['openapi', 'public'],
      },
      {
        identifier: `urn:air:${host}:openapi:partner`,
        displayName: 'Domain Sales Partner API',
        type: OPENAPI_TYPE,
        url: `${baseUrl}/api/partner/v1/openapi.json`,
        tags: ['openapi', 'partner'],
      },
    ],
  };
}
