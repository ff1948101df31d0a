// The validation step (server/http/validator.ts): routing is the contract index's alone, so each
// operation's validator reads a document of that one operation, with the components it reaches
// and no others, and its query parameters readable by the signing rule (allowReserved).
import express from 'express';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it, vi } from 'vitest';
import { ApiContract, Contract, atPointer, type Json } from '../../server/contract/index.ts';
import { errorHandler } from '../../server/http/errors.ts';
import { matchOperation } from '../../server/http/match-operation.ts';
import { openApiValidator, validatorDocument, warmValidators } from '../../server/http/validator.ts';

const contract = Contract.load();

describe('the document of one operation’s validator', () => {
  it('holds that operation alone, its method alone', () => {
    const op = contract.partner.byId('getOrder');
    if (!op) throw new Error('getOrder is missing from the partner document');
    const doc = validatorDocument(contract.partner, op);
    expect(Object.keys(doc.paths as Json)).toEqual([op.path]);
    expect(Object.keys((doc.paths as Record<string, Json>)[op.path] ?? {}).filter((k) => !k.startsWith('x-'))).toEqual([
      'get',
    ]);
  });

  it('carries every component the operation reaches and none it does not', () => {
    for (const op of contract.operations) {
      const doc = validatorDocument(contract.of(op.api), op);
      // Every $ref left in the document names something inside it.
      for (const ref of JSON.stringify(doc).match(/"\$ref":"[^"]+"/g) ?? [])
        expect(atPointer(doc, ref.slice(9, -1)), `${op.operationId} ${ref}`).toBeDefined();
    }
    const op = contract.partner.byId('getAvailability');
    if (!op) throw new Error('getAvailability is missing from the partner document');
    const schemas = Object.keys((validatorDocument(contract.partner, op).components as Json).schemas ?? {});
    expect(schemas).toContain('Availability');
    expect(schemas).not.toContain('Order');
  });

  it('keeps a whole component when a $ref points inside it', () => {
    const inner = new ApiContract('public', {
      paths: {
        '/x': {
          get: {
            operationId: 'x',
            parameters: [{ name: 'q', in: 'query', schema: { $ref: '#/components/schemas/Thing/properties/q' } }],
            responses: {},
          },
        },
      },
      components: {
        schemas: {
          Thing: { type: 'object', properties: { q: { $ref: '#/components/schemas/Q' } } },
          Q: { type: 'string' },
          Unused: { type: 'string' },
        },
      },
    });
    const op = inner.byId('x');
    if (!op) throw new Error('x is missing');
    expect(Object.keys(((validatorDocument(inner, op).components as Json).schemas ?? {}) as Json).sort()).toEqual([
      'Q',
      'Thing',
    ]);
  });

  it('marks its query parameters allowReserved and leaves the bundled document untouched', () => {
    const op = contract.public.operations.find((o) => o.parameters.some((p) => p.in === 'query'));
    if (!op) throw new Error('no public operation with a query parameter');
    const doc = validatorDocument(contract.public, op);
    const params = ((doc.paths as Record<string, Record<string, Json>>)[op.path]?.[op.method.toLowerCase()]
      ?.parameters ?? []) as Json[];
    expect(params.filter((p) => p.in === 'query').every((p) => p.allowReserved === true)).toBe(true);
    expect(op.parameters.filter((p) => p.in === 'query').some((p) => p.allowReserved === true)).toBe(false);
  });
});

describe('the validation step', () => {
  it('validates the matched operation’s request and lets a request with no operation pass to the unmatched answer', async () => {
    const app = express();
    app.use(
      matchOperation(contract.partner),
      openApiValidator(contract.partner, { validateResponses: false }),
      (_req, res) => void res.json({ reached: true }),
    );
    app.use(errorHandler(() => {}));
    const server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const missing = await fetch(`${base}/api/partner/v1/availability`);
      expect(missing.status).toBe(400);
      expect(((await missing.json()) as { details: Array<{ path: string }> }).details.map((d) => d.path)).toContain(
        '/query/domain',
      );
      const unknown = await fetch(`${base}/api/partner/v1/availability?domain=a.com&extra=1`);
      expect(unknown.status).toBe(400);
      expect((await fetch(`${base}/api/partner/v1/availability?domain=a.com`)).status).toBe(200);
      expect(await (await fetch(`${base}/api/partner/v1/nowhere`)).json()).toEqual({ reached: true });
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('the first request of an operation', () => {
  // The costly part of building a validator is express-openapi-validator's set-up, which compiles
  // the OpenAPI meta-schema once per validator (bench/README.md): counted here at Ajv's `compile`.
  const metaSchemaCompiles = () => {
    let count = 0;
    const original = Ajv2020.prototype.compile;
    const spy = vi.spyOn(Ajv2020.prototype, 'compile').mockImplementation(function (
      this: Ajv2020,
      schema: unknown,
      ...rest: unknown[]
    ) {
      const id = (schema as { $id?: unknown } | null)?.$id;
      if (typeof id === 'string' && id.startsWith('https://spec.openapis.org/oas/')) count += 1;
      return (original as (...a: unknown[]) => unknown).call(this, schema, ...rest);
    } as typeof original);
    return { count: () => count, restore: () => spy.mockRestore() };
  };

  it('pays no validator set-up once the production warm-up has built the validators', async () => {
    // The admin document in the response-checking mode: no other test of this file builds it.
    const app = express();
    app.use(
      express.json(),
      matchOperation(contract.admin),
      openApiValidator(contract.admin, { validateResponses: true }),
      (_req, res) => void res.status(204).end(),
    );
    app.use(errorHandler(() => {}));
    const server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const call = async (op: { method: string; path: string }) => {
      const body = ['POST', 'PUT', 'PATCH'].includes(op.method)
        ? { headers: { 'content-type': 'application/json' }, body: '{}' }
        : {};
      await (await fetch(base + op.path.replace(/\{[^}]+\}/g, 'x'), { method: op.method, ...body })).arrayBuffer();
    };
    const [cold, ...others] = contract.admin.operations;
    if (!cold || others.length === 0) throw new Error('the admin document has too few operations for this test');
    const compiles = metaSchemaCompiles();
    try {
      // Cold: an operation's first request pays the set-up (the probe sees it), its second does not.
      await call(cold);
      expect(compiles.count()).toBe(1);
      await call(cold);
      expect(compiles.count()).toBe(1);

      let turns = 0;
      const built = await warmValidators(
        () => new Promise((resolve) => void setImmediate(() => resolve(void (turns += 1)))),
      );
      expect(built).toBeGreaterThanOrEqual(others.length);
      expect(turns).toBeGreaterThan(built);
      const afterWarmUp = compiles.count();
      expect(afterWarmUp).toBe(1 + built);

      // Warm: no operation's first request sets a validator up any more.
      for (const op of others) await call(op);
      expect(compiles.count()).toBe(afterWarmUp);
      expect(await warmValidators()).toBe(0);
    } finally {
      compiles.restore();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('an answer that breaks the contract (partner document, InternalError)', () => {
  it('after a change that may be committed: answered as written and logged as a contract defect; a safe method: 500', async () => {
    const defects: Array<{ operationId: string; status: number }> = [];
    const app = express();
    app.use(
      express.json(),
      matchOperation(contract.partner),
      openApiValidator(contract.partner, {
        validateResponses: true,
        onContractDefect: (_req, detail) => defects.push({ operationId: detail.operationId, status: detail.status }),
      }),
      // A handler whose answer no schema allows (what budget 1e300 once produced).
      (req, res) => void res.status(req.method === 'POST' ? 201 : 200).json({ budget_cents: 1e300 }),
    );
    app.use(errorHandler(() => {}));
    const server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const opened = await fetch(`${base}/api/partner/v1/brokerage`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': '5f0c3c1e-8a4b-4d2e-9f6a-1b2c3d4e5f60' },
        body: JSON.stringify({ domain: 'wanted.com', tier: 'managed', buyer_email: 'b@example.org', budget: 100 }),
      });
      expect(opened.status).toBe(201);
      expect(await opened.json()).toEqual({ budget_cents: 1e300 });
      expect(defects).toEqual([{ operationId: 'createBrokerageCase', status: 201 }]);
      const read = await fetch(`${base}/api/partner/v1/orders/ord_7QK2M9XB4T`);
      expect(read.status).toBe(500);
      expect(((await read.json()) as { code: string }).code).toBe('internal_error');
      expect(defects).toHaveLength(1);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
