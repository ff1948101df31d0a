// The MCP endpoint of the whole reference server (pipeline, real reads, real OAuth tokens),
// through the official SDK client in both protocol eras. Responses are validated against the
// public document by the server itself (response validation is on by default).
import { request } from 'node:http';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signIn, startTestServer, type TestServer } from '../bulk/support.ts';

let server: TestServer;
let pricingToken: string;
let listed: string;

beforeAll(async () => {
  server = await startTestServer();
  pricingToken = await signIn(server.url, 'pricing:read', `${server.url}/mcp`);
  const page = (await (await fetch(`${server.url}/api/market/listings?limit=1`)).json()) as {
    data: Array<{ domain: string; price: number }>;
  };
  listed = page.data[0]?.domain as string;
});
afterAll(async () => {
  await server.close();
});

async function connect(era: 'legacy' | 'modern', token?: string): Promise<Client> {
  const client = new Client(
    { name: 'e2e', version: '1.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: 'auto' } } : {},
  );
  const headers = token ? { authorization: `Bearer ${token}` } : undefined;
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), headers ? { requestInit: { headers } } : {}),
  );
  return client;
}

describe.each(['legacy', 'modern'] as const)('%s client against the real server', (era) => {
  it('negotiates, lists the tools and calls each one', async () => {
    const client = await connect(era);
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(era === 'modern' ? '2026-07-28' : '2025-11-25');
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual([
        'search_domain',
        'tld_registration_price',
        'tld_requirements',
        'whois_lookup',
      ]);
      expect(tools.every((t) => t.outputSchema !== undefined)).toBe(true);

      const search = await client.callTool({ name: 'search_domain', arguments: { q: listed } });
      expect(search.isError).toBe(false);
      expect(search.structuredContent).toMatchObject({
        query: listed,
        result: { domain: listed, status: 'listed', price: null, price_masked: true },
      });

      const whois = await client.callTool({ name: 'whois_lookup', arguments: { domain: listed } });
      expect(whois.isError).toBe(false);
      expect(whois.structuredContent).toMatchObject({ objectClassName: 'domain', domain: listed });

      const price = await client.callTool({
        name: 'tld_registration_price',
        arguments: { tld: 'com', op: 'register' },
      });
      expect(price.structuredContent).toMatchObject({ tld: 'com', currency: 'USD', action: 'register' });
      expect(typeof (price.structuredContent as { price: unknown }).price).toBe('number');

      const meta = await client.callTool({ name: 'tld_requirements', arguments: { tld: 'io' } });
      expect(meta.structuredContent).toMatchObject({ tld: 'io' });

      // A failing call is a result, not a protocol error: the Error body as text, no structuredContent.
      const unknownTld = await client.callTool({ name: 'tld_requirements', arguments: { tld: 'notatld' } });
      expect(unknownTld.isError).toBe(true);
      expect(unknownTld.structuredContent).toBeUndefined();
      const error = JSON.parse((unknownTld.content as Array<{ text: string }>)[1]?.text ?? '') as {
        code: string;
        request_id?: string;
      };
      expect(error.code).toBe('not_found');
      expect(error.request_id).toMatch(/^req_/);
    } finally {
      await client.close();
    }
  });

  it('a pricing:read token sent over HTTP unmasks search_domain prices', async () => {
    const client = await connect(era, pricingToken);
    try {
      const search = await client.callTool({ name: 'search_domain', arguments: { q: listed } });
      const result = (search.structuredContent as { result: { price: number | null; price_masked: boolean } }).result;
      expect(result.price_masked).toBe(false);
      expect(result.price).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });
});

describe('HTTP edges through the pipeline', () => {
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  };
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify(body),
    });

  it('an invalid token is 401 invalid_token with the /mcp resource metadata', async () => {
    const res = await post(initialize, { authorization: 'Bearer at_bogus' });
    expect(res.status).toBe(401);
    // Refused before the body is read, so the id is unknown: null (JSON-RPC 2.0 §5).
    expect(await res.json()).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32000 },
      code: 'invalid_token',
    });
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('a disallowed Origin is 403 forbidden; the server’s own origin is fine', async () => {
    const evil = await post(initialize, { origin: 'https://evil.example.net' });
    expect(evil.status).toBe(403);
    expect(((await evil.json()) as { code: string }).code).toBe('forbidden');
    expect((await post(initialize, { origin: server.url })).status).toBe(200);
    // `Origin: null` (a sandboxed page) is a disallowed origin like any other: 403, never a 400.
    const nullOrigin = await post(initialize, { origin: 'null' });
    expect(nullOrigin.status).toBe(403);
    expect(((await nullOrigin.json()) as { code: string }).code).toBe('forbidden');
  });

  it('an Accept that takes neither JSON nor an event stream is 406 not_acceptable', async () => {
    const res = await post(initialize, { accept: 'text/html' });
    expect(res.status).toBe(406);
    expect(await res.json()).toMatchObject({ code: 'not_acceptable', error: { code: -32000 } });
  });

  it('GET and DELETE /mcp are 405 with Allow: POST and rate-limit headers', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${server.url}/mcp`, { method, headers: { accept: 'text/event-stream' } });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect(res.headers.get('ratelimit-policy')).toBeTruthy();
      expect(((await res.json()) as { code: string }).code).toBe('method_not_allowed');
    }
  });

  it('a batch, a body that is not JSON and an unknown MCP-Protocol-Version are 400 JSON-RPC errors', async () => {
    const batch = await post([{ jsonrpc: '2.0', id: 1, method: 'ping' }]);
    expect(batch.status).toBe(400);
    expect(await batch.json()).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600 },
      code: 'validation_error',
    });
    const garbled = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc":',
    });
    expect(garbled.status).toBe(400);
    expect(await garbled.json()).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700 },
      code: 'validation_error',
    });
    const old = await post({ jsonrpc: '2.0', id: 1, method: 'ping' }, { 'mcp-protocol-version': '2024-11-05' });
    expect(old.status).toBe(400);
    const body = (await old.json()) as {
      code: string;
      id: unknown;
      error: { code: number; data: { supported: string[]; requested: string } };
    };
    expect(body).toMatchObject({
      code: 'validation_error',
      id: 1,
      error: { code: -32022, data: { requested: '2024-11-05' } },
    });
    expect(body.error.data.supported).toEqual(['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26']);
    // A 2026-era request (the _meta envelope) is told the revisions it can switch to that way.
    const envelope = {
      'io.modelcontextprotocol/protocolVersion': '2099-01-01',
      'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const modern = await post(
      { jsonrpc: '2.0', id: 3, method: 'server/discover', params: { _meta: envelope } },
      { 'mcp-protocol-version': '2099-01-01', 'mcp-method': 'server/discover' },
    );
    expect(await modern.json()).toMatchObject({
      id: 3,
      error: { code: -32022, data: { supported: ['2026-07-28'], requested: '2099-01-01' } },
    });
  });

  it.each(['2025-03-26', '2025-06-18', '2025-11-25'])(
    'initialize asking for %s through the pipeline is answered with that revision, and its header accepted',
    async (version) => {
      const res = await post({ ...initialize, params: { ...initialize.params, protocolVersion: version } });
      expect(((await res.json()) as { result: { protocolVersion: string } }).result.protocolVersion).toBe(version);
      const list = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-protocol-version': version });
      expect(list.status).toBe(200);
    },
  );

  it('members and headers past their documented limits are 400 invalid requests (-32600), on every method', async () => {
    const refused = async (res: Response, what: string) => {
      expect(res.status, what).toBe(400);
      expect(await res.json(), what).toMatchObject({
        jsonrpc: '2.0',
        error: { code: -32600 },
        code: 'validation_error',
      });
    };
    await refused(await post({ jsonrpc: '2.0', id: 1, method: 'x'.repeat(257) }), 'method of 257 characters');
    await refused(await post({ jsonrpc: '2.0', id: 'i'.repeat(257), method: 'ping' }), 'id of 257 characters');
    await refused(await post({ jsonrpc: '2.0', id: 2 ** 60, method: 'ping' }), 'id beyond the safe integers');
    await refused(
      await fetch(`${server.url}/mcp`, { method: 'DELETE', headers: { 'mcp-session-id': 's'.repeat(257) } }),
      'DELETE, Mcp-Session-Id of 257',
    );
    await refused(
      await fetch(`${server.url}/mcp`, {
        headers: { accept: `text/event-stream, ${'a'.repeat(1100)}` },
        redirect: 'manual',
      }),
      'GET, Accept over 1024',
    );
    // At the limits they are taken.
    expect((await post({ jsonrpc: '2.0', id: 'i'.repeat(256), method: 'tools/list' })).status).toBe(200);
  });

  it('DNS rebinding: a foreign Host with its own Origin is refused before /mcp answers', async () => {
    // fetch() will not send a Host of our choosing; node:http will.
    const { port } = new URL(server.url);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path: '/mcp',
          method: 'POST',
          headers: {
            host: 'evil.example.com',
            origin: 'http://evil.example.com',
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(initialize));
    });
    expect(status).toBe(421);
  });

  it('a notification is 202 with no body', async () => {
    const res = await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(res.status).toBe(202);
    expect(await res.text()).toBe('');
  });

  it('the discovery documents are served with this deployment’s URLs', async () => {
    const manifest = (await (await fetch(`${server.url}/.well-known/mcp.json`)).json()) as { endpoint: string };
    expect(manifest.endpoint).toBe(`${server.url}/mcp`);
    const card = await fetch(`${server.url}/mcp/server-card`);
    expect(card.headers.get('content-type')).toMatch(/^application\/mcp-server-card\+json/);
    expect(((await card.json()) as { remotes: Array<{ url: string }> }).remotes[0]?.url).toBe(`${server.url}/mcp`);
  });
});
