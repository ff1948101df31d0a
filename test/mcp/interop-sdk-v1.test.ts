// The real server met by the official TypeScript SDK v1 clients that agent hosts embed, one per
// protocol generation: 1.12.3 (asks for 2025-03-26), 1.17.5 and 1.24.0 (2025-06-18, the ones
// that could not connect while only 2025-11-25 was answered) and the newest 1.x (2025-11-25).
// Each negotiates its own revision, lists the four tools, calls each one (the SDK checks every
// structuredContent against the tool's outputSchema) and gets tool failures as results, not as
// the -32602 "Structured content does not match the tool's output schema" they threw before.
import { describe, expect, it } from 'vitest';
import * as v1_12 from 'mcp-sdk-v1-12/client/index.js';
import * as v1_12http from 'mcp-sdk-v1-12/client/streamableHttp.js';
import * as v1_12types from 'mcp-sdk-v1-12/types.js';
import * as v1_17 from 'mcp-sdk-v1-17/client/index.js';
import * as v1_17http from 'mcp-sdk-v1-17/client/streamableHttp.js';
import * as v1_17types from 'mcp-sdk-v1-17/types.js';
import * as v1_24 from 'mcp-sdk-v1-24/client/index.js';
import * as v1_24http from 'mcp-sdk-v1-24/client/streamableHttp.js';
import * as v1_24types from 'mcp-sdk-v1-24/types.js';
import * as v1_latest from 'mcp-sdk-v1-latest/client/index.js';
import * as v1_latestHttp from 'mcp-sdk-v1-latest/client/streamableHttp.js';
import * as v1_latestTypes from 'mcp-sdk-v1-latest/types.js';
import { signIn } from '../bulk/support.ts';
import { sharedServerWithListing } from './interop-support.ts';

interface ToolResult {
  isError?: boolean;
  structuredContent?: unknown;
  content?: Array<{ type: string; text?: string }>;
}
/** What the tests use of a v1 client; every release has at least this. */
interface V1Client {
  connect(transport: unknown): Promise<void>;
  listTools(): Promise<{ tools: Array<{ name: string; outputSchema?: unknown }> }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  getServerVersion(): { name: string } | undefined;
  close(): Promise<void>;
}
interface Release {
  version: string;
  /** The revision the client asks for: its own LATEST_PROTOCOL_VERSION, read from the package. */
  latest: string;
  client(): V1Client;
  transport(url: URL, headers: Record<string, string>): unknown;
}

function release(
  version: string,
  pkg: { Client: new (...args: never[]) => unknown },
  http: { StreamableHTTPClientTransport: new (...args: never[]) => unknown },
  types: { LATEST_PROTOCOL_VERSION: string },
): Release {
  const ClientClass = pkg.Client as unknown as new (info: { name: string; version: string }) => V1Client;
  const Transport = http.StreamableHTTPClientTransport as unknown as new (
    url: URL,
    opts: { requestInit: { headers: Record<string, string> } },
  ) => unknown;
  return {
    version,
    latest: types.LATEST_PROTOCOL_VERSION,
    client: () => new ClientClass({ name: `sdk-v1-${version}`, version }),
    transport: (url, headers) => new Transport(url, { requestInit: { headers } }),
  };
}

const RELEASES: Release[] = [
  release('1.12.3', v1_12, v1_12http, v1_12types),
  release('1.17.5', v1_17, v1_17http, v1_17types),
  release('1.24.0', v1_24, v1_24http, v1_24types),
  release('1.32.2', v1_latest, v1_latestHttp, v1_latestTypes),
];

const env = sharedServerWithListing();

interface Seen {
  /** The protocolVersion the server answered initialize with. */
  negotiated?: string;
  /** MCP-Protocol-Version of each request after initialize. */
  headers: Array<string | null>;
  /** What the client warned about (1.12 warns, and then checks nothing, when it cannot compile an outputSchema). */
  warnings: string[];
}

/**
 * Runs `body` with the global fetch (every v1 release uses it) recording what the client sends
 * to /mcp and what initialize answers: the SDK v1 clients do not all expose the revision.
 */
async function watching<T>(body: (seen: Seen) => Promise<T>): Promise<T> {
  const original = globalThis.fetch;
  const originalWarn = console.warn;
  const seen: Seen = { headers: [], warnings: [] };
  console.warn = (...args: unknown[]) => void seen.warnings.push(args.map(String).join(' '));
  globalThis.fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    const response = await original(input, init);
    if (new URL(url).pathname !== '/mcp' || (init?.method ?? 'GET') !== 'POST') return response;
    const message = JSON.parse(String(init?.body ?? '{}')) as { method?: string };
    if (message.method === 'initialize') {
      const answer = (await response.clone().json()) as { result?: { protocolVersion?: string } };
      seen.negotiated = answer.result?.protocolVersion;
    } else {
      seen.headers.push(new Headers(init?.headers).get('mcp-protocol-version'));
    }
    return response;
  };
  try {
    return await body(seen);
  } finally {
    globalThis.fetch = original;
    console.warn = originalWarn;
  }
}

const errorText = (result: ToolResult) => (result.content ?? []).map((c) => c.text ?? '').join('\n');

describe.each(RELEASES)('SDK v1 $version (asks for $latest)', (r) => {
  it('negotiates its own revision, lists the four tools, calls each one and gets tool failures as results', async () => {
    // A token of its own: calls count per token, so the releases do not share one rate-limit bucket.
    const token = await signIn(env.server.url, 'pricing:read', `${env.server.url}/mcp`);
    await watching(async (seen) => {
      const client = r.client();
      await client.connect(r.transport(new URL(`${env.server.url}/mcp`), { authorization: `Bearer ${token}` }));
      try {
        expect(seen.negotiated).toBe(r.latest);
        expect(client.getServerVersion()?.name).toBe('domain-sales');

        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name).sort()).toEqual([
          'search_domain',
          'tld_registration_price',
          'tld_requirements',
          'whois_lookup',
        ]);
        // Every outputSchema compiled in the client's own validator, so the calls below are checked.
        expect(seen.warnings).toEqual([]);

        const calls: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
          [
            'search_domain',
            { q: env.listed },
            { query: env.listed, result: { domain: env.listed, price_masked: false } },
          ],
          ['whois_lookup', { domain: env.listed }, { objectClassName: 'domain', domain: env.listed }],
          [
            'tld_registration_price',
            { tld: 'com', op: 'register' },
            { tld: 'com', currency: 'USD', action: 'register' },
          ],
          ['tld_requirements', { tld: 'io' }, { tld: 'io' }],
        ];
        for (const [name, args, expected] of calls) {
          const result = (await client.callTool({ name, arguments: args })) as ToolResult;
          expect(result.isError, name).toBe(false);
          expect(result.structuredContent, name).toMatchObject(expected);
        }

        // The cases: an unregistered domain and an invalid one.
        const unregistered = (await client.callTool({
          name: 'whois_lookup',
          arguments: { domain: 'nosuch-zzzq.com' },
        })) as ToolResult;
        expect(unregistered.isError).toBe(true);
        expect(errorText(unregistered)).toMatch(/^not_found: /);
        const invalid = (await client.callTool({
          name: 'whois_lookup',
          arguments: { domain: 'not a domain' },
        })) as ToolResult;
        expect(invalid.isError).toBe(true);
        expect(errorText(invalid)).toMatch(/^validation_error: .*\/arguments\/domain/);

        // Clients from 2025-06-18 on name the revision on every later request; 2025-03-26 has no such header.
        const expectedHeader = r.latest === '2025-03-26' ? null : r.latest;
        expect(new Set(seen.headers)).toEqual(new Set([expectedHeader]));
      } finally {
        await client.close();
      }
    });
  });
});
