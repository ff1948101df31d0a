// The MCP discovery documents: the manifest (/.well-known/mcp.json and /.well-known/mcp) and the
// Server Card (/mcp/server-card and /.well-known/mcp/server-card.json). Both are built from the
// same tool definitions the endpoint serves, so they list exactly what tools/list answers.
import type { components } from '../../generated/public.d.ts';
import { CAPABILITIES, PROTOCOL_VERSIONS, SERVER_INFO, toolJsonSchema } from './server.ts';
import { MCP_TOOLS } from './tools.ts';

type Schemas = components['schemas'];

export const SERVER_CARD_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/v2/server-card.schema.json';
export const SERVER_CARD_MEDIA_TYPE = 'application/mcp-server-card+json';
const DESCRIPTION = 'Domain availability, WHOIS/RDAP, TLD prices and requirements as MCP tools.';

/**
 * openapi-typescript types a schema of `type: object` without properties as
 * `Record<string, never>`; these members are free-form JSON objects (JSON Schemas, capabilities).
 */
type FreeForm = Record<string, never>;
const freeForm = (value: object): FreeForm => value as FreeForm;

/** The tools as tools/list describes them (JSON Schema 2020-12, the same conversion tools/list uses). */
export function toolDescriptors(): Schemas['McpTool'][] {
  return MCP_TOOLS.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: freeForm(toolJsonSchema(tool.input, 'input')),
    outputSchema: freeForm(toolJsonSchema(tool.output, 'output')),
    annotations: freeForm({ ...tool.annotations }),
  }));
}

function authentication(base: string): Schemas['McpAuthentication'] {
  return {
    required: false,
    type: 'oauth2',
    scopes_supported: ['pricing:read'],
    protected_resource_metadata: `${base}/.well-known/oauth-protected-resource/mcp`,
    authorization_server: base,
  };
}

export function mcpManifest(base: string): Schemas['McpManifest'] {
  return {
    name: SERVER_INFO.name,
    version: SERVER_INFO.version,
    description: DESCRIPTION,
    endpoint: `${base}/mcp`,
    transport: 'streamable-http',
    protocol_versions: [...PROTOCOL_VERSIONS],
    server_card: `${base}/mcp/server-card`,
    tools: toolDescriptors(),
    authentication: authentication(base),
  };
}

/**
 * The card's reverse-DNS name from the deployment's host: `api.example.com` gives
 * `com.example.api/domain-sales`; an IP address or a single-label host is kept as it is.
 */
export function serverCardName(base: string): string {
  const host = new URL(base).hostname.replace(/^\[|\]$/g, '');
  const isIp = /^[\d.]+$/.test(host) || host.includes(':');
  const reversed = isIp ? host.replace(/:/g, '-') : host.split('.').reverse().join('.');
  return `${reversed}/${SERVER_INFO.name}`;
}

export function mcpServerCard(base: string): Schemas['McpServerCard'] {
  return {
    $schema: SERVER_CARD_SCHEMA,
    name: serverCardName(base),
    version: SERVER_INFO.version,
    title: 'Domain Sales',
    description: DESCRIPTION,
    websiteUrl: `${base}/docs/public-api`,
    remotes: [{ type: 'streamable-http', url: `${base}/mcp`, supportedProtocolVersions: [...PROTOCOL_VERSIONS] }],
    _meta: {
      'domain-sales/capabilities': freeForm({ ...CAPABILITIES }),
      'domain-sales/tools': toolDescriptors(),
      'domain-sales/authorization': authentication(base),
    },
  };
}
