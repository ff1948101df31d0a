// The validation step (server/http/validator.ts): routing is the contract index's alone, so each
// operation's validator reads a document of that one operation, with the components it reaches
// and no others, and its query parameters readable by the signing rule (allowReserved).
import express from 'express';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ApiContract, Contract, atPointer, type Json } from '../../server/contract/index.ts';
import { errorHandler } from '../../server/http/errors.ts';
import { matchOperation } from '../../server/http/match-operation.ts';
import { openApiValidator, validatorDocument } from '../../server/http/validator.ts';

const contract = Contract.load();

describe('the document of one operation’s validator', () => {
  it('holds that operation alone, its method alone', () => {
    const op = contract.partner.byId('getOrder');
    if (!op) throw new Error('getOrder is missing from the partner document');
    const doc = validatorDocument(contract.partner, op);
    expect(Object.keys(doc.paths as Json)).toEqual([op.path]);
    expect(Object.keys((doc.paths as Record<string, Json>)[op.path] ?? {}).filter((k) => !k.startsWith('x-'))).toEqual(['get']);
  });

  it('carries every component the operation reaches and none it does not', () => {
    for (const op of contract.operations) {
      const doc = validatorDocument(contract.of(op.api), op);
      // Every $ref left in the document names something inside it.
      for (const ref of JSON.stringify(doc).match(/"\$ref":"[^"]+"/g) ?? []) expect(atPointer(doc, ref.slice(9, -1)), `${op.operationId} ${ref}`).toBeDefined();
    }
    const op = contract.partner.byId('getAvailability');
    if (!op) throw new Error('getAvailability is missing from the partner document');
    const schemas = Object.keys((((validatorDocument(contract.partner, op).components as Json).schemas ?? {}) as Json));
    expect(schemas).toContain('Availability');
    expect(schemas).not.toContain('Order');
  });

  it('keeps a whole component when a $ref points inside it', () => {
    const inner = new ApiContract('public', {
      paths: { '/x': { get: { operationId: 'x', parameters: [{ name: 'q', in: 'query', schema: { $ref: '#/components/schemas/Thing/properties/q' } }], responses: {} } } },
      components: { schemas: { Thing: { type: 'object', properties: { q: { $ref: '#/components/schemas/Q' } } }, Q: { type: 'string' }, Unused: { type: 'string' } } },
    });
    const op = inner.byId('x');
    if (!op) throw new Error('x is missing');
    expect(Object.keys(((validatorDocument(inner, op).components as Json).schemas ?? {}) as Json).sort()).toEqual(['Q', 'Thing']);
  });

  it('marks its query parameters allowReserved and leaves the bundled document untouched', () => {
    const op = contract.public.operations.find((o) => o.parameters.some((p) => p.in === 'query'));
    if (!op) throw new Error('no public operation with a query parameter');
    const doc = validatorDocument(contract.public, op);
    const params = ((doc.paths as Record<string, Record<string, Json>>)[op.path]?.[op.method.toLowerCase()]?.parameters ?? []) as Json[];
    expect(params.filter((p) => p.in === 'query').every((p) => p.allowReserved === true)).toBe(true);
    expect(op.parameters.filter((p) => p.in === 'query').some((p) => p.allowReserved === true)).toBe(false);
  });
});

describe('the validation step', () => {
  it('validates the matched operation’s request and lets a request with no operation pass to the unmatched answer', async () => {
    const app = express();
    app.use(matchOperation(contract.partner), openApiValidator(contract.partner, { validateResponses: false }), (_req, res) => void res.json({ reached: true }));
    app.use(errorHandler(() => {}));
    const server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const missing = await fetch(`${base}/api/partner/v1/availability`);
      expect(missing.status).toBe(400);
      expect(((await missing.json()) as { details: Array<{ path: string }> }).details.map((d) => d.path)).toContain('/query/domain');
      const unknown = await fetch(`${base}/api/partner/v1/availability?domain=a.com&extra=1`);
      expect(unknown.status).toBe(400);
      expect((await fetch(`${base}/api/partner/v1/availability?domain=a.com`)).status).toBe(200);
      expect(await (await fetch(`${base}/api/partner/v1/nowhere`)).json()).toEqual({ reached: true });
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
