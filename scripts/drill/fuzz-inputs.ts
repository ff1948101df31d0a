// Schema-derived invalid requests for one operation of a bundled OpenAPI document: a valid-looking
// baseline (from the spec's examples, else from the schema), then one thing broken: a wrong type,
// a missing required member, an oversized string, a value outside an enum, a bad format or
// pattern, junk JSON, the wrong content type. Pure: a seeded random source in, requests out.

import { resolveRef, type ApiContract } from '../../server/contract/index.ts';
import { mulberry32 } from '../../server/inventory/generate.ts';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schema = Record<string, unknown>;

export interface FuzzOperation {
  operationId: string;
  method: string;
  /** The path template, e.g. /api/tlds/{tld}/metadata. */
  path: string;
  parameters: Array<{
    name: string;
    in: 'path' | 'query' | 'header' | 'cookie';
    required: boolean;
    schema: Schema;
    example?: unknown;
  }>;
  body?: { required: boolean; contentTypes: string[]; schema: Schema | undefined };
}

export interface FuzzRequest {
  method: string;
  /** Path and raw query, exactly as sent. */
  target: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** What was broken, for the report. */
  mutation: string;
}

export type Random = () => number;

/** Seeded, so a fuzz run can be replayed: the inventory generator's mulberry32. */
export const seededRandom: (seed: number) => Random = mulberry32;

const pick = <T>(random: Random, xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;

/** Resolves local `$ref`s (the documents are bundled): the contract index's one resolver. */
export function deref(document: Schema, node: unknown): Schema {
  return resolveRef(document, node);
}

/** Every operation of an indexed document, its parameters and body as the index resolved them. */
export function operationsOf(contract: ApiContract): FuzzOperation[] {
  const document = contract.document;
  return contract.operations.map((op) => {
    const requestBody = op.object.requestBody ? deref(document, op.object.requestBody) : undefined;
    const content = (requestBody?.content ?? {}) as Record<string, { schema?: unknown }>;
    const contentTypes = Object.keys(content);
    return {
      operationId: op.operationId,
      method: op.method,
      path: op.path,
      parameters: op.parameters.map((p) => ({
        name: String(p.name),
        in: p.in as 'path' | 'query' | 'header' | 'cookie',
        required: p.required === true,
        schema: deref(document, p.schema),
        example: p.example,
      })),
      ...(requestBody
        ? {
            body: {
              required: requestBody.required === true,
              contentTypes,
              schema: contentTypes[0] ? deref(document, content[contentTypes[0]]?.schema) : undefined,
            },
          }
        : {}),
    };
  });
}

/** A value the schema accepts, as far as a quick synthesis can tell (examples first). */
export function sampleValue(document: Schema, schemaIn: unknown, random: Random, depth = 0): Json {
  const schema = deref(document, schemaIn);
  if (depth > 6) return null;
  const examples = schema.examples;
  if (Array.isArray(examples) && examples.length > 0) return examples[0] as Json;
  if (schema.example !== undefined) return schema.example as Json;
  if (schema.const !== undefined) return schema.const as Json;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return pick(random, schema.enum as Json[]);
  if (schema.default !== undefined) return schema.default as Json;
  for (const key of ['oneOf', 'anyOf'] as const) {
    const options = schema[key];
    if (Array.isArray(options) && options.length > 0) return sampleValue(document, options[0], random, depth + 1);
  }
  if (Array.isArray(schema.allOf)) {
    const merged: Record<string, Json> = {};
    for (const part of schema.allOf) {
      const v = sampleValue(document, part, random, depth + 1);
      if (v && typeof v === 'object' && !Array.isArray(v)) Object.assign(merged, v);
    }
    return merged;
  }
  const type = Array.isArray(schema.type)
    ? (schema.type.find((t) => t !== 'null') as string | undefined)
    : (schema.type as string | undefined);
  switch (type) {
    case 'object': {
      const out: Record<string, Json> = {};
      const props = (schema.properties ?? {}) as Record<string, unknown>;
      const required = new Set((schema.required as string[] | undefined) ?? []);
      for (const [name, sub] of Object.entries(props))
        if (required.has(name)) out[name] = sampleValue(document, sub, random, depth + 1);
      return out;
    }
    case 'array':
      return schema.items ? [sampleValue(document, schema.items, random, depth + 1)] : [];
    case 'integer':
      return typeof schema.minimum === 'number' ? schema.minimum : 1;
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 1.5;
    case 'boolean':
      return true;
    case 'string':
      return stringFor(schema);
    default:
      return 'x';
  }
}

function stringFor(schema: Schema): string {
  switch (schema.format) {
    case 'date-time':
      return '2026-01-01T00:00:00Z';
    case 'date':
      return '2026-01-01';
    case 'email':
      return 'fuzz@example.org';
    case 'uri':
      return 'https://example.org/x';
    case 'uuid':
      return '00000000-0000-4000-8000-000000000000';
    default:
      return 'fuzz'.padEnd(typeof schema.minLength === 'number' ? schema.minLength : 1, 'z');
  }
}

/** Values that break `schema` in one way each (as JSON values). */
export function invalidValues(document: Schema, schemaIn: unknown): Array<{ value: Json | undefined; why: string }> {
  const schema = deref(document, schemaIn);
  const type = Array.isArray(schema.type)
    ? (schema.type.find((t) => t !== 'null') as string | undefined)
    : (schema.type as string | undefined);
  const nullable = Array.isArray(schema.type) && schema.type.includes('null');
  const out: Array<{ value: Json | undefined; why: string }> = [
    { value: type === 'string' ? 12345 : 'not-a-number-or-object', why: 'wrong type' },
    { value: [1, 'two', null], why: 'array instead' },
    { value: { nested: { deeper: true } }, why: 'object instead' },
  ];
  if (!nullable) out.push({ value: null, why: 'null' });
  if (type === 'string' || type === undefined) {
    out.push({
      value: 'x'.repeat(typeof schema.maxLength === 'number' ? schema.maxLength + 1 : 70_000),
      why: 'oversized string',
    });
    out.push({ value: '', why: 'empty string' });
    out.push({ value: '\u0000\u202e\ud83d\ude00\u00e9 <script>', why: 'control and astral characters' });
    if (schema.format) out.push({ value: `not-a-${String(schema.format)}`, why: `bad ${String(schema.format)}` });
    if (schema.pattern) out.push({ value: '!!! no match !!!', why: 'pattern mismatch' });
  }
  if (Array.isArray(schema.enum)) out.push({ value: 'definitely_not_in_the_enum', why: 'bad enum' });
  if (type === 'integer' || type === 'number') {
    out.push(
      { value: -1, why: 'negative' },
      { value: 1.5, why: 'fraction' },
      { value: 1e300, why: 'huge' },
      { value: 2 ** 53, why: 'beyond 2^53 - 1' },
    );
  }
  if (type === 'array') out.push({ value: Array.from({ length: 5000 }, (_, i) => i), why: 'long array' });
  return out;
}

/** Text for a parameter value (query, path, header): JSON values become their plain text. */
function asText(value: Json | undefined): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
}

const enc = (s: string) => encodeURIComponent(s);

const TEXT_MUTATIONS: Array<{ text: string; why: string }> = [
  { text: 'abc', why: 'text for a number' },
  { text: '-1', why: 'negative' },
  { text: '1.5', why: 'fraction' },
  { text: '99999999999999999999999', why: 'huge' },
  { text: 'true', why: 'boolean text' },
  { text: 'x'.repeat(6000), why: 'oversized' },
  { text: '%ZZ', why: 'malformed escape (raw)' },
  { text: '../../etc/passwd', why: 'path traversal' },
  { text: '\u00fc\ud83d\ude00', why: 'non-ASCII' },
];

const JUNK_BODIES: Array<{ body: string; why: string }> = [
  { body: '{"a":', why: 'truncated JSON' },
  { body: '{"a":1}garbage', why: 'trailing garbage' },
  { body: 'null', why: 'JSON null' },
  { body: '[]', why: 'JSON array' },
  { body: '"string"', why: 'JSON string' },
  { body: '12', why: 'JSON number' },
  { body: '\ufeff{}', why: 'byte-order mark' },
  { body: `${'['.repeat(5000)}${']'.repeat(5000)}`, why: 'deep nesting' },
  { body: '{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}', why: 'prototype keys' },
  { body: '\u0000\u0001\u0002', why: 'binary junk' },
];

const WRONG_TYPES = [
  'text/plain',
  'application/xml',
  'multipart/form-data',
  'application/x-www-form-urlencoded',
  'application/json; charset=utf-16',
  'application/octet-stream',
  '',
];

/** One broken request for `op`. */
export function fuzzRequest(document: Schema, op: FuzzOperation, random: Random): FuzzRequest {
  const params = new Map(
    op.parameters.map((p) => [
      `${p.in}:${p.name}`,
      asText((p.example as Json | undefined) ?? sampleValue(document, p.schema, random)),
    ]),
  );
  const rawValues = new Set<string>();
  let bodyValue: Json | undefined = op.body?.schema ? sampleValue(document, op.body.schema, random) : undefined;
  let rawBody: string | undefined;
  let contentType = op.body?.contentTypes[0];
  const headers: Record<string, string> = {};
  let mutation: string;

  const kinds = ['param', 'body', 'junk', 'content-type', 'missing'].filter((k) =>
    k === 'param' ? op.parameters.length > 0 : k === 'missing' ? true : op.body !== undefined,
  );
  const kind = kinds.length > 0 ? pick(random, kinds) : 'param';
  if (kind === 'param' && op.parameters.length > 0) {
    const p = pick(random, op.parameters);
    const key = `${p.in}:${p.name}`;
    if (random() < 0.5) {
      const m = pick(random, TEXT_MUTATIONS);
      params.set(key, m.text);
      if (m.why.includes('raw')) rawValues.add(key);
      mutation = `${p.in} ${p.name}: ${m.why}`;
    } else {
      const m = pick(random, invalidValues(document, p.schema));
      params.set(key, asText(m.value));
      mutation = `${p.in} ${p.name}: ${m.why}`;
    }
  } else if (kind === 'body' && op.body?.schema) {
    const m = mutateBody(document, op.body.schema, bodyValue, random);
    bodyValue = m.value;
    mutation = `body: ${m.why}`;
  } else if (kind === 'junk') {
    const m = pick(random, JUNK_BODIES);
    rawBody = m.body;
    mutation = `body: ${m.why}`;
  } else if (kind === 'content-type') {
    contentType = pick(random, WRONG_TYPES);
    mutation = `content type "${contentType}"`;
  } else {
    const required = op.parameters.filter((p) => p.required);
    if (required.length > 0 && random() < 0.6) {
      const p = pick(random, required);
      params.delete(`${p.in}:${p.name}`);
      mutation = `missing required ${p.in} ${p.name}`;
    } else if (op.body) {
      bodyValue = undefined;
      mutation = 'missing body';
    } else {
      params.set('query:unexpected_parameter', 'surprise');
      mutation = 'unknown query parameter';
    }
  }

  let path = op.path;
  for (const p of op.parameters.filter((x) => x.in === 'path')) {
    const key = `path:${p.name}`;
    const value = params.get(key) ?? '';
    path = path.replace(`{${p.name}}`, rawValues.has(key) ? value : enc(value));
  }
  const query = op.parameters
    .filter((p) => p.in === 'query' && params.has(`query:${p.name}`))
    .map(
      (p) =>
        `${enc(p.name)}=${rawValues.has(`query:${p.name}`) ? params.get(`query:${p.name}`) : enc(params.get(`query:${p.name}`) ?? '')}`,
    );
  if (params.has('query:unexpected_parameter')) query.push('unexpected_parameter=surprise');
  for (const p of op.parameters.filter((x) => x.in === 'header' && params.has(`header:${x.name}`))) {
    // Header values must be sendable: keep visible ASCII only.
    headers[p.name] = (params.get(`header:${p.name}`) ?? '').replace(/[^\x20-\x7e]/g, '?').slice(0, 4000);
  }
  let body: Buffer | undefined;
  if (rawBody !== undefined) body = Buffer.from(rawBody, 'utf8');
  else if (bodyValue !== undefined) {
    body = Buffer.from(
      contentType?.includes('x-www-form-urlencoded') &&
        bodyValue &&
        typeof bodyValue === 'object' &&
        !Array.isArray(bodyValue)
        ? formEncode(bodyValue)
        : JSON.stringify(bodyValue),
      'utf8',
    );
  }
  if (body && contentType) headers['content-type'] = contentType;
  return {
    method: op.method,
    target: query.length > 0 ? `${path}?${query.join('&')}` : path,
    headers,
    ...(body ? { body } : {}),
    mutation,
  };
}

function formEncode(value: { [key: string]: Json }): string {
  return Object.entries(value)
    .map(([k, v]) => `${enc(k)}=${enc(asText(v))}`)
    .join('&');
}

function mutateBody(
  document: Schema,
  schemaIn: unknown,
  value: Json | undefined,
  random: Random,
): { value: Json | undefined; why: string } {
  const schema = deref(document, schemaIn);
  const props = (schema.properties ?? {}) as Record<string, unknown>;
  const names = Object.keys(props);
  const base = value && typeof value === 'object' && !Array.isArray(value) ? { ...value } : {};
  const roll = random();
  if (names.length > 0 && roll < 0.6) {
    const name = pick(random, names);
    const m = pick(random, invalidValues(document, props[name]));
    if (m.value === undefined) delete base[name];
    else base[name] = m.value;
    return { value: base, why: `${name}: ${m.why}` };
  }
  const required = (schema.required as string[] | undefined) ?? [];
  if (required.length > 0 && roll < 0.8) {
    const name = pick(random, required);
    delete base[name];
    return { value: base, why: `missing required ${name}` };
  }
  if (roll < 0.9) return { value: { ...base, unexpected_member: 'surprise' }, why: 'unknown member' };
  const m = pick(random, invalidValues(document, schema));
  return { value: m.value, why: `whole body: ${m.why}` };
}
