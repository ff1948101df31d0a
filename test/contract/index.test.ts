// The contract index (server/contract/index.ts): what it lists is read from the bundled documents
// by hand here, route by route, so a wrong resolution, match or fact shows.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApiContract, Contract, GENERATED_DIR, resolveRef, type Json } from '../../server/contract/index.ts';

const read = (api: string) => JSON.parse(readFileSync(join(GENERATED_DIR, `${api}.openapi.json`), 'utf8')) as Json;
const contract = Contract.load();

describe('the contract index', () => {
  it('lists every operation of each document, once, with its method and path template', () => {
    for (const api of ['partner', 'public', 'admin'] as const) {
      const paths = read(api).paths as Record<string, Record<string, { operationId?: string }>>;
      const expected = Object.entries(paths).flatMap(([path, item]) =>
        Object.entries(item)
          .filter(([method]) => ['get', 'put', 'post', 'delete', 'patch'].includes(method))
          .map(([method, op]) => `${method.toUpperCase()} ${path} ${op.operationId}`),
      );
      expect(
        contract
          .of(api)
          .operations.map((op) => `${op.method} ${op.path} ${op.operationId}`)
          .sort(),
      ).toEqual(expected.sort());
    }
  });

  it('resolves every parameter (no $ref left) and keeps the path-level ones', () => {
    for (const op of contract.operations)
      for (const p of op.parameters) expect(p.$ref, `${op.operationId} ${String(p.name)}`).toBeUndefined();
    const order = contract.partner.byId('getOrder');
    expect(order?.parameters.map((p) => `${String(p.in)}:${String(p.name)}`)).toContain('path:public_id');
  });

  it('reads the x- facts the server acts on', () => {
    const createOrder = contract.partner.byId('createOrder');
    expect(createOrder?.idempotencyKey).toBe('required');
    expect(createOrder?.rateClass).toBe('write');
    expect(createOrder?.scopes.length).toBeGreaterThan(0);
    expect(contract.partner.byId('getAvailability')?.idempotencyKey).toBeUndefined();
    // An operation without its own `security` takes the document's.
    const doc = read('public');
    const inherited = contract.public.operations.find((op) => !('security' in op.object));
    if (inherited) expect(inherited.security).toEqual(doc.security);
  });

  it('routes literal segments before templated ones, decodes path parameters, and tells 405 from 404', () => {
    const partner = contract.partner;
    expect(partner.match('GET', '/api/partner/v1/brokerage/eligibility')).toMatchObject({
      kind: 'found',
      operation: { operationId: 'getBrokerageEligibility' },
    });
    expect(partner.match('GET', '/api/partner/v1/brokerage/case%209')).toMatchObject({
      kind: 'found',
      operation: { operationId: 'getBrokerageCase' },
      params: { case_id: 'case 9' },
    });
    // HEAD is answered wherever GET is (x-head): it is allowed, and routed to the GET operation.
    expect(partner.match('DELETE', '/api/partner/v1/availability')).toEqual({
      kind: 'method-not-allowed',
      allowed: ['GET', 'HEAD'],
    });
    expect(partner.match('HEAD', '/api/partner/v1/availability')).toMatchObject({
      kind: 'found',
      operation: { operationId: 'getAvailability' },
    });
    expect(partner.match('HEAD', '/api/partner/v1/orders')).toMatchObject({
      kind: 'found',
      operation: { method: 'GET', operationId: 'listOrders' },
    });
    expect(partner.match('GET', '/api/partner/v1/nowhere')).toEqual({ kind: 'not-found' });
    expect(partner.match('GET', '/api/partner/v1/orders/ord_1/')).toEqual({ kind: 'not-found' });
  });

  it('follows chains of $refs, and names nothing for a dangling one', () => {
    const doc = {
      components: { parameters: { A: { $ref: '#/components/parameters/B' }, B: { name: 'b', in: 'query' } } },
    };
    expect(resolveRef(doc, { $ref: '#/components/parameters/A' })).toEqual({ name: 'b', in: 'query' });
    expect(resolveRef(doc, { $ref: '#/components/parameters/Z' })).toEqual({});
    const escaped = { components: { schemas: { 'a/b': { type: 'string' } } } };
    expect(resolveRef(escaped, { $ref: '#/components/schemas/a~1b' })).toEqual({ type: 'string' });
  });

  it('routes by the first segment without losing a template that starts with a parameter', () => {
    const op = (operationId: string) => ({ get: { operationId } });
    const doc = new ApiContract('public', {
      paths: {
        '/': op('root'),
        '/{slug}': op('slug'),
        '/{slug}/about': op('slugAbout'),
        '/a': op('a'),
        '/a/b': op('ab'),
        '/a/{x}': op('ax'),
        '/b/{x}': op('bx'),
      },
    });
    const routed = (path: string) => {
      const m = doc.match('GET', path);
      return m.kind === 'found' ? m.operation.operationId : m.kind;
    };
    expect(routed('/')).toBe('root');
    expect(routed('/a')).toBe('a');
    expect(routed('/a/b')).toBe('ab');
    expect(routed('/a/c')).toBe('ax');
    // A first segment some template names literally still reaches the templated-first ones (of
    // two templates with one parameter each, the longer one is tried first).
    expect(routed('/a/about')).toBe('slugAbout');
    expect(routed('/b/c')).toBe('bx');
    expect(routed('/b')).toBe('slug');
    expect(routed('/zz')).toBe('slug');
    expect(routed('/zz/about')).toBe('slugAbout');
    expect(routed('/%61')).toBe('slug');
    expect(routed('/zz/nothing')).toBe('not-found');
    expect(doc.operationsAt('/b').map((o) => o.operationId)).toEqual(['slug']);
    expect(doc.operationsAt('/a/b').map((o) => o.operationId)).toEqual(['ab']);
    expect(doc.operationsAt('/q/r/s')).toEqual([]);
  });

  it('refuses an unknown x-cors policy at start-up', () => {
    expect(
      () => new ApiContract('public', { paths: { '/x': { 'x-cors': 'everyone', get: { operationId: 'x' } } } }),
    ).toThrow(/x-cors/);
  });
});
