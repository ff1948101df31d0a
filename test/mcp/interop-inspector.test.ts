// The MCP Inspector's command-line clients, driven non-interactively against the real server:
// Inspector CLI 0.15.0 (SDK v1; runs on Node 20) and Inspector 2.12.0 (`mcp-inspector --cli`,
// SDK v2; needs Node 22, brought by the devDependency `node`). Each lists the four tools, calls
// each one and gets a failing call back as a result (isError with the message as text), where
// both used to throw -32602 "Structured content does not match the tool's output schema".
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signIn } from '../bulk/support.ts';
import { node22, ROOT, run, sharedServerWithListing, type RunResult } from './interop-support.ts';

interface ToolResult {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content?: Array<{ type: string; text?: string }>;
}

const env = sharedServerWithListing();

const CALLS: Array<[string, string[], Record<string, unknown>]> = [
  ['search_domain', ['q=__listed__'], { result: { status: 'listed' } }],
  ['whois_lookup', ['domain=__listed__'], { objectClassName: 'domain' }],
  ['tld_registration_price', ['tld=com', 'op=register'], { tld: 'com', action: 'register' }],
  ['tld_requirements', ['tld=io'], { tld: 'io' }],
];

/** The CLI's stdout as JSON (both Inspectors print the method's result). */
function resultOf(r: RunResult): unknown {
  try {
    return JSON.parse(r.stdout) as unknown;
  } catch {
    throw new Error(`the Inspector printed no JSON (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
  }
}

/** One Inspector CLI generation: how to run it with a method and its arguments. */
interface Inspector {
  name: string;
  cli(args: string[]): Promise<RunResult>;
  /** The exit code of a call whose result is a tool error (not a protocol failure). */
  toolErrorExit: number;
  /** Whether it sends a pricing:read bearer token (Inspector 2's --header; 0.15 has no such option). */
  signedIn: boolean;
}

let token: string;
beforeAll(async () => {
  // Inspector 2's calls count against its token, not against the address both Inspectors share.
  token = await signIn(env.server.url, 'pricing:read', `${env.server.url}/mcp`);
});

function inspectors(): Inspector[] {
  const out: Inspector[] = [
    {
      name: 'Inspector CLI 0.15.0 (SDK v1)',
      cli: (args) =>
        run(process.execPath, [
          join(ROOT, 'node_modules', 'mcp-inspector-cli-v0', 'build', 'index.js'),
          `${env.server.url}/mcp`,
          ...args,
        ]),
      toolErrorExit: 0,
      signedIn: false,
    },
  ];
  const node = node22('the Inspector 2.12 test');
  if (node) {
    const home = mkdtempSync(join(tmpdir(), 'inspector-home-'));
    afterAll(() => rmSync(home, { recursive: true, force: true }));
    out.push({
      name: 'Inspector 2.12.0 (SDK v2)',
      // Its catalog and secret store live under HOME: a throwaway one.
      cli: (args) =>
        run(
          node,
          [
            join(ROOT, 'node_modules', 'mcp-inspector-v2', 'clients', 'launcher', 'build', 'index.js'),
            '--cli',
            `${env.server.url}/mcp`,
            '--header',
            `Authorization: Bearer ${token}`,
            ...args,
          ],
          {
            env: { ...process.env, HOME: home, NO_COLOR: '1' },
          },
        ),
      // Its documented exit code for a call that returned isError: true.
      toolErrorExit: 5,
      signedIn: true,
    });
  }
  return out;
}

describe.each(inspectors())('$name', (inspector) => {
  it('lists the four tools with their schemas', async () => {
    const r = await inspector.cli(['--method', 'tools/list']);
    expect(r.code, r.stderr).toBe(0);
    const { tools } = resultOf(r) as { tools: Array<{ name: string; inputSchema: unknown; outputSchema: unknown }> };
    expect(tools.map((t) => t.name).sort()).toEqual([
      'search_domain',
      'tld_registration_price',
      'tld_requirements',
      'whois_lookup',
    ]);
    expect(tools.every((t) => t.outputSchema !== undefined)).toBe(true);
  });

  it.each(CALLS)('calls %s', async (name, args, expected) => {
    const toolArgs = args.map((a) => a.replace('__listed__', env.listed));
    const r = await inspector.cli(['--method', 'tools/call', '--tool-name', name, '--tool-arg', ...toolArgs]);
    expect(r.code, r.stderr).toBe(0);
    const result = resultOf(r) as ToolResult;
    expect(result.isError ?? false).toBe(false);
    expect(result.structuredContent).toMatchObject(expected);
    // The bearer token sent with --header reaches search_domain: real prices.
    if (name === 'search_domain')
      expect(result.structuredContent).toMatchObject({ result: { price_masked: !inspector.signedIn } });
  });

  it('gets a failing call back as a tool error result, the message as text', async () => {
    for (const [domain, code] of [
      ['nosuch-zzzq.com', 'not_found'],
      ['not_a_domain', 'validation_error'],
    ] as const) {
      const r = await inspector.cli([
        '--method',
        'tools/call',
        '--tool-name',
        'whois_lookup',
        '--tool-arg',
        `domain=${domain}`,
      ]);
      expect(r.code, `${domain}: ${r.stderr}`).toBe(inspector.toolErrorExit);
      expect(`${r.stdout}${r.stderr}`).not.toContain('-32602');
      const result = resultOf(r) as ToolResult;
      expect(result.isError).toBe(true);
      expect(result.content?.[0]?.text).toMatch(new RegExp(`^${code}: `));
    }
  });
});
