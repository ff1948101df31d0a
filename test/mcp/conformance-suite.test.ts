// The official MCP conformance suite (npm @modelcontextprotocol/conformance) against the real
// server, started as `npm start` starts it: 0.1.16 (the latest release, 2025-06-18 and
// 2025-11-25 scenarios) and 0.2.0-alpha.12 (the only line with 2026-07-28 scenarios). It needs
// Node 22, brought by the devDependency `node`; the project itself runs on Node 20.
//
// Every scenario that applies to a stateless server offering only tools runs, and every one of
// its checks must pass. The others, and why they do not apply, are NOT_APPLICABLE below; within
// two applicable scenarios a few checks need the suite's own diagnostic tools or features this
// server does not offer (UNTESTABLE_CHECKS).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { node22, ROOT, run, startInteropServer, type InteropServer } from './interop-support.ts';

const SUITES = {
  '0.1.16': join(ROOT, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js'),
  '0.2.0-alpha.12': join(ROOT, 'node_modules', 'mcp-conformance-next', 'dist', 'index.js'),
} as const;
type Suite = keyof typeof SUITES;

/** The scenarios that apply to a stateless, tools-only server, by suite release. */
const APPLICABLE: Record<Suite, string[]> = {
  '0.1.16': ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'],
  '0.2.0-alpha.12': [
    'server-initialize',
    'server-session-lifecycle',
    'server-stateless',
    'ping',
    'tools-list',
    'dns-rebinding-protection',
    'http-header-validation',
    'caching',
  ],
};

/** The scenarios that do not apply, and why (kept with the test so the list stays honest). */
export const NOT_APPLICABLE: Record<string, string> = {
  'logging-set-level': 'the server declares no logging capability (a stateless server sends no notifications/message)',
  'completion-complete':
    'no completions capability: it completes prompt and resource-template arguments, and there are none',
  'tools-call-simple-text': 'calls the suite fixture tool test_simple_text; this server has its own four tools',
  'tools-call-image': 'calls the fixture tool test_image_content',
  'tools-call-audio': 'calls the fixture tool test_audio_content',
  'tools-call-embedded-resource': 'calls the fixture tool test_embedded_resource',
  'tools-call-mixed-content': 'calls the fixture tool test_multiple_content_types',
  'tools-call-with-logging': 'calls the fixture tool test_tool_with_logging and expects log notifications',
  'tools-call-error':
    'calls the fixture tool test_error_handling (tool errors as results are proven by the SDK and Inspector tests)',
  'tools-call-with-progress': 'calls the fixture tool test_tool_with_progress and expects progress notifications',
  'tools-call-sampling': 'a server-to-client sampling request: a stateless server sends none',
  'tools-call-elicitation': 'a server-to-client elicitation request: a stateless server sends none',
  'json-schema-2020-12': 'lists the fixture tool json_schema_2020_12_tool',
  'elicitation-sep1034-defaults': 'server-to-client elicitation',
  'elicitation-sep1330-enums': 'server-to-client elicitation',
  'server-sse-polling': 'SSE streams with resumption: the server answers JSON or one SSE event and keeps no stream',
  'server-sse-multiple-streams': 'a GET stream beside POST streams: no GET stream is offered (405)',
  'resources-list': 'no resources (tools only)',
  'resources-read-text': 'no resources',
  'resources-read-binary': 'no resources',
  'resources-templates-read': 'no resources',
  'resources-subscribe': 'no resources',
  'resources-unsubscribe': 'no resources',
  'sep-2164-resource-not-found': 'no resources',
  'prompts-list': 'no prompts (tools only)',
  'prompts-get-simple': 'no prompts',
  'prompts-get-with-args': 'no prompts',
  'prompts-get-embedded-resource': 'no prompts',
  'prompts-get-with-image': 'no prompts',
  'http-custom-header-server-validation':
    'needs a tool with x-mcp-header parameters (SEP-2243); none of the four has one',
  'sep-2640-skills-*': 'the skills extension, not offered',
  'tasks-*': 'the tasks extension, not offered',
  'input-required-result-*':
    '2026-07-28 multi-round-trip results, used by tools that ask the client for input; these four never do',
};

/** Checks of applicable scenarios that need the suite's diagnostic tools or features not offered. */
const UNTESTABLE_CHECKS: Record<string, string> = {
  'sep-2575-server-rejects-undeclared-capability': 'needs the diagnostic tool test_missing_capability',
  'sep-2575-missing-capability-http-400': 'needs the diagnostic tool test_missing_capability',
  'sep-2575-http-server-no-independent-requests-on-stream': 'needs the diagnostic tool test_streaming_elicitation',
  'sep-2575-server-no-log-without-loglevel': 'needs the diagnostic tool test_logging_tool',
  'sep-2549-prompts-list-caching-hints': 'prompts/list: no prompts (-32601)',
  'sep-2549-resources-list-caching-hints': 'resources/list: no resources (-32601)',
  'sep-2549-resources-templates-list-caching-hints': 'resources/templates/list: no resources (-32601)',
};

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'SKIPPED' | 'INFO' | string;
  errorMessage?: string;
}

const node = node22('the MCP conformance suite');
let server: InteropServer;

beforeAll(async () => {
  if (node) server = await startInteropServer(600);
});
afterAll(async () => {
  await server?.close();
});

/** Runs one scenario into a fresh output folder and reads the checks it wrote. */
async function scenario(suite: Suite, name: string): Promise<{ code: number; checks: Check[]; output: string }> {
  const out = mkdtempSync(join(tmpdir(), 'mcp-conformance-'));
  try {
    const result = await run(
      node as string,
      [SUITES[suite], 'server', '--url', `${server.url}/mcp`, '--scenario', name, '-o', out],
      { cwd: out, timeoutMs: 120_000 },
    );
    const checks: Check[] = [];
    for (const dir of readdirSync(out))
      checks.push(...(JSON.parse(readFileSync(join(out, dir, 'checks.json'), 'utf8')) as Check[]));
    return { code: result.code, checks, output: `${result.stdout}\n${result.stderr}` };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

describe.skipIf(!node).each(Object.keys(SUITES) as Suite[])('@modelcontextprotocol/conformance %s', (suite) => {
  it.each(APPLICABLE[suite])('%s: every check passes', async (name) => {
    const { checks, output } = await scenario(suite, name);
    if (name !== 'server-session-lifecycle')
      expect(checks.filter((c) => c.status === 'SUCCESS').length, output).toBeGreaterThan(0);
    const failed = checks.filter(
      (c) => (c.status === 'FAILURE' || c.status === 'WARNING') && !(c.id in UNTESTABLE_CHECKS),
    );
    expect(failed.map((c) => `${c.id}: ${c.errorMessage ?? c.status}`)).toEqual([]);
  });

  it('lists no applicable scenario this test does not run, and every scenario it skips is accounted for', async () => {
    const listed = await run(node as string, [SUITES[suite], 'list', '--server']);
    const names = [...listed.stdout.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1] as string);
    expect(names.length).toBeGreaterThan(10);
    const explained = (n: string) =>
      n in NOT_APPLICABLE || Object.keys(NOT_APPLICABLE).some((k) => k.endsWith('*') && n.startsWith(k.slice(0, -1)));
    expect(names.filter((n) => !APPLICABLE[suite].includes(n) && !explained(n))).toEqual([]);
  });
});

describe('the project stays on Node 20', () => {
  it('node_modules/.bin/node does not shadow the Node running npm (scripts/unshadow-node.mjs)', async () => {
    const { existsSync } = await import('node:fs');
    expect(existsSync(join(ROOT, 'node_modules', '.bin', 'node'))).toBe(false);
    expect(process.versions.node.split('.')[0]).toBe('20');
  });
});
