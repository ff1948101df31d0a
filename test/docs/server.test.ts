// The Documents operations through the real server (startServer on an ephemeral port with a
// temporary DATA_DIR): every page listed by /docs.md and /llms.txt answers in both forms, the
// discovery documents match their schemas and every link of /api/v1 and the AI catalog resolves.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { manualClock } from '../../server/clock.ts';
import { CATALOG } from '../../server/docs/catalog.ts';
import { REPO_ROOT } from '../../server/docs/index.ts';
import { loadSigners, signerSlug } from '../../server/docs/signers.ts';
import { configFromEnv } from '../../server/config.ts';
import { startServer, type RunningServer } from '../../server/embedded.ts';
import { assertSchema, documents } from './support.ts';

let server: RunningServer;
let dataDir: string;
let base: string;
// Every request here comes from one IP, so one public rate-limit bucket (60 per 60 s): each test
// starts a fresh window by moving the server's clock on.
const clock = manualClock(Date.now());
beforeEach(() => clock.advance(61_000));

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'docs-test-'));
  server = await startServer({
    config: configFromEnv({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', SANDBOX_INVENTORY_SIZE: '50' }),
    clock,
    log: () => {},
  });
  base = server.url;
}, 60_000);

afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(path.startsWith('http') ? path : `${base}${path}`, { headers });
const markdownLinks = (text: string) => [...text.matchAll(/\]\((http[^)\s]+)\)/g)].map((m) => m[1] ?? '');
const docsPages = (urls: string[]) =>
  urls
    .map((u) => new URL(u).pathname)
    // /docs/vectors/signing.json is a file the docs link, not a page.
    .filter((p) => p.startsWith('/docs') && !p.endsWith('.json'));

describe('the docs pages', () => {
  it('are listed alike by /docs.md and /llms.txt, one per catalog entry', async () => {
    const index = await get('/docs.md');
    const llms = await get('/llms.txt');
    expect(index.status).toBe(200);
    expect(llms.status).toBe(200);
    expect(llms.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const fromIndex = docsPages(markdownLinks(await index.text()));
    const fromLlms = docsPages(markdownLinks(await llms.text()));
    // The catalog's pages, then a page per reference signer (examples/signing/<language>/).
    const signers = loadSigners(REPO_ROOT).map((signer) => `/docs/${signerSlug(signer.language)}.md`);
    expect(signers.length).toBe(6);
    const expected = [...CATALOG.map((e) => `/docs/${e.slug}.md`), ...signers];
    expect(new Set(fromIndex.filter((p) => p !== '/docs.md'))).toEqual(new Set(expected));
    expect(new Set(fromLlms)).toEqual(new Set(['/docs.md', ...expected]));
    for (const url of markdownLinks(await (await get('/llms.txt')).text()))
      expect(url.startsWith(`${base}/`), url).toBe(true);
  });

  it('answer 200 as Markdown at .md and as HTML linking that twin without it', async () => {
    for (const twin of ['/docs.md', ...CATALOG.map((e) => `/docs/${e.slug}.md`)]) {
      const md = await get(twin);
      expect(md.status, twin).toBe(200);
      expect(md.headers.get('content-type'), twin).toBe('text/markdown; charset=utf-8');
      expect(md.headers.get('x-request-id'), twin).toBeTruthy();
      const title = /^# (.+)$/m.exec(await md.text())?.[1];
      const htmlPath = twin.slice(0, -3);
      const html = await get(htmlPath);
      expect(html.status, htmlPath).toBe(200);
      expect(html.headers.get('content-type'), htmlPath).toBe('text/html; charset=utf-8');
      const body = await html.text();
      expect(body, htmlPath).toContain(`<link rel="alternate" type="text/markdown" href="${twin}">`);
      expect(body, htmlPath).toMatch(
        new RegExp(`<h1 id="[a-z0-9-]+">${(title ?? '?').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}</h1>`),
      );
    }
  }, 30_000);

  it('do not depend on Accept', async () => {
    const md = await get('/docs/oauth.md', { accept: 'text/html' });
    expect(md.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    const html = await get('/docs/oauth', { accept: 'text/markdown' });
    expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
  });

  it('answer 404 for an unknown page: HTML for a browser, the Error body for JSON', async () => {
    for (const path of ['/docs/no-such-page', '/docs/no-such-page.md', '/docs/index']) {
      const page = await get(path, { accept: 'text/html' });
      expect(page.status, path).toBe(404);
      expect(page.headers.get('content-type'), path).toBe('text/html; charset=utf-8');
      expect(await page.text(), path).toContain('Page not found');
      const json = await get(path, { accept: 'application/json' });
      expect(json.status, path).toBe(404);
      const error = (await json.json()) as { code: string; request_id: string };
      assertSchema('public', 'Error', error);
      expect(error.code).toBe('not_found');
      expect(error.request_id).toBe(json.headers.get('x-request-id'));
    }
  });

  it('answer 400 validation_error for a slug outside the pattern', async () => {
    for (const path of [
      '/docs/Oauth',
      '/docs/rate--limits',
      '/docs/oauth.html',
      '/docs/-x',
      `/docs/${'a'.repeat(101)}`,
    ]) {
      const res = await get(path, { accept: 'application/json' });
      expect(res.status, path).toBe(400);
      const error = (await res.json()) as { code: string };
      assertSchema('public', 'Error', error);
      expect(error.code, path).toBe('validation_error');
      const page = await get(path);
      expect(page.status, path).toBe(400);
      expect(page.headers.get('content-type'), path).toMatch(/^text\/html/);
    }
  });
});

describe('the discovery documents', () => {
  it('serve both OpenAPI documents as bundled, to any origin', async () => {
    for (const [path, api] of [
      ['/openapi.json', 'public'],
      ['/api/partner/v1/openapi.json', 'partner'],
    ] as const) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('access-control-allow-origin'), path).toBe('*');
      expect(await res.json(), path).toEqual(documents[api]);
    }
  });

  it('serve an API index whose links are absolute and all resolve', async () => {
    const res = await get('/api/v1');
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const index = (await res.json()) as Record<string, unknown> & { mcp: { endpoint: string } };
    assertSchema('public', 'ApiIndex', index);
    const urls: string[] = [];
    const walk = (v: unknown): void => {
      if (typeof v === 'string' && /^https?:/.test(v)) urls.push(v);
      else if (v && typeof v === 'object') Object.values(v).forEach(walk);
    };
    walk(index);
    expect(urls.length).toBe(11);
    for (const url of urls) {
      expect(url.startsWith(`${base}/`), url).toBe(true);
      if (url === index.mcp.endpoint) continue;
      expect((await get(url)).status, url).toBe(200);
    }
    // The MCP endpoint takes POSTs only (GET is 405 with Allow: POST); an initialize answers 200.
    const init = await fetch(index.mcp.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'docs-test', version: '1.0.0' },
        },
      }),
    });
    expect(init.status).toBe(200);
  });

  it('serve an AI catalog whose entries resolve to artifacts of the stated type', async () => {
    const res = await get('/.well-known/ai-catalog.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const catalog = (await res.json()) as {
      host: { documentationUrl: string };
      entries: Array<{ identifier: string; type: string; url: string }>;
    };
    assertSchema('public', 'AiCatalog', catalog);
    expect(catalog.host.documentationUrl).toBe(`${base}/docs`);
    expect(new Set(catalog.entries.map((e) => e.identifier)).size).toBe(catalog.entries.length);
    expect(catalog.entries.map((e) => new URL(e.url).pathname)).toEqual([
      '/mcp/server-card',
      '/openapi.json',
      '/api/partner/v1/openapi.json',
    ]);
    for (const entry of catalog.entries) {
      const artifact = await get(entry.url);
      expect(artifact.status, entry.url).toBe(200);
      const body = (await artifact.json()) as { openapi?: string };
      if (entry.type.startsWith('application/vnd.oai.openapi+json')) expect(body.openapi).toMatch(/^3\.1\./);
      else expect(artifact.headers.get('content-type')).toContain(entry.type);
    }
  });
});
