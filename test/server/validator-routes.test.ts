// express-openapi-validator in front of the partner document, with its route lookup's compiled
// paths kept (server/http/validator.ts): every path still finds its own operation, and a lookup
// compiles nothing new once each path has been compiled.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GENERATED_DIR } from '../../server/app.ts';
import { loadDocument } from '../../server/http/operations.ts';
import { keepCompiledRoutes, openApiValidator } from '../../server/http/validator.ts';

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
    app.use((req, res) => void res.json(matched(req)));
    app.use((err: { status?: number }, req: express.Request, res: express.Response, _next: express.NextFunction) => void res.status(200).json({ ...matched(req), status: err.status }));
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
});
