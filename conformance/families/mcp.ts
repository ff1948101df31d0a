// The MCP server at /mcp (the operation's `x-mcp-tools`), met with the official SDK's
// client over Streamable HTTP (its requests go through the suite's recorder): initialize
// negotiates a served revision, tools/list lists the four tools with input and output schemas,
// each tool's structuredContent validates against its own outputSchema and the contract's schema
// and equals its REST call's answer, a failing call is isError with the Error body as text (no
// structuredContent to break the outputSchema), initialize answers each served 2025 revision it
// is asked for, errors are JSON-RPC error responses, the bearer token of the HTTP request
// unmasks search_domain, and a foreign Origin is refused with 403.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import { CheckFailure, expect, property, type Context, type Family } from '../context.ts';
import { jsonOf, type Exchange } from '../http.ts';
import { samples } from './public-errors.ts';
import { callPublic, expectPublicCode, okJson, tokensFor } from './public-support.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
type Json = Record<string, unknown>;

/** The revisions the contract serves (POST /mcp `x-mcp-protocol-versions`). */
function served(ctx: Context): string[] {
  const versions = ctx.spec.match('public', 'POST', '/mcp')?.object['x-mcp-protocol-versions'];
  if (!Array.isArray(versions) || versions.length === 0)
    throw new Error('the public document names no x-mcp-protocol-versions on POST /mcp');
  return versions as string[];
}

interface ToolInfo {
  name: string;
  description?: string;
  inputSchema?: Json;
  outputSchema?: Json;
}
interface CallResult {
  content?: unknown[];
  structuredContent?: unknown;
  isError?: boolean;
}
interface McpSession {
  listTools(): Promise<{ tools: ToolInfo[] }>;
  callTool(name: string, args: Json): Promise<CallResult>;
  protocolVersion: string | undefined;
  close(): Promise<void>;
}

/** A connected SDK client (the SDK is loaded on demand: it is the suite's only use of it). */
async function connect(ctx: Context, bearer?: string): Promise<McpSession> {
  let sdk: typeof import('@modelcontextprotocol/client');
  try {
    sdk = await import('@modelcontextprotocol/client');
  } catch (err) {
    throw new CheckFailure(
      `the MCP family needs @modelcontextprotocol/client installed (${err instanceof Error ? err.message : String(err)})`,
    );
  }
  const transport = new sdk.StreamableHTTPClientTransport(new URL(`${ctx.http.baseUrl}/mcp`), {
    fetch: ctx.http.asFetch({ rateClass: 'public' }),
    ...(bearer ? { requestInit: { headers: { authorization: `Bearer ${bearer}` } } } : {}),
  });
  const client = new sdk.Client({ name: 'conformance-kit', version: '1.0.0' });
  try {
    await client.connect(transport);
  } catch (err) {
    throw new CheckFailure(
      `initialize with the MCP SDK client failed: ${err instanceof Error ? err.message : String(err)}`,
      ctx.http.exchanges.slice(-2),
    );
  }
  return {
    listTools: async () => await client.listTools(),
    callTool: async (name, args) => await client.callTool({ name, arguments: args }),
    protocolVersion: client.getNegotiatedProtocolVersion(),
    close: () => client.close(),
  };
}

async function withSession<T>(
  ctx: Context,
  bearer: string | undefined,
  run: (s: McpSession) => Promise<T>,
): Promise<T> {
  const session = await connect(ctx, bearer);
  try {
    return await run(session);
  } catch (err) {
    if (err instanceof CheckFailure) throw err;
    throw new CheckFailure(
      `the MCP SDK client failed: ${err instanceof Error ? err.message : String(err)}`,
      ctx.http.exchanges.slice(-2),
    );
  } finally {
    await session.close().catch(() => {});
  }
}

/** The contract's tools: name → the component schemas of input and output, and the REST equivalent. */
function contractTools(ctx: Context): Array<{ name: string; input: string; output: string }> {
  const tools = (ctx.spec.match('public', 'POST', '/mcp')?.object['x-mcp-tools'] ?? []) as Array<{
    name: string;
    input: string;
    output: string;
  }>;
  if (tools.length === 0) throw new Error('the public document names no x-mcp-tools on POST /mcp');
  return tools;
}

const validators = new WeakMap<Json, (v: unknown) => string | undefined>();
function validateAgainst(schema: Json, value: unknown): string | undefined {
  let fn = validators.get(schema);
  if (!fn) {
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    addFormats(ajv);
    const { $schema: _ignored, ...rest } = schema;
    const compiled = ajv.compile(rest);
    fn = (v) =>
      compiled(v)
        ? undefined
        : (compiled.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`).join('; ');
    validators.set(schema, fn);
  }
  return fn(value);
}

const withoutRequestId = (body: unknown) =>
  body && typeof body === 'object' && !Array.isArray(body)
    ? Object.fromEntries(Object.entries(body as Json).filter(([k]) => k !== 'request_id'))
    : body;

/** The REST call a tool stands for (x-mcp-tools `equivalent`). */
function restCall(ctx: Context, tool: string, args: Json): Promise<Exchange> {
  const a = args as Record<string, string>;
  if (tool === 'search_domain') return callPublic(ctx, 'searchDomain', { json: args });
  if (tool === 'whois_lookup') return callPublic(ctx, 'whoisLookup', { json: args });
  if (tool === 'tld_registration_price') return callPublic(ctx, 'getTldPrice', { query: { tld: a.tld, action: a.op } });
  return callPublic(ctx, 'getTldMetadata', { pathParams: { tld: a.tld ?? '' } });
}

const toolsCache = new WeakMap<Context, Promise<ToolInfo[]>>();

export const mcpFamily: Family = {
  name: 'mcp',
  surface: 'public',
  description:
    'The MCP server through the official SDK client: initialize, the four tools with schemas, structuredContent valid, bearer unmasking, Origin',
  needs: [],
  checks: [
    {
      id: 'public.mcp.initialize',
      rules: ['spec:public:postMcpMessage#/x-mcp-tools', 'seed:public › Endpoints › MCP server'],
      name: 'initialize negotiates a served revision; tools/list lists search_domain, whois_lookup, tld_registration_price, tld_requirements with descriptions, input and output schemas',
      async run(ctx) {
        const tools = await withSession(ctx, undefined, async (s) => {
          expect(
            s.protocolVersion !== undefined && served(ctx).includes(s.protocolVersion),
            `initialize negotiated ${JSON.stringify(s.protocolVersion)}; the server serves ${served(ctx).join(', ')}`,
            ctx.http.exchanges.slice(-1),
          );
          return (await s.listTools()).tools;
        });
        toolsCache.set(ctx, Promise.resolve(tools));
        const expected = contractTools(ctx)
          .map((t) => t.name)
          .sort();
        const names = tools.map((t) => t.name).sort();
        expect(
          JSON.stringify(names) === JSON.stringify(expected),
          `tools/list names ${names.join(', ')}; the contract's tools are ${expected.join(', ')}`,
          ctx.http.exchanges.slice(-1),
        );
        for (const t of tools) {
          expect(
            typeof t.description === 'string' && t.description.trim().length >= 10,
            `tool ${t.name} has no helpful description`,
            ctx.http.exchanges.slice(-1),
          );
          for (const key of ['inputSchema', 'outputSchema'] as const) {
            expect(
              t[key]?.type === 'object',
              `tool ${t.name} has no ${key} of type object`,
              ctx.http.exchanges.slice(-1),
            );
          }
          const required = (t.inputSchema?.required ?? []) as string[];
          const props = Object.keys(t.inputSchema?.properties ?? {});
          expect(
            required.every((r) => props.includes(r)),
            `tool ${t.name}'s inputSchema requires ${required.join(', ')} but describes ${props.join(', ')}`,
          );
        }
      },
    },
    {
      id: 'public.mcp.tools',
      rules: ['spec:public:postMcpMessage#/x-mcp-tools'],
      name: "tools/call of each tool: structuredContent valid against the tool's outputSchema and the contract, equal to the REST call's answer",
      async run(ctx) {
        const s = await samples(ctx);
        const tools = await (toolsCache.get(ctx) ??
          withSession(ctx, undefined, async (x) => (await x.listTools()).tools));
        const byName = new Map(tools.map((t) => [t.name, t]));
        const contract = new Map(contractTools(ctx).map((t) => [t.name, t]));
        const call = fc.oneof(
          fc.constantFrom(...s.domains).map((q) => ['search_domain', { q }] as const),
          fc.constantFrom(...s.domains).map((domain) => ['whois_lookup', { domain }] as const),
          fc
            .tuple(
              fc.constantFrom(...s.tlds),
              fc.option(fc.constantFrom('register', 'renew', 'transfer', 'restore'), { nil: undefined }),
            )
            .map(([tld, op]) => ['tld_registration_price', op ? { tld, op } : { tld }] as const),
          fc.constantFrom(...s.tlds).map((tld) => ['tld_requirements', { tld }] as const),
        );
        await withSession(ctx, undefined, async (session) => {
          await property(
            ctx,
            call,
            async ([name, args]) => {
              const tool = byName.get(name);
              if (!tool?.outputSchema) throw new CheckFailure(`tools/list has no ${name} with an outputSchema`);
              const result = await session.callTool(name, args);
              const last = ctx.http.exchanges.slice(-1);
              expect(
                result.isError !== true,
                `tools/call ${name} ${JSON.stringify(args)} failed: ${JSON.stringify(result.structuredContent ?? result.content).slice(0, 300)}`,
                last,
              );
              expect(
                result.structuredContent !== undefined,
                `tools/call ${name} ${JSON.stringify(args)} has no structuredContent`,
                last,
              );
              const own = validateAgainst(tool.outputSchema, result.structuredContent);
              if (own)
                throw new CheckFailure(
                  `tools/call ${name} ${JSON.stringify(args)}: structuredContent does not match the tool's outputSchema: ${own}`,
                  last,
                );
              const schema = contract.get(name)?.output;
              const error = schema
                ? ctx.spec.validate('public', `/components/schemas/${schema}`, result.structuredContent)
                : undefined;
              if (error)
                throw new CheckFailure(
                  `tools/call ${name} ${JSON.stringify(args)}: structuredContent does not match the contract's ${schema}: ${error}`,
                  last,
                );
              const rest = await restCall(ctx, name, args);
              const restBody = okJson(rest, `the REST equivalent of ${name} ${JSON.stringify(args)}`);
              if (
                JSON.stringify(withoutRequestId(restBody)) !==
                JSON.stringify(withoutRequestId(result.structuredContent))
              ) {
                throw new CheckFailure(
                  `tools/call ${name} ${JSON.stringify(args)} answers ${JSON.stringify(result.structuredContent).slice(0, 300)}; its REST call answers ${JSON.stringify(restBody).slice(0, 300)}`,
                  [...last, rest],
                );
              }
            },
            Math.min(ctx.fc.numRuns, 12),
            { cost: { public: 2 } },
          );
          // A tool that fails: isError, the Error body the REST call would answer as text, and
          // no structuredContent (it would have to match the tool's outputSchema).
          const failed = await session.callTool('tld_requirements', { tld: 'notatld' });
          const text = (failed.content?.[1] as { text?: unknown } | undefined)?.text;
          let body: { code?: unknown } | undefined;
          try {
            body = typeof text === 'string' ? (JSON.parse(text) as { code?: unknown }) : undefined;
          } catch {
            body = undefined;
          }
          expect(
            failed.isError === true && failed.structuredContent === undefined && body?.code === 'not_found',
            `tools/call tld_requirements {tld: notatld} must answer isError true, no structuredContent and the not_found Error body as JSON text in content[1], got ${JSON.stringify(failed).slice(0, 300)}`,
            ctx.http.exchanges.slice(-1),
          );
        });
      },
    },
    {
      id: 'public.mcp.bearer',
      rules: ['spec:public:postMcpMessage#/description', 'seed:public › Endpoints › MCP server'],
      needs: ['oauth-user'],
      name: 'the bearer token of the HTTP request reaches search_domain: real prices with it, masked without',
      async run(ctx) {
        const listing = okJson<{ data: Array<{ domain: string; price: number }> }>(
          await callPublic(ctx, 'listMarketListings', { query: { limit: 1, sort: 'price_asc' } }),
          'GET /api/market/listings?limit=1',
        );
        const domain = listing.data[0]?.domain;
        if (!domain) throw new CheckFailure('the marketplace lists nothing');
        const head = (r: CallResult) =>
          (
            r.structuredContent as
              { result?: { domain?: unknown; price?: unknown; price_masked?: unknown } } | undefined
          )?.result;
        const anonymous = await withSession(ctx, undefined, (s) => s.callTool('search_domain', { q: domain }));
        const a = head(anonymous);
        expect(
          a?.price === null && a.price_masked === true,
          `search_domain {q: ${domain}} without a token must mask the price (null, price_masked true), got price ${JSON.stringify(a?.price)}, price_masked ${JSON.stringify(a?.price_masked)}`,
          ctx.http.exchanges.slice(-1),
        );
        const { accessToken } = await tokensFor(ctx, 'pricing:read');
        const authed = await withSession(ctx, accessToken, (s) => s.callTool('search_domain', { q: domain }));
        const b = head(authed);
        expect(
          typeof b?.price === 'number' && b.price_masked === false,
          `search_domain {q: ${domain}} with a valid pricing:read bearer token must answer the real price, got price ${JSON.stringify(b?.price)}, price_masked ${JSON.stringify(b?.price_masked)}`,
          ctx.http.exchanges.slice(-1),
        );
        const sent = ctx.http.exchanges.slice(-1)[0];
        expect(
          sent?.requestHeaders.authorization === `Bearer ${accessToken}`,
          'the SDK client did not send the bearer token (the check proves nothing)',
          sent ? [sent] : [],
        );
      },
    },
    {
      id: 'public.mcp.origin',
      rules: ['spec:public#/components/parameters/Origin', 'spec:public#/paths/~1mcp/post/x-mcp-protocol-versions'],
      name: "Origin: a foreign origin is 403 forbidden (DNS-rebinding protection); the server's own origin and no Origin are accepted; revisions: each served 2025 one is answered when asked, an unknown header is -32022",
      async run(ctx) {
        const message = {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-11-25',
            capabilities: {},
            clientInfo: { name: 'conformance-kit', version: '1.0.0' },
          },
        };
        const headers = { accept: 'application/json, text/event-stream' };
        const foreign = fc.constantFrom(
          'https://evil.example.net',
          'http://attacker.invalid:8080',
          'http://127.0.0.1.evil.example.net',
          `${new URL(ctx.http.baseUrl).protocol}//localhost.evil.example.net`,
        );
        await property(
          ctx,
          foreign,
          async (origin) => {
            const e = await callPublic(ctx, 'postMcpMessage', {
              json: message,
              headers: { ...headers, origin },
              deliberate: true,
            });
            expectPublicCode(ctx, e, 'forbidden', `POST /mcp with Origin: ${origin}`);
          },
          4,
          { cost: { public: 1 } },
        );
        for (const origin of [new URL(ctx.http.baseUrl).origin, undefined]) {
          const e = await callPublic(ctx, 'postMcpMessage', {
            json: message,
            headers: origin ? { ...headers, origin } : headers,
          });
          expect(
            e.status === 200,
            `POST /mcp initialize ${origin ? `with its own Origin ${origin}` : 'without Origin'} answered ${e.status}`,
            [e],
          );
        }
        const badVersion = await callPublic(ctx, 'postMcpMessage', {
          json: { jsonrpc: '2.0', id: 2, method: 'tools/list' },
          headers: { ...headers, 'mcp-protocol-version': '1999-01-01' },
          deliberate: true,
        });
        expectPublicCode(ctx, badVersion, 'validation_error', 'POST /mcp with MCP-Protocol-Version: 1999-01-01');
        const rpc = (jsonOf(badVersion) as { error?: { code?: unknown } } | undefined)?.error?.code;
        expect(
          rpc === -32022,
          `an unsupported MCP-Protocol-Version must be JSON-RPC error -32022 (unsupported protocol version), got ${JSON.stringify(rpc)}`,
          [badVersion],
        );
        // Every served 2025 revision a client asks for in initialize is the one answered.
        for (const version of served(ctx).filter((v) => v.startsWith('2025-'))) {
          const init = await callPublic(ctx, 'postMcpMessage', {
            json: { ...message, params: { ...message.params, protocolVersion: version } },
            headers,
          });
          const answered = (jsonOf(init) as { result?: { protocolVersion?: unknown } } | undefined)?.result
            ?.protocolVersion;
          expect(
            answered === version,
            `initialize asking for ${version}, a served revision, must be answered with it, got ${JSON.stringify(answered)}`,
            [init],
          );
        }
        const note = await callPublic(ctx, 'postMcpMessage', {
          json: { jsonrpc: '2.0', method: 'notifications/initialized' },
          headers: { ...headers, 'mcp-protocol-version': '2025-11-25' },
        });
        expect(
          note.status === 202 && note.responseBody === '',
          `a notification must be accepted with 202 and no body, got ${note.status} ${note.responseBody.slice(0, 100)}`,
          [note],
        );
      },
    },
  ],
};
