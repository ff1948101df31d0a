// POST /mcp through the official SDK client, both protocol eras, against the MCP handlers behind
// a stand-in pipeline and a fake PublicReads (the end-to-end file runs the real server).
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  fakeReads,
  GOOD_TOKEN,
  publicDoc,
  REAL_PRICE,
  schemaErrors,
  startMiniServer,
  type MiniServer,
} from './support.ts';

const { reads, calls } = fakeReads();
let server: MiniServer;

beforeAll(async () => {
  server = await startMiniServer(reads);
});
afterAll(async () => {
  await server.close();
});

type Era = 'legacy' | 'modern';

/**
 * The Error body of a failed tool call: isError, no structuredContent (it would have to match
 * the tool's outputSchema), `<code>: <message>` and then the body as JSON text in `content`.
 */
function toolError(result: Awaited<ReturnType<Client['callTool']>>): Record<string, unknown> {
  expect(result.isError).toBe(true);
  expect(result).not.toHaveProperty('structuredContent');
  const texts = (result.content as Array<{ type: string; text: string }>).map((c) => c.text);
  expect(texts).toHaveLength(2);
  const body = JSON.parse(texts[1] as string) as Record<string, unknown>;
  expect(texts[0]).toBe(`${String(body.code)}: ${String(body.message)}`);
  return body;
}

async function connect(era: Era, token?: string): Promise<Client> {
  const client = new Client(
    { name: 'mcp-test', version: '1.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  const transport = new StreamableHTTPClientTransport(
    new URL(`${server.url}/mcp`),
    token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : {},
  );
  await client.connect(transport);
  return client;
}

describe.each<[Era, string]>([
  ['legacy', '2025-11-25'],
  ['modern', '2026-07-28'],
])('the %s era (%s)', (era, version) => {
  let client: Client;
  beforeAll(async () => {
    client = await connect(era);
  });
  afterAll(async () => {
    await client.close();
  });

  it('negotiates the revision and names the server', () => {
    expect(client.getNegotiatedProtocolVersion()).toBe(version);
    expect(client.getServerVersion()?.name).toBe('domain-sales');
  });

  it('lists the four tools with input and output schemas', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'search_domain',
      'tld_registration_price',
      'tld_requirements',
      'whois_lookup',
    ]);
    for (const tool of tools) {
      expect(tool.description, tool.name).toBeTruthy();
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.inputSchema.additionalProperties, `${tool.name} input is closed`).toBe(false);
      expect(tool.outputSchema?.type, `${tool.name} has an output schema`).toBe('object');
      expect(tool.annotations?.readOnlyHint).toBe(true);
    }
    const search = tools.find((t) => t.name === 'search_domain');
    expect(search?.inputSchema.required).toEqual(['q']);
    expect(search?.outputSchema?.required).toEqual(['query', 'result', 'alternatives']);
  });

  it('search_domain answers the REST body with masked prices and no token', async () => {
    const result = await client.callTool({ name: 'search_domain', arguments: { q: 'bestcoffeebeans.com' } });
    expect(result.isError).toBe(false);
    const body = result.structuredContent as { result: { price: number | null; price_masked: boolean }; query: string };
    expect(body.query).toBe('bestcoffeebeans.com');
    expect(body.result).toMatchObject({ price: null, price_masked: true });
    const texts = (result.content as Array<{ type: string; text: string }>).map((c) => c.text);
    expect(texts[0]).toContain('price hidden');
    expect(JSON.parse(texts[1] as string)).toEqual(body);
    expect(calls.at(-1)).toMatchObject({ method: 'searchDomain', viewer: undefined });
  });

  it('whois_lookup, tld_registration_price and tld_requirements call their reads', async () => {
    const whois = await client.callTool({ name: 'whois_lookup', arguments: { domain: 'example.com' } });
    expect(whois.structuredContent).toMatchObject({ domain: 'example.com', registrar: 'Example Registrar, Inc.' });
    const price = await client.callTool({ name: 'tld_registration_price', arguments: { tld: 'com', op: 'renew' } });
    expect(price.structuredContent).toMatchObject({ tld: 'com', action: 'renew', price: 1299 });
    // The tool's `op` is the read's `action`.
    expect(calls.at(-1)).toEqual({ method: 'tldPrice', input: { tld: 'com', action: 'renew' } });
    const all = await client.callTool({ name: 'tld_registration_price', arguments: { tld: 'com' } });
    expect(Object.keys((all.structuredContent as { prices: object }).prices).sort()).toEqual([
      'register',
      'renew',
      'restore',
      'transfer',
    ]);
    const meta = await client.callTool({ name: 'tld_requirements', arguments: { tld: 'io' } });
    expect(meta.isError).toBe(false);
    expect(meta.structuredContent).toMatchObject({ tld: 'io', type: 'country-code', term_years: { min: 1, max: 10 } });
  });

  it('a failed read is a tool error carrying the REST Error body as text', async () => {
    const result = await client.callTool({ name: 'whois_lookup', arguments: { domain: 'unregistered-example.com' } });
    expect(toolError(result)).toEqual({
      code: 'not_found',
      message: 'No registration record for "unregistered-example.com"',
      request_id: 'req_test_1',
    });
  });

  it('an unexpected failure is an internal_error tool result, logged, without its details', async () => {
    const result = await client.callTool({ name: 'tld_requirements', arguments: { tld: 'boom' } });
    expect(toolError(result)).toMatchObject({ code: 'internal_error' });
    expect(JSON.stringify(result)).not.toContain('database on fire');
    expect(server.logged.some((line) => line.includes('database on fire'))).toBe(true);
  });

  it('bad arguments are a validation_error tool result with details, never a protocol error', async () => {
    const blank = await client.callTool({ name: 'search_domain', arguments: { q: '' } });
    expect(toolError(blank)).toMatchObject({ code: 'validation_error', details: [{ path: '/arguments/q' }] });
    const extra = await client.callTool({ name: 'tld_requirements', arguments: { tld: 'io', verbose: true } });
    expect(toolError(extra)).toMatchObject({ code: 'validation_error' });
    const badTld = await client.callTool({ name: 'tld_registration_price', arguments: { tld: '.COM' } });
    expect(toolError(badTld)).toMatchObject({ code: 'validation_error', details: [{ path: '/arguments/tld' }] });
    const badOp = await client.callTool({ name: 'tld_registration_price', arguments: { tld: 'com', op: 'buy' } });
    expect(toolError(badOp)).toMatchObject({ code: 'validation_error', details: [{ path: '/arguments/op' }] });
    const missing = await client.callTool({ name: 'whois_lookup', arguments: {} });
    expect(toolError(missing)).toMatchObject({ code: 'validation_error', details: [{ path: '/arguments/domain' }] });
  });

  it('an unknown tool is a JSON-RPC invalid-params error', async () => {
    await expect(client.callTool({ name: 'buy_domain', arguments: {} })).rejects.toThrow(/buy_domain/);
  });

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])(
    'a tool named %s is not found (no prototype lookup)',
    async (name) => {
      await expect(client.callTool({ name, arguments: {} })).rejects.toThrow(new RegExp(`Tool ${name} not found`));
    },
  );

  it('a bearer token reaches search_domain and unmasks the price', async () => {
    const signedIn = await connect(era, GOOD_TOKEN);
    try {
      const result = await signedIn.callTool({ name: 'search_domain', arguments: { q: 'bestcoffeebeans' } });
      expect(result.structuredContent).toMatchObject({
        query: 'bestcoffeebeans.com',
        result: { price: REAL_PRICE, price_masked: false },
      });
      expect(calls.at(-1)?.viewer?.userId).toBe('usr_1');
      expect((result.content as Array<{ text: string }>)[0]?.text).toContain('$2899.00');
    } finally {
      await signedIn.close();
    }
  });
});

describe('HTTP edges of POST /mcp', () => {
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  };

  it('answers a request as JSON with no session id', async () => {
    const res = await post(initialize);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    expect(res.headers.get('x-request-id')).toBe('req_test_1');
    expect(await res.json()).toMatchObject({
      jsonrpc: '2.0',
      id: 1,
      result: { protocolVersion: '2025-11-25', serverInfo: { name: 'domain-sales' } },
    });
  });

  it('ignores a session id sent by the client', async () => {
    const res = await post(
      { jsonrpc: '2.0', id: 9, method: 'tools/list' },
      { 'mcp-session-id': 'stale-session', 'mcp-protocol-version': '2025-11-25' },
    );
    expect(res.status).toBe(200);
    expect(((await res.json()) as { result: { tools: unknown[] } }).result.tools).toHaveLength(4);
  });

  it('answers one SSE event to a client that accepts only text/event-stream', async () => {
    const res = await post(initialize, { accept: 'text/event-stream' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const text = await res.text();
    const data = text.split('\n').find((line) => line.startsWith('data: '));
    expect(JSON.parse((data as string).slice(6))).toMatchObject({ id: 1, result: { protocolVersion: '2025-11-25' } });
  });

  it('answers a 2026-07-28 request as one SSE event too, when only text/event-stream is accepted', async () => {
    const envelope = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const res = await post(
      {
        jsonrpc: '2.0',
        id: 12,
        method: 'tools/call',
        params: { name: 'tld_requirements', arguments: { tld: 'io' }, _meta: envelope },
      },
      {
        accept: 'text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'tld_requirements',
      },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const data = (await res.text()).split('\n').filter((line) => line.startsWith('data: '));
    expect(data).toHaveLength(1);
    expect(JSON.parse((data[0] as string).slice(6))).toMatchObject({
      id: 12,
      result: { isError: false, structuredContent: { tld: 'io' } },
    });
  });

  // JSON.parse keeps `"__proto__"` as an ordinary member, but a copy made by assignment turns it
  // into the object's prototype, where a closed schema no longer sees it (probe round 3, I13).
  it.each([
    ['legacy', '2025-11-25', {}],
    [
      'modern',
      '2026-07-28',
      {
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    ],
  ])('refuses a __proto__ argument like any unknown key (%s era)', async (_era, version, meta) => {
    for (const [n, value] of ['{"polluted":true}', 'null', '1', '[]'].entries()) {
      const params = JSON.stringify({ name: 'tld_requirements', ...meta }).slice(0, -1);
      const raw = `{"jsonrpc":"2.0","id":${30 + n},"method":"tools/call","params":${params},"arguments":{"tld":"io","__proto__":${value}}}}`;
      const res = await fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          'mcp-protocol-version': version,
          'mcp-method': 'tools/call',
          'mcp-name': 'tld_requirements',
        },
        body: raw,
      });
      expect(res.status, raw).toBe(200);
      const body = (await res.json()) as { result: { isError: boolean; content: Array<{ text: string }> } };
      expect(body.result.isError, `${raw} answered ${JSON.stringify(body)}`).toBe(true);
      const error = JSON.parse(body.result.content[1]?.text ?? '{}') as { code: string; message: string };
      expect(error.code).toBe('validation_error');
      expect(error.message).toMatch(/__proto__/);
    }
  });

  it('accepts a notification with 202 and no body', async () => {
    const res = await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(res.status).toBe(202);
    expect(await res.text()).toBe('');
  });

  it('answers an unknown method with a JSON-RPC error in a 200', async () => {
    const res = await post(
      { jsonrpc: '2.0', id: 4, method: 'resources/list' },
      { 'mcp-protocol-version': '2025-11-25' },
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: 4, error: { code: -32601 } });
  });

  it('refuses a disallowed Origin with 403 forbidden and lets allowed ones through', async () => {
    const evil = await post(initialize, { origin: 'https://evil.example.net' });
    expect(evil.status).toBe(403);
    expect(await evil.json()).toMatchObject({
      code: 'forbidden',
      message: 'Origin "https://evil.example.net" is not allowed',
    });
    for (const origin of [server.url, 'http://localhost:5173']) {
      const ok = await post(initialize, { origin });
      expect(ok.status, origin).toBe(200);
    }
    // A sandboxed page or a file: URL sends `Origin: null`: refused by the Origin rule (403), not
    // by the header's schema (it used to be `format: uri`, a 400 validation_error).
    const nullOrigin = await post(initialize, { origin: 'null' });
    expect(nullOrigin.status).toBe(403);
    expect(await nullOrigin.json()).toMatchObject({ code: 'forbidden', error: { code: -32000 } });
  });

  // MCP Streamable HTTP: the client must accept application/json or text/event-stream; an Accept
  // that takes neither gets 406 in the shape of the other MCP errors (Error + JSON-RPC error).
  it.each(['text/html', 'application/xml, text/plain', 'application/json;q=0, text/html'])(
    'answers Accept: %s with 406 not_acceptable',
    async (accept) => {
      const res = await post(initialize, { accept });
      expect(res.status).toBe(406);
      const body = (await res.json()) as Record<string, unknown>;
      expect(body).toMatchObject({ jsonrpc: '2.0', code: 'not_acceptable', error: { code: -32000 } });
      expect(body.request_id).toBe(res.headers.get('x-request-id'));
    },
  );

  it.each(['*/*', 'application/*', 'text/*', 'text/event-stream;q=0.5, text/html'])(
    'still answers Accept: %s',
    async (accept) => {
      expect((await post(initialize, { accept })).status).toBe(200);
    },
  );

  it('answers a modern request naming a revision it does not serve with 400, JSON-RPC -32022 and the supported ones', async () => {
    const envelope = {
      'io.modelcontextprotocol/protocolVersion': '2027-01-01',
      'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const res = await post(
      { jsonrpc: '2.0', id: 7, method: 'tools/list', params: { _meta: envelope } },
      { 'mcp-method': 'tools/list' },
    );
    expect(res.status).toBe(400);
    const body = (await res.json()) as {
      code: string;
      message: string;
      error: { code: number; data: { supported: string[] } };
    };
    expect(schemaErrors('McpError', body)).toBeNull();
    expect(body.code).toBe('validation_error');
    expect(body.message).toContain('2026-07-28');
    expect(body.error.code).toBe(-32022);
    // The SDK names the revisions of the client's own (2026) era it could switch to.
    expect(body.error.data.supported).toContain('2026-07-28');
    expect(body.error.data.supported.every((v) => SERVED.includes(v))).toBe(true);
  });

  it('a 2026-07-28 request whose Mcp-Method header disagrees with its body is 400 with JSON-RPC -32020', async () => {
    const envelope = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const res = await post(
      { jsonrpc: '2.0', id: 8, method: 'tools/list', params: { _meta: envelope } },
      { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'prompts/list' },
    );
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(schemaErrors('McpError', body)).toBeNull();
    expect(body).toMatchObject({ jsonrpc: '2.0', id: 8, error: { code: -32020 }, code: 'validation_error' });
  });

  it.each(['initialize', 'ping', 'resources/subscribe'])(
    'a 2026-07-28 request for %s (removed in that revision) is 404 with JSON-RPC -32601',
    async (method) => {
      const envelope = {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': {},
      };
      const res = await post(
        { jsonrpc: '2.0', id: 11, method, params: { _meta: envelope } },
        { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method },
      );
      expect(res.status).toBe(404);
      const body = await res.json();
      expect(schemaErrors('McpError', body)).toBeNull();
      expect(body).toMatchObject({ jsonrpc: '2.0', id: 11, error: { code: -32601 }, code: 'not_found' });
    },
  );

  it.each(['GET', 'DELETE'])(
    '%s /mcp from an MCP client is 405 with Allow: POST and a JSON-RPC error',
    async (method) => {
      const res = await fetch(`${server.url}/mcp`, { method, headers: { accept: 'text/event-stream' } });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      const body = await res.json();
      expect(schemaErrors('McpError', body)).toBeNull();
      expect(body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000 }, code: 'method_not_allowed' });
    },
  );

  it('GET /mcp that is not an MCP client (no text/event-stream) is sent to the MCP guide', async () => {
    for (const accept of ['text/html,application/xhtml+xml,*/*;q=0.8', 'application/json']) {
      const res = await fetch(`${server.url}/mcp`, { headers: { accept }, redirect: 'manual' });
      expect(res.status, accept).toBe(303);
      expect(res.headers.get('location')).toBe('/docs/mcp');
    }
  });

  it('DELETE /mcp naming a session has nothing to end: 204', async () => {
    const res = await fetch(`${server.url}/mcp`, {
      method: 'DELETE',
      headers: { 'mcp-session-id': 'a-session-never-issued' },
    });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
  });
});

/** The revisions the spec says are served (POST /mcp x-mcp-protocol-versions), newest first. */
const SERVED = publicDoc.paths['/mcp']?.post?.['x-mcp-protocol-versions'] as string[];

describe('protocol revisions', () => {
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify(body),
    });
  const initialize = (protocolVersion: string) => ({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });

  it('the spec serves the four revisions the issue names, and the header enum says the same', () => {
    expect([...SERVED].sort()).toEqual(['2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28']);
    const header = (publicDoc.components as unknown as { parameters: Record<string, { schema: { enum: string[] } }> })
      .parameters.McpProtocolVersion;
    expect(header?.schema.enum).toEqual(SERVED);
  });

  it.each(['2025-03-26', '2025-06-18', '2025-11-25'])(
    'initialize asking for %s is answered with that revision',
    async (version) => {
      const res = await post(initialize(version));
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ id: 1, result: { protocolVersion: version } });
    },
  );

  it.each(['2024-11-05', '2026-07-28', '2099-01-01'])(
    'initialize asking for %s (no 2025 revision served) is answered with the newest 2025 one',
    async (version) => {
      const res = await post(initialize(version));
      expect(await res.json()).toMatchObject({ id: 1, result: { protocolVersion: '2025-11-25' } });
    },
  );

  it.each(['2025-03-26', '2025-06-18', '2025-11-25'])(
    'MCP-Protocol-Version: %s is accepted after initialize',
    async (version) => {
      const res = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-protocol-version': version });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { result: { tools: unknown[] } }).result.tools).toHaveLength(4);
    },
  );
});

describe('JSON-RPC error responses on /mcp', () => {
  const send = (body: string, headers: Record<string, string> = {}) =>
    fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body,
    });

  async function rpcError(res: Response, status: number) {
    expect(res.status).toBe(status);
    const body = (await res.json()) as {
      id: unknown;
      error: { code: number; message: string };
      code: string;
      message: string;
      request_id: string;
    };
    expect(schemaErrors('McpError', body), JSON.stringify(body)).toBeNull();
    expect(body.error.message).toBe(body.message);
    expect(body.request_id).toBe('req_test_1');
    return body;
  }

  it('a body that is not JSON is a parse error (-32700) with a null id', async () => {
    const body = await rpcError(await send('{"jsonrpc": "2.0", "id": 1, "method": '), 400);
    expect(body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 }, code: 'validation_error' });
  });

  it.each([
    ['a batch', '[{"jsonrpc":"2.0","id":1,"method":"ping"}]'],
    ['an object that is no JSON-RPC message', '{"hello":"world"}'],
    ['a request without jsonrpc', '{"id":1,"method":"ping"}'],
  ])('%s is an invalid request (-32600) with a null id', async (_name, text) => {
    const body = await rpcError(await send(text), 400);
    expect(body).toMatchObject({ id: null, error: { code: -32600 }, code: 'validation_error' });
  });

  it('a disallowed Origin is 403 with the request id echoed', async () => {
    const body = await rpcError(
      await send('{"jsonrpc":"2.0","id":"o-1","method":"ping"}', { origin: 'https://evil.example.net' }),
      403,
    );
    expect(body).toMatchObject({ id: 'o-1', error: { code: -32000 }, code: 'forbidden' });
  });
});
