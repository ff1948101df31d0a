// express-openapi-validator in front of the partner document, with its route lookup's compiled
// paths kept (server/http/validator.ts): every path still finds its own operation, and a lookup
// compiles nothing new once each path has been compiled.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GENERATED_DIR } from '../../server/app.ts';
import { loadDocument } from '../../server/http/operations.ts';
import { fromValidator, keepCompiledRoutes, openApiValidator } from '../../server/http/validator.ts';

describe('the validator’s route lookup with compiled paths kept', () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    const app = express();
    app.use(...openApiValidator(loadDocument(GENERATED_DIR, 'partner'), { validateResponses: false }));
    // Answers with what the validator matched (the requests lack the signature headers, so most
    // fail its validation after the match), so a wrong match shows.
    const matched = (req: express.Request) => {
      const openapi = (req as { openapi?: { openApiRoute?: string; pathParams?: Record<string, string> } }).openapi;
      return { route: openapi?.openApiRoute ?? null, params: { ...openapi?.pathParams } };
    };
    // A handler that changes its request's params must not change another request's.
    const mutate = (req: express.Request) => {
      const openapi = (req as { openapi?: { pathParams?: Record<string, string> } }).openapi;
      if (req.originalUrl.includes('mutate=1') && openapi?.pathParams) openapi.pathParams.public_id = 'changed';
    };
    app.use((req, res) => {
      const answer = matched(req);
      mutate(req);
      res.json(answer);
    });
    app.use((err: { status?: number }, req: express.Request, res: express.Response, _next: express.NextFunction) => {
      const answer = { ...matched(req), status: err.status };
      mutate(req);
      res.status(200).json(answer);
    });
    server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const get = async (path: string) => (await fetch(`${base}${path}`)).json() as Promise<{ route?: string | null; params?: Record<string, string>; status?: number }>;

  it('matches each path to its own operation, with its path parameters, before and after the paths are kept', async () => {
    for (let round = 0; round < 2; round++) {
      expect(await get('/api/partner/v1/orders/ord_123')).toMatchObject({ route: '/api/partner/v1/orders/{public_id}', params: { public_id: 'ord_123' } });
      expect(await get('/api/partner/v1/brokerage/eligibility?domain=a.com')).toMatchObject({ route: '/api/partner/v1/brokerage/eligibility' });
      expect(await get('/api/partner/v1/brokerage/case_9')).toMatchObject({ route: '/api/partner/v1/brokerage/{case_id}', params: { case_id: 'case_9' } });
      expect(await get('/api/partner/v1/events?limit=5')).toMatchObject({ route: '/api/partner/v1/events' });
      expect(await get('/api/partner/v1/nowhere')).toEqual({ route: null, params: {}, status: 404 });
    }
  });

  it('a lookup compiles nothing new once the paths it walks are kept', async () => {
    await get('/api/partner/v1/events');
    const before = keepCompiledRoutes().compiled;
    expect(before).toBeGreaterThan(10);
    for (let i = 0; i < 5; i++) await get('/api/partner/v1/events');
    await get('/api/partner/v1/orders/ord_9');
    expect(keepCompiledRoutes().compiled).toBe(before);
  });

  it('a lookup already made is given again without trying the paths, as a copy per request', async () => {
    // Counts the paths the validator tries from here on (it asks path-to-regexp for each).
    const module = fromValidator('path-to-regexp') as { pathToRegexp: (...args: unknown[]) => unknown };
    const compile = module.pathToRegexp;
    let tried = 0;
    module.pathToRegexp = (...args: unknown[]) => {
      tried++;
      return compile(...args);
    };
    try {
      expect(await get('/api/partner/v1/orders/ord_kept?x=1')).toMatchObject({ route: '/api/partner/v1/orders/{public_id}', params: { public_id: 'ord_kept' } });
      expect(tried).toBeGreaterThan(0);
      tried = 0;
      // Same method and path, another query: kept. The handler below mutates its params; the next
      // request still gets the path's own.
      expect(await get('/api/partner/v1/orders/ord_kept?x=2&mutate=1')).toMatchObject({ route: '/api/partner/v1/orders/{public_id}', params: { public_id: 'ord_kept' } });
      expect(await get('/api/partner/v1/orders/ord_kept')).toMatchObject({ params: { public_id: 'ord_kept' } });
      expect(tried).toBe(0);
      // Another path is looked up afresh, and a refused one is never kept.
      expect(await get('/api/partner/v1/orders/ord_other')).toMatchObject({ params: { public_id: 'ord_other' } });
      expect(tried).toBeGreaterThan(0);
      for (let i = 0; i < 2; i++) expect(await get('/api/partner/v1/nowhere')).toEqual({ route: null, params: {}, status: 404 });
      tried = 0;
      await get('/api/partner/v1/nowhere');
      expect(tried).toBeGreaterThan(0);
    } finally {
      module.pathToRegexp = compile;
    }
  });
});
