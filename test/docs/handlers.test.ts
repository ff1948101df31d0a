// getDocsPage checks the slug itself too (the pipeline's validator normally answers first), so a
// page handler mounted anywhere still answers the documented 400 and 404, as an HTML page for a
// browser and as the Error body for JSON. Also: the path alone picks the format.
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentHandlers, loadDocumentSources } from '../../server/docs/index.ts';
import { errorHandler } from '../../server/http/errors.ts';
import { assertSchema } from './support.ts';

let base: string;
let close: () => Promise<void>;

beforeAll(async () => {
  const handlers = createDocumentHandlers({ baseUrl: () => 'https://docs.example' }, loadDocumentSources());
  const app = express();
  const page = handlers.getDocsPage;
  const llms = handlers.getLlmsTxt;
  if (!page || !llms) throw new Error('missing handlers');
  app.get('/docs/:page', page);
  app.get('/llms.txt', llms);
  app.use(errorHandler(() => {}));
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => new Promise<void>((resolve) => server.close(() => resolve()));
});

afterAll(() => close());

describe('getDocsPage on its own', () => {
  it('answers a malformed slug with a 400 page, or validation_error for JSON', async () => {
    for (const slug of ['Upper', 'a_b', 'x.md.md', 'a'.repeat(101)]) {
      const html = await fetch(`${base}/docs/${slug}`, { headers: { accept: 'text/html' } });
      expect(html.status, slug).toBe(400);
      expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(await html.text()).toContain('<h1>Invalid page address</h1>');
      const json = await fetch(`${base}/docs/${slug}`, { headers: { accept: 'application/json' } });
      expect(json.status, slug).toBe(400);
      const body = (await json.json()) as { code: string; details: Array<{ path: string }> };
      assertSchema('public', 'Error', body);
      expect(body.code).toBe('validation_error');
      expect(body.details[0]?.path).toBe('/path/page');
    }
  });

  it('accepts the longest slug the contract allows and answers 404 for it', async () => {
    const res = await fetch(`${base}/docs/${'a'.repeat(100)}`, { headers: { accept: 'application/json' } });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { code: string }).code).toBe('not_found');
  });

  it('picks the format from the path and writes Markdown links against the base URL', async () => {
    const md = await fetch(`${base}/docs/getting-started.md`, { headers: { accept: 'text/html' } });
    expect(md.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    const text = await md.text();
    expect(text).toContain('](https://docs.example/docs/signing.md)');
    expect(text).not.toMatch(/\]\(\/(?!\/)/);
    const llms = await (await fetch(`${base}/llms.txt`)).text();
    expect(llms).toContain('(https://docs.example/docs/getting-started.md)');
  });
});
