// The static mocks' error answers against their statuses (issue 35): for every documented error
// response of every operation of the partner and public documents (iterated from the documents,
// not listed here), Prism's answer to `Prefer: code=<status>` is that status with a body whose
// code is one that status carries (ErrorCode's `x-status-of-code`) and one the response lists
// (`x-error-codes`). Prism's default example of a response is the media type's `example`, else
// the schema's first `examples` entry, else the first named example: a schema-level example on
// Error would answer every status with its code. Also: every named example of every error
// response carries a code of its status; a missing signature header is a 401 whose code says so;
// `Prefer: example=<name>` reaches a named example of a non-2xx response only with its code.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startPrism } from '../../scripts/mock.ts';
import { deref, documents, obj, operations, type Json } from '../docs/support.ts';

type Api = 'partner' | 'public';
type Mock = Awaited<ReturnType<typeof startPrism>>;

const statusOfCode = obj(obj(obj(documents.partner.components).schemas).ErrorCode)['x-status-of-code'] as Record<
  string,
  number
>;

const SIGNED = {
  'x-service-key-id': 'pk_test_mock',
  'x-service-timestamp': '1700000000',
  'x-service-nonce': 'any',
  'x-service-signature': 'v1=00',
};

/** A value for a parameter or body from what the document shows. */
function sample(doc: Json, node: Json): unknown {
  if ('example' in node) return node.example;
  const named = Object.values(obj(node.examples));
  if (named.length) return deref(doc, named[0]).value;
  const schema = deref(doc, node.schema ?? node);
  if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0];
  if ('example' in schema) return schema.example;
  if ('default' in schema) return schema.default;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (schema.type === 'integer' || schema.type === 'number') return schema.minimum ?? 1;
  return 'x';
}

interface ErrorCase {
  api: Api;
  operationId: string;
  method: string;
  path: string;
  status: string;
  response: Json;
  query: URLSearchParams;
  headers: Record<string, string>;
  body: string | undefined;
}

function errorCases(api: Api): ErrorCase[] {
  const doc = documents[api];
  const out: ErrorCase[] = [];
  for (const { method, path, op } of operations(doc)) {
    let url = path;
    const query = new URLSearchParams();
    const headers: Record<string, string> = { ...SIGNED, authorization: 'Bearer at_mock', accept: 'application/json' };
    for (const p of (op.parameters as unknown[] | undefined) ?? []) {
      const param = deref(doc, p);
      const value = sample(doc, param);
      if (param.in === 'path') url = url.replace(`{${String(param.name)}}`, encodeURIComponent(String(value)));
      else if (param.in === 'query' && param.required) query.set(String(param.name), String(value));
      else if (param.in === 'header' && param.required) headers[String(param.name).toLowerCase()] = String(value);
    }
    let body: string | undefined;
    const content = obj(deref(doc, op.requestBody).content);
    const [mediaType, media] = Object.entries(content)[0] ?? [];
    if (mediaType && media) {
      const value = sample(doc, obj(media));
      headers['content-type'] = mediaType;
      body =
        mediaType === 'application/x-www-form-urlencoded'
          ? new URLSearchParams(Object.entries(obj(value)).map(([k, v]) => [k, String(v)])).toString()
          : JSON.stringify(value);
    }
    for (const [status, ref] of Object.entries(obj(op.responses))) {
      if (!/^[45]\d\d$/.test(status)) continue;
      const response = deref(doc, ref);
      // The Error body (and MCP's JSON-RPC error carrying its members); not a page or a report.
      const errorSchema = String(obj(obj(obj(response.content)['application/json']).schema).$ref ?? '');
      if (!/\/(Error|McpError)$/.test(errorSchema)) continue;
      out.push({
        api,
        operationId: String(op.operationId),
        method,
        path: url,
        status,
        response,
        query,
        headers,
        body,
      });
    }
  }
  return out;
}

/** The code of an error body: the Error schema's `code`, JSON-RPC's `error.data`/top-level `code` for MCP. */
function codeOf(body: Json): string | undefined {
  if (typeof body.code === 'string') return body.code;
  return undefined;
}

const CASES = { partner: errorCases('partner'), public: errorCases('public') };

describe('every named example of every error response carries a code of its status', () => {
  it.each(['partner', 'public'] as const)('%s document', (api) => {
    const wrong: string[] = [];
    let seen = 0;
    for (const c of CASES[api]) {
      const media = obj(obj(c.response.content)['application/json']);
      const examples: [string, unknown][] = 'example' in media ? [['example', media.example]] : [];
      for (const [name, ex] of Object.entries(obj(media.examples)))
        examples.push([name, deref(documents[api], ex).value]);
      if (!examples.length) wrong.push(`${c.operationId} ${c.status}: no example`);
      for (const [name, value] of examples) {
        const code = codeOf(obj(value));
        if (code === undefined) continue; // OAuth's RFC 6749 / 7591 bodies carry `error` instead
        seen++;
        if (statusOfCode[code] !== Number(c.status)) wrong.push(`${c.operationId} ${c.status} ${name}: ${code}`);
        const listed = c.response['x-error-codes'];
        if (Array.isArray(listed) && !listed.includes(code))
          wrong.push(`${c.operationId} ${c.status} ${name}: ${code} not in x-error-codes`);
      }
    }
    expect(seen).toBeGreaterThan(50);
    expect(wrong).toEqual([]);
  });
});

describe('the static Prism mocks answer each documented error status with a code of that status', () => {
  const mocks: Partial<Record<Api, Mock>> = {};

  beforeAll(async () => {
    const [a, b] = await Promise.all([freePort(), freePort()]);
    [mocks.partner, mocks.public] = await Promise.all([startPrism('partner', a), startPrism('public', b)]);
  }, 90_000);

  afterAll(async () => {
    await Promise.all([mocks.partner?.stop(), mocks.public?.stop()]);
  });

  async function ask(c: ErrorCase, headers: Record<string, string>) {
    const qs = c.query.toString();
    const res = await fetch(`${mocks[c.api]!.url}${c.path}${qs ? `?${qs}` : ''}`, {
      method: c.method,
      headers,
      ...(c.body !== undefined ? { body: c.body } : {}),
    });
    const text = await res.text();
    let body: Json = {};
    try {
      body = obj(JSON.parse(text));
    } catch {
      // not JSON: reported below
    }
    return { status: res.status, body, text };
  }

  it.each(['partner', 'public'] as const)(
    '%s: Prefer: code=<status> on every operation',
    async (api) => {
      const wrong: string[] = [];
      let checked = 0;
      for (const c of CASES[api]) {
        const { status, body, text } = await ask(c, { ...c.headers, prefer: `code=${c.status}` });
        const where = `${c.method} ${c.path} (${c.operationId}) Prefer: code=${c.status}`;
        if (String(status) !== c.status) {
          wrong.push(`${where}: answered ${status} ${text.slice(0, 160)}`);
          continue;
        }
        const code = codeOf(body);
        if (code === undefined) {
          if (typeof body.error !== 'string') wrong.push(`${where}: no code in ${text.slice(0, 160)}`);
          continue;
        }
        checked++;
        if (statusOfCode[code] !== status) wrong.push(`${where}: code ${code} is a ${statusOfCode[code]}`);
      }
      expect(wrong).toEqual([]);
      expect(checked).toBeGreaterThan(api === 'partner' ? 100 : 30);
    },
    120_000,
  );

  it('partner: a missing signature header is a 401 whose code names a missing header, on a GET', async () => {
    const c = CASES.partner.find((x) => x.operationId === 'getAvailability')!;
    const { status, body } = await ask(c, {});
    expect(status).toBe(401);
    expect(['missing_credentials', 'missing_signature_headers']).toContain(body.code);
  });

  it('partner: Prefer: code=401, example=invalid_timestamp (the README line) answers that example', async () => {
    const c = CASES.partner.find((x) => x.operationId === 'getAvailability')!;
    const { status, body } = await ask(c, { ...c.headers, prefer: 'code=401, example=invalid_timestamp' });
    expect(status).toBe(401);
    expect(body.code).toBe('invalid_timestamp');
  });
});
