// The MCP tools and discovery documents against the public document: each tool's input and
// output schema must say what the spec's schema says (x-mcp-tools names them), and the manifest
// and Server Card must validate against McpManifest and McpServerCard.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpManifest, mcpServerCard, serverCardName, toolDescriptors } from '../../server/mcp/discovery.ts';
import { MCP_TOOLS } from '../../server/mcp/tools.ts';
import {
  fakeReads,
  publicDoc,
  resolve,
  schemaErrors,
  startMiniServer,
  type JsonSchema,
  type MiniServer,
} from './support.ts';

const xMcpTools = publicDoc.paths['/mcp']?.post?.['x-mcp-tools'] as Array<{
  name: string;
  input: string;
  output: string;
}>;
const descriptors = toolDescriptors();
/** The revisions the spec says are served (POST /mcp x-mcp-protocol-versions). */
const served = publicDoc.paths['/mcp']?.post?.['x-mcp-protocol-versions'] as string[];

/** The keywords that decide what a property accepts. */
const CONSTRAINTS = [
  'type',
  'pattern',
  'minLength',
  'maxLength',
  'enum',
  'const',
  'minimum',
  'maximum',
  'minItems',
  'maxItems',
] as const;

function constraintsOf(schema: JsonSchema): Record<string, unknown> {
  const resolved = resolve(schema);
  const out: Record<string, unknown> = {};
  for (const key of CONSTRAINTS) if (resolved[key] !== undefined) out[key] = resolved[key];
  return out;
}

describe('the tools against x-mcp-tools', () => {
  it('serves exactly the tools the spec lists', () => {
    expect(MCP_TOOLS.map((t) => t.name).sort()).toEqual(xMcpTools.map((t) => t.name).sort());
  });

  it.each(xMcpTools.map((t) => [t.name, t] as const))('%s takes exactly the spec input schema', (name, entry) => {
    const spec = resolve(publicDoc.components.schemas[entry.input] as JsonSchema);
    const ours = descriptors.find((d) => d.name === name)?.inputSchema as JsonSchema;
    expect(ours.additionalProperties).toBe(spec.additionalProperties);
    expect([...((ours.required as string[]) ?? [])].sort()).toEqual([...((spec.required as string[]) ?? [])].sort());
    const specProps = spec.properties as Record<string, JsonSchema>;
    const ourProps = ours.properties as Record<string, JsonSchema>;
    expect(Object.keys(ourProps).sort()).toEqual(Object.keys(specProps).sort());
    for (const [prop, schema] of Object.entries(specProps)) {
      expect(constraintsOf(ourProps[prop] as JsonSchema), `${name}.${prop}`).toEqual(constraintsOf(schema));
    }
  });

  it.each(xMcpTools.map((t) => [t.name, t] as const))('%s promises the spec output schema', (name, entry) => {
    const spec = resolve(publicDoc.components.schemas[entry.output] as JsonSchema);
    const ours = descriptors.find((d) => d.name === name)?.outputSchema as JsonSchema;
    // Open like every response body: the server may add fields.
    expect(ours.additionalProperties).not.toBe(false);
    expect([...(ours.required as string[])].sort()).toEqual([...(spec.required as string[])].sort());
    for (const prop of spec.required as string[]) {
      const specProp = resolve((spec.properties as Record<string, JsonSchema>)[prop] as JsonSchema);
      const ourProp = (ours.properties as Record<string, JsonSchema>)[prop] as JsonSchema;
      if (specProp.type === 'object') {
        expect([...((ourProp.required as string[]) ?? [])].sort(), `${name}.${prop}`).toEqual(
          [...((specProp.required as string[]) ?? [])].sort(),
        );
      }
    }
  });

  it('answers of the fake reads validate against both the spec and the tool output schemas', async () => {
    const { reads } = fakeReads();
    const answers = {
      DomainSearchResponse: await reads.searchDomain({ q: 'bestcoffeebeans.com' }, undefined),
      WhoisResult: await reads.whoisLookup({ domain: 'example.com' }),
      TldPrice: await reads.tldPrice({ tld: 'com', action: 'renew' }),
      TldMetadata: await reads.tldMetadata({ tld: 'io' }),
    };
    for (const [schema, answer] of Object.entries(answers)) {
      expect(schemaErrors(schema, answer), schema).toBeNull();
      const tool = MCP_TOOLS.find((t) => xMcpTools.find((x) => x.name === t.name)?.output === schema);
      expect(tool?.output.safeParse(answer).success, schema).toBe(true);
    }
  });
});

describe('discovery documents', () => {
  let server: MiniServer;
  beforeAll(async () => {
    server = await startMiniServer(fakeReads().reads, { baseUrl: 'https://api.example.com' });
  });
  afterAll(async () => {
    await server.close();
  });

  it('the manifest validates, points at this deployment and lists the tools', async () => {
    for (const path of ['/.well-known/mcp.json', '/.well-known/mcp']) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const body = (await res.json()) as ReturnType<typeof mcpManifest>;
      expect(schemaErrors('McpManifest', body), path).toBeNull();
      expect(body).toMatchObject({
        endpoint: 'https://api.example.com/mcp',
        transport: 'streamable-http',
        protocol_versions: served,
        server_card: 'https://api.example.com/mcp/server-card',
        authentication: {
          required: false,
          protected_resource_metadata: 'https://api.example.com/.well-known/oauth-protected-resource/mcp',
        },
      });
      expect(body.tools.map((t) => t.name)).toEqual(MCP_TOOLS.map((t) => t.name));
    }
  });

  it('the server card validates at both locations with its own media type', async () => {
    for (const path of ['/mcp/server-card', '/.well-known/mcp/server-card.json']) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/mcp-server-card\+json/);
      const body = (await res.json()) as ReturnType<typeof mcpServerCard>;
      expect(schemaErrors('McpServerCard', body), path).toBeNull();
      expect(body.name).toBe('com.example.api/domain-sales');
      expect(body.remotes).toEqual([
        { type: 'streamable-http', url: 'https://api.example.com/mcp', supportedProtocolVersions: served },
      ]);
      expect(body._meta?.['domain-sales/tools']?.map((t) => t.name)).toEqual(MCP_TOOLS.map((t) => t.name));
    }
  });

  it('derives a valid reverse-DNS card name from any host', () => {
    expect(serverCardName('https://api.example.com')).toBe('com.example.api/domain-sales');
    expect(serverCardName('http://127.0.0.1:8080')).toBe('127.0.0.1/domain-sales');
    expect(serverCardName('http://[::1]:8080')).toBe('--1/domain-sales');
    for (const base of ['http://localhost:3000', 'http://127.0.0.1:8080', 'http://[::1]:8080']) {
      expect(schemaErrors('McpServerCard', mcpServerCard(base)), base).toBeNull();
    }
  });
});
