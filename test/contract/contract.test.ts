// The bundled documents in generated/ against what the seeds and DECISIONS promise.
// (`npm test` first runs lint:spec, generate:check and typecheck, so generated/ equals spec/.)
import { describe, expect, it } from 'vitest';
import { APIS } from '../../scripts/contract.ts';
import { countExamples, exampleProblems } from '../../scripts/examples.ts';
import { deref, isObject, loadBundle, operations, responsesOf, schemaRef, type JsonObject } from './documents.ts';
import {
  ADMIN_BROKERAGE_ACTIONS,
  ADMIN_OPERATIONS,
  ADMIN_ORDER_ACTIONS,
  DECISIONS_ERROR_CODES,
  PARTNER_ERROR_CODES,
  PARTNER_ADDED_OPERATIONS,
  PARTNER_OPERATIONS,
  PUBLIC_ERROR_CODES,
  PUBLIC_OPERATIONS,
  WEBHOOK_KINDS,
  expectedRateClass,
} from './seed.ts';

const docs = { partner: loadBundle('partner'), public: loadBundle('public'), admin: loadBundle('admin') };
const ERROR_REF = '#/components/schemas/Error';
// The MCP operations answer JSON-RPC error responses that carry the Error members (x-error-format: jsonrpc).
const MCP_ERROR_REF = '#/components/schemas/McpError';
// OAuth's token and registration endpoints answer RFC 6749 / RFC 7591 error bodies (DECISIONS §7).
const OAUTH_SHAPED = new Set(['/api/oauth/token', '/api/oauth/register']);
// The readiness probe's 503 is its report (which checks failed), read by load balancers by status.
const READINESS_REPORT = { path: '/readyz', status: '503', ref: '#/components/schemas/Readiness' };

const find = (doc: JsonObject, method: string, path: string) =>
  operations(doc).find((o) => o.method === method && o.path === path)?.operation;

describe('every document', () => {
  it.each(APIS)('%s declares OpenAPI 3.1.x', (api) => {
    expect(docs[api].openapi).toMatch(/^3\.1\.\d+$/);
  });

  it.each(APIS)('%s: every example validates against its schema', (api) => {
    expect(countExamples(docs[api])).toBeGreaterThan(10);
    expect(exampleProblems(docs[api])).toEqual([]);
  });

  it.each(APIS)('%s: every 4xx/5xx answer has a body, and its JSON body is the Error schema', (api) => {
    const offenders: string[] = [];
    for (const { method, path, operation } of operations(docs[api])) {
      for (const [status, response] of responsesOf(docs[api], operation)) {
        if (!/^[45]/.test(status)) continue;
        const content = isObject(response.content) ? response.content : {};
        if (Object.keys(content).length === 0) offenders.push(`${method} ${path} ${status}: no body`);
        const json = content['application/json'];
        if (json === undefined) continue;
        const ref = schemaRef(json);
        const oauthShaped = OAUTH_SHAPED.has(path) && status !== '429' && status !== '500';
        const expected =
          path === READINESS_REPORT.path && status === READINESS_REPORT.status
            ? READINESS_REPORT.ref
            : operation['x-error-format'] === 'jsonrpc'
              ? MCP_ERROR_REF
              : ERROR_REF;
        if (!oauthShaped && ref !== expected) offenders.push(`${method} ${path} ${status}: ${ref ?? 'inline schema'}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('public: McpError carries every member of the Error body, as the Error body defines it', () => {
    const schemas = (docs.public.components as JsonObject).schemas as Record<string, JsonObject>;
    const error = schemas.Error as JsonObject;
    const mcpError = schemas.McpError as JsonObject;
    const errorProps = error.properties as Record<string, JsonObject>;
    const mcpProps = mcpError.properties as Record<string, JsonObject>;
    for (const [name, schema] of Object.entries(errorProps)) expect(mcpProps[name], name).toEqual(schema);
    expect(mcpError.required).toEqual(expect.arrayContaining(error.required as string[]));
    expect(mcpError.required).toEqual(expect.arrayContaining(['jsonrpc', 'id', 'error']));
  });

  it.each(APIS)('%s: every answer of every operation carries X-Request-Id', (api) => {
    const offenders: string[] = [];
    for (const { method, path, operation } of operations(docs[api])) {
      for (const [status, response] of responsesOf(docs[api], operation)) {
        const headers = isObject(response.headers) ? response.headers : {};
        if (!('X-Request-Id' in headers)) offenders.push(`${method} ${path} ${status}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it.each(APIS)('%s: JSON request bodies are closed (additionalProperties: false)', (api) => {
    const offenders: string[] = [];
    for (const { method, path, operation } of operations(docs[api])) {
      // RFC 7591 §2: the server MUST ignore client metadata it does not understand.
      if (!operation.requestBody || path === '/api/oauth/register') continue;
      const body = deref(docs[api], operation.requestBody);
      const content = isObject(body.content) ? body.content : {};
      for (const [type, media] of Object.entries(content)) {
        if (!type.endsWith('json') || !isObject(media) || !media.schema) continue;
        const schema = deref(docs[api], media.schema);
        const variants = Array.isArray(schema.oneOf) ? schema.oneOf.map((s) => deref(docs[api], s)) : [schema];
        for (const v of variants) {
          if (v.type === 'object' && v.additionalProperties !== false) offenders.push(`${method} ${path} ${type}`);
        }
      }
    }
    expect(offenders).toEqual([]);
  });

  it.each(APIS)('%s: operationIds are unique', (api) => {
    const ids = operations(docs[api]).map((o) => o.operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('error codes', () => {
  const codeSchema = (api: keyof typeof docs) => deref(docs[api], { $ref: '#/components/schemas/ErrorCode' });
  const all = { ...PARTNER_ERROR_CODES, ...PUBLIC_ERROR_CODES, ...DECISIONS_ERROR_CODES };

  it.each(Object.entries(all))('%s is in the ErrorCode enum with status %i', (code, status) => {
    for (const api of APIS) {
      const schema = codeSchema(api);
      expect(schema.enum).toContain(code);
      expect((schema['x-status-of-code'] as JsonObject)[code]).toBe(status);
    }
  });

  /** Codes that some response of this document declares, with the status it is declared under. */
  const declared = (api: keyof typeof docs) => {
    const out = new Set<string>();
    for (const { operation } of operations(docs[api])) {
      for (const [status, response] of responsesOf(docs[api], operation)) {
        const codes = response['x-error-codes'];
        if (Array.isArray(codes)) for (const c of codes) out.add(`${c}@${status}`);
      }
    }
    return out;
  };

  it.each(Object.entries({ ...PARTNER_ERROR_CODES, ...DECISIONS_ERROR_CODES }))(
    'partner: %s is used by some response with status %i',
    (code, status) => {
      expect(declared('partner')).toContain(`${code}@${status}`);
    },
  );

  it.each(Object.entries(PUBLIC_ERROR_CODES))('public: %s is used by some response with status %i', (code, status) => {
    if (code === 'invalid_grant') {
      // RFC 6749 error body of the token endpoint (DECISIONS §7), not the Error schema.
      const token = find(docs.public, 'post', '/api/oauth/token');
      expect(JSON.stringify(token)).toContain('invalid_grant');
      return;
    }
    expect(declared('public')).toContain(`${code}@${status}`);
  });

  it('every x-error-codes entry is a known code declared under its own status', () => {
    for (const api of APIS) {
      const statusOf = codeSchema(api)['x-status-of-code'] as Record<string, number>;
      for (const entry of declared(api)) {
        const [code, status] = entry.split('@') as [string, string];
        // A `default` response stands for the unexpected: only internal_error belongs there.
        if (status === 'default') expect(code, `${api}: ${entry}`).toBe('internal_error');
        else expect(statusOf[code], `${api}: ${entry}`).toBe(Number(status));
      }
    }
  });
});

describe('partner document', () => {
  const doc = docs.partner;

  it('has exactly the 26 operations of the seed, and the ones it adds', () => {
    const actual = operations(doc)
      .map((o) => `${o.method} ${o.path}`)
      .sort();
    const expected = [...PARTNER_OPERATIONS, ...PARTNER_ADDED_OPERATIONS].map(([m, p]) => `${m} ${p}`).sort();
    expect(actual).toEqual(expected);
  });

  it.each([...PARTNER_OPERATIONS, ...PARTNER_ADDED_OPERATIONS])(
    '%s %s needs scope %s, names its rate-limit class and has summary and tags',
    (method, path, scope) => {
      const op = find(doc, method, path);
      expect(op).toBeDefined();
      expect(op?.['x-scopes']).toEqual([scope]);
      expect(op?.['x-rate-limit']).toBe(expectedRateClass(method, path));
      expect(op?.summary).toEqual(expect.any(String));
      expect(op?.tags).toEqual([expect.any(String)]);
    },
  );

  it('signs every operation with the four headers in one security requirement', () => {
    const schemes = deref(doc, doc.components).securitySchemes as JsonObject;
    const headerNames = Object.values(schemes).map((s) => (s as JsonObject).name);
    expect(headerNames.sort()).toEqual([
      'X-Service-Key-Id',
      'X-Service-Nonce',
      'X-Service-Signature',
      'X-Service-Timestamp',
    ]);
    expect(doc.security).toEqual([Object.fromEntries(Object.keys(schemes).map((k) => [k, []]))]);
    for (const { operation } of operations(doc)) expect(operation.security).toBeUndefined();
  });

  it('requires Idempotency-Key on POST /orders and only there', () => {
    for (const { method, path, operation } of operations(doc)) {
      const params = (Array.isArray(operation.parameters) ? operation.parameters : []).map((p) => deref(doc, p));
      const key = params.find((p) => p.in === 'header' && String(p.name).toLowerCase() === 'idempotency-key');
      if (method === 'post' && path === '/api/partner/v1/orders') expect(key?.required).toBe(true);
      else expect(key, `${method} ${path}`).toBeUndefined();
    }
  });

  it('declares every operation that can be rate limited with a 429 carrying Retry-After, and the rate-limit headers on 2xx', () => {
    for (const { method, path, operation } of operations(doc)) {
      const responses = Object.fromEntries(responsesOf(doc, operation));
      const limited = responses['429'];
      expect(limited, `${method} ${path}`).toBeDefined();
      expect(Object.keys((limited?.headers as JsonObject) ?? {})).toContain('Retry-After');
      for (const [status, response] of Object.entries(responses)) {
        if (!status.startsWith('2')) continue;
        const headers = response.headers as JsonObject;
        for (const name of [
          'RateLimit-Policy',
          'RateLimit',
          'RateLimit-Limit',
          'RateLimit-Remaining',
          'RateLimit-Reset',
        ]) {
          expect(deref(doc, headers[name]).required, `${method} ${path} ${status} ${name}`).toBe(true);
        }
      }
    }
  });

  it('401 answers carry no rate-limit headers (the credential is not identified), and the signing challenge', () => {
    for (const { operation } of operations(doc)) {
      const unauthorized = Object.fromEntries(responsesOf(doc, operation))['401'];
      expect(unauthorized).toBeDefined();
      expect(Object.keys((unauthorized?.headers as JsonObject) ?? {})).toEqual(['X-Request-Id', 'WWW-Authenticate']);
    }
  });

  it('describes the seven delivered event kinds under webhooks, each signed', () => {
    const webhooks = doc.webhooks as JsonObject;
    expect(Object.keys(webhooks).sort()).toEqual([...WEBHOOK_KINDS].sort());
    for (const kind of WEBHOOK_KINDS) {
      const post = deref(doc, webhooks[kind]).post as JsonObject;
      const headers = (post.parameters as JsonObject[]).map((p) => deref(doc, p)).filter((p) => p.in === 'header');
      const names = headers.map((h) => h.name);
      for (const name of [
        'X-Service-Signature',
        'X-Service-Event-Id',
        'X-Service-Event-Type',
        'X-Service-Delivery-Attempt',
      ]) {
        expect(names, `${kind}`).toContain(name);
      }
      expect(JSON.stringify(deref(doc, post.requestBody))).toContain(kind);
    }
  });

  it('declares the rate-limit classes with the quotas of DECISIONS §2', () => {
    const classes = doc['x-rate-limit-classes'] as Record<string, { quota: number; 'window-seconds': number }>;
    expect(classes.search).toMatchObject({ quota: 60, 'window-seconds': 60 });
    expect(classes.write).toMatchObject({ quota: 20, 'window-seconds': 60 });
    expect(classes.reporting).toMatchObject({ quota: 30, 'window-seconds': 60 });
  });
});

describe('public document', () => {
  const doc = docs.public;

  it.each(PUBLIC_OPERATIONS)('has %s %s with summary, tags and an operationId', (method, path) => {
    const op = find(doc, method, path);
    expect(op).toBeDefined();
    expect(op?.operationId).toEqual(expect.any(String));
    expect(op?.summary).toEqual(expect.any(String));
    expect(op?.tags).toEqual([expect.any(String)]);
  });

  it('limits batches to 20 operations and bulk to 1,000 domains', () => {
    const text = (method: string, path: string) =>
      JSON.stringify(doc.components) + JSON.stringify(find(doc, method, path));
    expect(text('post', '/api/batch')).toContain('"maxItems":20');
    expect(text('post', '/api/domains/bulk/{op}')).toContain('"maxItems":1000');
  });

  it('answers the token endpoint with Cache-Control: no-store', () => {
    const token = find(doc, 'post', '/api/oauth/token');
    const ok = Object.fromEntries(responsesOf(doc, token as JsonObject))['200'];
    expect(Object.keys(ok?.headers as JsonObject)).toContain('Cache-Control');
  });
});

describe('admin document', () => {
  const doc = docs.admin;

  it.each(ADMIN_OPERATIONS)('has %s %s', (method, path) => {
    expect(find(doc, method, path)).toBeDefined();
  });

  it.each([
    ['/api/admin/v1/orders/{public_id}/{action}', ADMIN_ORDER_ACTIONS],
    ['/api/admin/v1/brokerage/{case_id}/{action}', ADMIN_BROKERAGE_ACTIONS],
  ] as const)('%s takes exactly the actions of DECISIONS §3', (path, actions) => {
    const pathItem = deref(doc, (doc.paths as JsonObject)[path]);
    const op = find(doc, 'post', path) as JsonObject;
    const raw = [...((pathItem.parameters as JsonObject[]) ?? []), ...((op.parameters as JsonObject[]) ?? [])];
    const params = raw.map((p) => deref(doc, p));
    const action = params.find((p) => p.name === 'action');
    expect([...((deref(doc, action?.schema).enum as string[]) ?? [])].sort()).toEqual([...actions].sort());
  });

  it('is bearer-authenticated', () => {
    const schemes = Object.values(deref(doc, doc.components).securitySchemes as JsonObject) as JsonObject[];
    expect(schemes).toContainEqual(expect.objectContaining({ type: 'http', scheme: 'bearer' }));
  });
});
