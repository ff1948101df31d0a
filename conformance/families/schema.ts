// Every answer of the run against the contract (each operation's responses and the "Errors" paragraph): the status is documented for its
// operation, the Content-Type is the documented one, the body validates, required headers are
// there and match their schemas, 4xx/5xx bodies are the Error schema with a code of that
// status. Runs last, over every exchange the other families recorded, after a sweep of its own
// that calls each partner read once. Also: schema-derived invalid inputs are refused with a 400,
// never a 5xx.
import { randomBytes, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { encodeComponent } from '../../client/protocol/index.ts';
import { CheckFailure, property, type Context, type Family } from '../context.ts';
import { describeExchange, jsonOf, type Credentials, type Exchange } from '../http.ts';
import type { Spend } from '../pacing.ts';
import type { SpecOperation } from '../spec.ts';
import {
  concretePath,
  deprecationProblems,
  escapePointer,
  finalPointer,
  nodeAt,
  operationOf,
  rateLimitProblems,
  resolveRef,
  surfaceOf,
  type Api,
} from './headers.ts';

type Json = Record<string, unknown>;
const ERROR_POINTER = '/components/schemas/Error';

// ---------------------------------------------------------------------------------------------
// Reviewing one exchange

interface Review {
  key: string;
  problems: string[];
}

function mediaMatches(documented: string, actual: string): boolean {
  const [dt = '', ds = ''] = documented.toLowerCase().split('/');
  const [at = '', as = ''] = actual.split('/');
  return (dt === '*' || dt === at) && (ds === '*' || ds === as);
}

/** A header value as the JSON value its schema describes (headers are text on the wire). */
function headerValue(doc: Json, schema: Json, raw: string): unknown {
  const resolved = resolveRef(doc, schema);
  const types = ([] as unknown[]).concat(resolved.type ?? []);
  if ((types.includes('integer') || types.includes('number')) && /^-?\d+(\.\d+)?$/.test(raw.trim()))
    return Number(raw.trim());
  if (types.includes('boolean') && /^(true|false)$/.test(raw.trim())) return raw.trim() === 'true';
  return raw;
}

function errorCodeStatuses(doc: Json): Record<string, number> {
  return (nodeAt(doc, '/components/schemas/ErrorCode')?.['x-status-of-code'] ?? {}) as Record<string, number>;
}

function errorBodyProblems(
  ctx: Context,
  api: Api,
  exchange: Exchange,
  body: unknown,
  validateShape: boolean,
  listedCodes: unknown,
): string[] {
  const problems: string[] = [];
  if (validateShape) {
    const error = ctx.spec.validate(api, ERROR_POINTER, body);
    if (error) problems.push(`not the Error body: ${error}`);
  }
  const code = (body as { code?: unknown } | null)?.code;
  if (typeof code === 'string') {
    const expected = errorCodeStatuses(ctx.spec.documents[api])[code];
    if (expected !== undefined && expected !== exchange.status)
      problems.push(`code "${code}" is a ${expected} code (x-status-of-code), answered with ${exchange.status}`);
    if (Array.isArray(listedCodes) && !listedCodes.includes(code))
      problems.push(`code "${code}" is not one this response documents (x-error-codes: ${listedCodes.join(', ')})`);
  }
  const requestId = (body as { request_id?: unknown } | null)?.request_id;
  const header = exchange.responseHeaders['x-request-id'];
  // An idempotent replay repeats the stored body byte for byte, with the first request's id.
  const replayed = exchange.responseHeaders['idempotent-replayed'] === 'true';
  if (typeof requestId === 'string' && header !== undefined && requestId !== header && !replayed)
    problems.push(`request_id "${requestId}" differs from X-Request-Id "${header}"`);
  return problems;
}

export function reviewExchange(ctx: Context, exchange: Exchange): Review {
  const problems: string[] = [];
  const h = exchange.responseHeaders;
  const status = exchange.status;
  const requestId = h['x-request-id'];
  if (requestId === undefined) problems.push('no X-Request-Id (every answer carries one)');
  else if (!/^[\x21-\x7e]{1,128}$/.test(requestId))
    problems.push(`X-Request-Id "${requestId}" is not 1 to 128 visible ASCII characters`);
  const media = h['content-type']?.split(';')[0]?.trim().toLowerCase();
  const isJson = media !== undefined && /^application\/([\w.+-]+\+)?json$/.test(media);
  const hasBody = exchange.responseBody.length > 0 && exchange.method !== 'HEAD';
  let body: unknown;
  let parsed = false;
  if (hasBody && isJson) {
    try {
      body = JSON.parse(exchange.responseBody);
      parsed = true;
    } catch {
      problems.push(`the body is not JSON though Content-Type says ${media}`);
    }
  }

  const found = operationOf(ctx, exchange);
  if (!found) {
    // No operation of either document: only the rules for every answer apply.
    const api: Api = concretePath(ctx, exchange).startsWith('/api/partner/') ? 'partner' : 'public';
    if (status >= 400 && exchange.method !== 'HEAD') {
      if (!parsed) problems.push(`a ${status} without a JSON Error body (Content-Type ${media ?? 'none'})`);
      else problems.push(...errorBodyProblems(ctx, api, exchange, body, true, undefined));
    }
    problems.push(...rateLimitProblems(ctx, exchange, undefined), ...deprecationProblems(exchange));
    return {
      key: `(no operation in the contract) ${exchange.method} ${concretePath(ctx, exchange)} → ${status}`,
      problems,
    };
  }

  const { api, op } = found;
  const doc = ctx.spec.documents[api];
  const key = `${op.method} ${op.path} → ${status}${api === 'public' ? ' (public)' : ''}`;
  const range = `${String(status)[0]}XX`;
  const statusKey =
    String(status) in op.responses
      ? String(status)
      : range in op.responses
        ? range
        : 'default' in op.responses
          ? 'default'
          : undefined;
  if (statusKey === undefined)
    problems.push(
      `status ${status} is not documented for ${op.operationId} (documented: ${Object.keys(op.responses).join(', ')})`,
    );
  const responsePointer =
    statusKey === undefined
      ? undefined
      : finalPointer(doc, `/paths/${escapePointer(op.path)}/${op.method.toLowerCase()}/responses/${statusKey}`);
  const response = responsePointer ? nodeAt(doc, responsePointer) : undefined;

  // Content-Type and body.
  const mediaTypes = Object.keys(response?.content ?? {});
  if (response && mediaTypes.length > 0 && exchange.method !== 'HEAD') {
    if (!hasBody) problems.push(`an empty body; the contract documents ${mediaTypes.join(' or ')}`);
    else if (media === undefined) problems.push(`no Content-Type; the contract documents ${mediaTypes.join(' or ')}`);
    else if (!mediaTypes.some((t) => mediaMatches(t, media)))
      problems.push(`Content-Type ${media}; the contract documents ${mediaTypes.join(' or ')}`);
  }
  const schemaPointer = statusKey !== undefined ? op.responseSchemaPointers[statusKey] : undefined;
  if (parsed && schemaPointer) {
    const error = ctx.spec.validate(api, schemaPointer, body);
    if (error) problems.push(`body: ${error}`);
  }
  if (status >= 400 && exchange.method !== 'HEAD') {
    // OAuth's token and registration errors have their own documented shapes; the rest is Error.
    const documentedIsError = !schemaPointer || finalPointer(doc, schemaPointer) === ERROR_POINTER;
    // A documented page (text/html beside the JSON Error) is a valid answer for a browser.
    const documentedPage =
      !isJson && media !== undefined && mediaTypes.some((t) => !/json/.test(t) && mediaMatches(t, media));
    if (documentedIsError && !documentedPage) {
      if (!parsed) {
        if (!hasBody) problems.push(`a ${status} with an empty body; every 4xx/5xx carries the Error body`);
        else if (!isJson)
          problems.push(`a ${status} with Content-Type ${media ?? 'none'}; every 4xx/5xx carries the JSON Error body`);
      } else {
        const explicit = statusKey === String(status);
        problems.push(
          ...errorBodyProblems(
            ctx,
            api,
            exchange,
            body,
            !schemaPointer,
            explicit ? response?.['x-error-codes'] : undefined,
          ),
        );
      }
    }
  }

  // Documented headers: required ones present, every one present matching its schema.
  const headers = (response?.headers ?? {}) as Record<string, Json>;
  for (const name of Object.keys(headers)) {
    if (name.toLowerCase() === 'content-type') continue;
    const headerPointer = finalPointer(doc, `${responsePointer}/headers/${escapePointer(name)}`);
    const header = nodeAt(doc, headerPointer) ?? {};
    const value = h[name.toLowerCase()];
    if (value === undefined) {
      if (header.required === true) problems.push(`missing required header ${name}`);
      continue;
    }
    if (!header.schema) continue;
    const error = ctx.spec.validate(api, `${headerPointer}/schema`, headerValue(doc, header.schema as Json, value));
    if (error) problems.push(`header ${name}: "${value}" ${error.replace(/^\/ /, '')}`);
  }
  problems.push(...rateLimitProblems(ctx, exchange, found), ...deprecationProblems(exchange));
  return { key, problems };
}

interface Group {
  key: string;
  count: number;
  problems: Map<string, number>;
  examples: Exchange[];
}

/** Instance paths with array indexes (`/data/3/price`) grouped as one problem. */
const normalise = (problem: string) => problem.replace(/\/\d+(?=[/\s]|$)/g, '/*');

function groupedReport(groups: Group[], reviewed: number): string {
  const failing = groups.reduce((s, g) => s + g.count, 0);
  const lines = [
    `${failing} of ${reviewed} exchanges deviate from the contract, in ${groups.length} operation+status group${groups.length === 1 ? '' : 's'}:`,
  ];
  groups.forEach((g, i) => {
    lines.push('', `[${i + 1}] ${g.key}: ${g.count} exchange${g.count === 1 ? '' : 's'}`);
    const problems = [...g.problems].sort((a, b) => b[1] - a[1]);
    for (const [problem, n] of problems.slice(0, 6)) lines.push(`    - ${problem}${n > 1 ? ` (×${n})` : ''}`);
    if (problems.length > 6) lines.push(`    - … and ${problems.length - 6} more distinct problems`);
    if (i < 8) {
      for (const e of g.examples) {
        lines.push(
          `    first seen in ${e.family} › ${e.check}${e.deliberate ? ' (a deliberately invalid request)' : ''}:`,
        );
        lines.push(
          ...describeExchange(e)
            .split('\n')
            .map((l) => `      ${l}`),
        );
      }
    }
  });
  if (groups.length > 8) lines.push('', `(the exchanges of groups 9 to ${groups.length} are left out)`);
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------
// Building well-formed requests from the contract

const opTemplate = (op: SpecOperation) => ({ method: op.method, path: op.path });

function exampleOf(doc: Json, node: Json | undefined): unknown {
  if (!node) return undefined;
  if (node.example !== undefined) return node.example;
  const schema = node.schema ? resolveRef(doc, node.schema as Json) : resolveRef(doc, node);
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.example !== undefined) return schema.example;
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  return undefined;
}

interface ParamInfo {
  name: string;
  in: string;
  required: boolean;
  schemaPointer: string;
  example: unknown;
}

/** The parameters of an operation, each with the JSON pointer of its schema (path-level ones included). */
function paramsOf(ctx: Context, api: Api, op: SpecOperation): ParamInfo[] {
  const doc = ctx.spec.documents[api];
  const base = `/paths/${escapePointer(op.path)}`;
  const out: ParamInfo[] = [];
  for (const listPointer of [`${base}/parameters`, `${base}/${op.method.toLowerCase()}/parameters`]) {
    const list = nodeAt(doc, listPointer);
    if (!Array.isArray(list)) continue;
    list.forEach((_, i) => {
      const pointer = finalPointer(doc, `${listPointer}/${i}`);
      const param = nodeAt(doc, pointer) ?? {};
      out.push({
        name: String(param.name),
        in: String(param.in),
        required: param.required === true,
        schemaPointer: `${pointer}/schema`,
        example: exampleOf(doc, param),
      });
    });
  }
  return out;
}

/** A schema-valid value built from examples: required members only, the matching branch of a oneOf. */
function synthesize(doc: Json, pointer: string, depth = 0): unknown {
  const ptr = finalPointer(doc, pointer);
  const schema = nodeAt(doc, ptr) ?? {};
  const example = exampleOf(doc, schema);
  if (example !== undefined && !schema.properties) return example;
  for (const key of ['oneOf', 'anyOf'] as const)
    if (Array.isArray(schema[key])) return synthesize(doc, `${ptr}/${key}/0`, depth + 1);
  if (Array.isArray(schema.allOf)) {
    return Object.assign(
      {},
      ...(schema.allOf as unknown[]).map((_, i) => synthesize(doc, `${ptr}/allOf/${i}`, depth + 1) as Json),
    );
  }
  if (schema.properties && depth < 6) {
    const out: Json = {};
    for (const name of (schema.required as string[] | undefined) ?? [])
      out[name] = synthesize(doc, `${ptr}/properties/${escapePointer(name)}`, depth + 1);
    // A member without an example of its own: the object's example is whole where the parts are not.
    if (Object.values(out).some((v) => v === undefined) && example !== null && typeof example === 'object')
      return example;
    return out;
  }
  return example;
}

// ---------------------------------------------------------------------------------------------
// Breaking one member of a well-formed request

type Location = 'path' | 'query' | 'header' | 'body';

export interface Candidate {
  operation: string;
  location: Location;
  /** Parameter name, or a JSON pointer into the body. */
  member: string;
  mutation: string;
  arbitrary: fc.Arbitrary<unknown>;
  /** The code the refusal must carry. */
  code: string;
}

export interface Target {
  api: Api;
  op: SpecOperation;
  params: ParamInfo[];
  body: unknown;
  candidates: Candidate[];
}

const REMOVE = Symbol.for('conformance.remove');
const ROOT_NOT_OBJECT = 'the body is JSON but not an object';
const WRONG_TYPE: Record<string, unknown[]> = {
  integer: ['250000', true, 1.5, {}, [1]],
  number: ['1.5', true, {}, [1]],
  string: [12345, true, ['text'], { value: 'text' }],
  boolean: ['true', 1],
  object: ['text', 42, [], true],
  array: [{}, 'text', 1],
};
const BAD_FORMAT: Record<string, string[]> = {
  'date-time': ['not-a-date', '2026-13-45T99:00:00Z', 'yesterday'],
  date: ['not-a-date', '2026-02-31x', '31/12/2026'],
  uri: ['not a uri', 'no-scheme.example.com/path'],
  email: ['not-an-email', 'jane.doe@', '@example.org'],
};
const PATTERN_BREAKERS = ['NOT VALID', 'UPPER.COM', 'no_dot', '-bad-.com', 'a..b', 'ünïcode.com', '!!', '   ', 'x'];
const EXTRA_MEMBERS = ['sale_price_cents', 'unexpected_member', 'extra'];

function typesOf(schema: Json): string[] {
  if (schema.type !== undefined) return ([] as string[]).concat(schema.type as string | string[]);
  if (schema.properties) return ['object'];
  if (Array.isArray(schema.enum) && schema.enum.length > 0)
    return [typeof schema.enum[0] === 'number' ? 'number' : typeof schema.enum[0]];
  if (schema.const !== undefined) return [typeof schema.const];
  return [];
}

/** Values that break a scalar schema, by kind; `textual` limits them to what a query or path can carry. */
function scalarBreakers(
  schema: Json,
  base: unknown,
  textual: boolean,
): Array<{ mutation: string; arbitrary: fc.Arbitrary<unknown> }> {
  const out: Array<{ mutation: string; arbitrary: fc.Arbitrary<unknown> }> = [];
  const types = typesOf(schema);
  const main = types.find((t) => t !== 'null');
  const wrap = (v: number) => (textual ? String(v) : v);
  if (main && WRONG_TYPE[main]) {
    const wrong = textual
      ? main === 'integer' || main === 'number'
        ? ['abc', '1.5x', '12abc', 'true']
        : []
      : WRONG_TYPE[main].filter((v) => !(v === null && types.includes('null')));
    if (main === 'integer' && textual) wrong.push('1.5');
    if (wrong.length > 0) out.push({ mutation: 'wrong type', arbitrary: fc.constantFrom(...wrong) });
  }
  if (main === 'integer' || main === 'number') {
    if (typeof schema.minimum === 'number')
      out.push({
        mutation: 'below the minimum',
        arbitrary: fc.integer({ min: schema.minimum - 1000, max: schema.minimum - 1 }).map(wrap),
      });
    if (typeof schema.maximum === 'number')
      out.push({
        mutation: 'above the maximum',
        arbitrary: fc.integer({ min: schema.maximum + 1, max: schema.maximum + 100_000 }).map(wrap),
      });
  }
  const strings = main === 'string' || Array.isArray(schema.anyOf);
  if (strings) {
    const text = typeof base === 'string' ? base : 'value';
    if (typeof schema.maxLength === 'number') {
      const max = schema.maxLength;
      const uri = schema.format === 'uri';
      out.push({
        mutation: `longer than maxLength ${max}`,
        arbitrary: fc.integer({ min: 1, max: 40 }).map((n) => {
          const pad = 'a'.repeat(Math.max(0, max + n - text.length));
          return uri ? `${text}${pad}` : `${pad}${text}`;
        }),
      });
    }
    if (typeof schema.minLength === 'number' && schema.minLength > 0)
      out.push({
        mutation: `shorter than minLength ${schema.minLength}`,
        arbitrary: fc.integer({ min: 0, max: schema.minLength - 1 }).map((n) => 'a'.repeat(n)),
      });
    if (typeof schema.pattern === 'string') {
      const re = new RegExp(schema.pattern, 'u');
      const breakers = PATTERN_BREAKERS.filter((v) => !re.test(v));
      if (breakers.length > 0)
        out.push({ mutation: `not matching the pattern ${schema.pattern}`, arbitrary: fc.constantFrom(...breakers) });
    }
    if (Array.isArray(schema.enum)) {
      const values = [
        'bogus',
        'NOT_A_VALUE',
        ...schema.enum.map((v) =>
          typeof v === 'string' ? (v === v.toUpperCase() ? v.toLowerCase() : v.toUpperCase()) : 'bogus',
        ),
      ].filter((v) => !(schema.enum as unknown[]).includes(v));
      out.push({ mutation: 'not one of the enum values', arbitrary: fc.constantFrom(...values) });
    }
    if (typeof schema.const === 'string')
      out.push({ mutation: 'not the constant', arbitrary: fc.constantFrom(`${schema.const}x`, 'bogus') });
    const formats = [schema.format, ...((schema.anyOf as Json[] | undefined) ?? []).map((s) => s.format)].filter(
      (f): f is string => typeof f === 'string' && f in BAD_FORMAT,
    );
    for (const format of new Set(formats))
      out.push({ mutation: `not a valid ${format}`, arbitrary: fc.constantFrom(...BAD_FORMAT[format]!) });
  }
  return out;
}

/** The candidates of one body member (and, recursively, of its members). */
function bodyCandidates(
  ctx: Context,
  api: Api,
  operation: string,
  pointer: string,
  member: string,
  value: unknown,
  depth: number,
  out: Candidate[],
): void {
  const doc = ctx.spec.documents[api];
  const ptr = finalPointer(doc, pointer);
  const schema = nodeAt(doc, ptr) ?? {};
  // A oneOf/anyOf: the branch the well-formed value takes.
  for (const key of ['oneOf', 'anyOf'] as const) {
    const branches = schema[key];
    if (!Array.isArray(branches)) continue;
    const i = branches.findIndex(
      (_, n) => value !== undefined && ctx.spec.validate(api, `${ptr}/${key}/${n}`, value) === undefined,
    );
    bodyCandidates(ctx, api, operation, `${ptr}/${key}/${Math.max(0, i)}`, member, value, depth, out);
    return;
  }
  if (Array.isArray(schema.allOf)) {
    schema.allOf.forEach((_, i) => bodyCandidates(ctx, api, operation, `${ptr}/allOf/${i}`, member, value, depth, out));
    return;
  }
  const add = (mutation: string, arbitrary: fc.Arbitrary<unknown>, at = member) =>
    out.push({ operation, location: 'body', member: at, mutation, arbitrary, code: 'validation_error' });
  if (typesOf(schema).includes('object') && schema.properties) {
    if (member !== '') add('wrong type', fc.constantFrom(...WRONG_TYPE.object!));
    const properties = schema.properties as Record<string, Json>;
    if (schema.additionalProperties === false) {
      const extras = EXTRA_MEMBERS.filter((n) => !(n in properties));
      add(
        'an extra member on a closed object',
        fc
          .tuple(fc.constantFrom(...extras), fc.oneof(fc.integer(), fc.constant('x')))
          .map(([name, v]) => ({ [name]: v })),
      );
    }
    for (const name of (schema.required as string[] | undefined) ?? [])
      add('a required member missing', fc.constant(REMOVE), `${member}/${escapePointer(name)}`);
    if (depth < 3) {
      for (const name of Object.keys(properties)) {
        const child = (value as Json | undefined)?.[name];
        bodyCandidates(
          ctx,
          api,
          operation,
          `${ptr}/properties/${escapePointer(name)}`,
          `${member}/${escapePointer(name)}`,
          child,
          depth + 1,
          out,
        );
      }
    }
    return;
  }
  for (const b of scalarBreakers(schema, value, false)) add(b.mutation, b.arbitrary);
}

export function buildTargets(
  ctx: Context,
  api: Api = 'partner',
  include: (operationId: string) => boolean = () => true,
): Target[] {
  const targets: Target[] = [];
  for (const op of ctx.spec.operations.filter((o) => o.api === api && include(o.operationId))) {
    const doc = ctx.spec.documents[api];
    if (op.method !== 'GET' && !ctx.writesAllowed) continue;
    const params = paramsOf(ctx, api, op);
    if (params.length === 0 && !op.requestSchemaPointer) continue;
    const operation = `${op.method} ${op.path}`;
    const candidates: Candidate[] = [];
    for (const p of params) {
      if (p.in !== 'path' && p.in !== 'query' && p.in !== 'header') continue;
      const schema = resolveRef(doc, nodeAt(doc, p.schemaPointer) ?? {});
      const location = p.in as Location;
      if (p.required && location !== 'path') {
        candidates.push({
          operation,
          location,
          member: p.name,
          mutation: 'a required parameter missing',
          arbitrary: fc.constant(REMOVE),
          code: p.name.toLowerCase() === 'idempotency-key' ? 'missing_idempotency_key' : 'validation_error',
        });
      }
      for (const b of scalarBreakers(schema, p.example, true)) {
        // An empty path segment changes the route, a slash the path: neither breaks only the parameter.
        // An empty header may pass for an absent one, which has its own code.
        if (location !== 'query' && b.mutation.startsWith('shorter than')) continue;
        const arbitrary =
          location === 'path'
            ? b.arbitrary.filter((v) => typeof v === 'string' && v.length > 0 && !v.includes('/'))
            : b.arbitrary;
        candidates.push({
          operation,
          location,
          member: p.name,
          mutation: b.mutation,
          arbitrary,
          code: 'validation_error',
        });
      }
    }
    let body: unknown;
    if (op.requestSchemaPointer) {
      body = synthesize(doc, op.requestSchemaPointer);
      const error = ctx.spec.validate(api, op.requestSchemaPointer, body);
      if (error) {
        ctx.log(
          `  note: could not build a well-formed body for ${operation} from the contract's examples (${error}); its body is not mutated`,
        );
      } else {
        const wrongRoot: Candidate = {
          operation,
          location: 'body',
          member: '',
          mutation: ROOT_NOT_OBJECT,
          arbitrary: fc.constantFrom('"text"', '42', '[]', 'null', 'true'),
          code: 'validation_error',
        };
        candidates.push(wrongRoot);
        bodyCandidates(ctx, api, operation, op.requestSchemaPointer, '', body, 0, candidates);
      }
    }
    if (candidates.length > 0) targets.push({ api, op, params, body, candidates });
  }
  return targets;
}

function getAt(root: unknown, pointer: string): unknown {
  if (pointer === '') return root;
  return pointer
    .slice(1)
    .split('/')
    .reduce<unknown>((n, k) => (n as Json | undefined)?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], root);
}

function setAt(root: unknown, pointer: string, value: unknown): unknown {
  if (pointer === '') return value;
  const parts = pointer
    .slice(1)
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  const copy = structuredClone(root) as Json;
  let node = copy;
  for (const part of parts.slice(0, -1)) {
    if (node[part] === null || typeof node[part] !== 'object') node[part] = {};
    node = node[part] as Json;
  }
  const last = parts[parts.length - 1]!;
  if (value === REMOVE) delete node[last];
  else node[last] = value;
  return copy;
}

interface Sent {
  target: string;
  headers: Record<string, string>;
  body: string | undefined;
}

/** The request of a target with one member broken; undefined when the "broken" value still validates. */
function brokenRequest(ctx: Context, t: Target, c: Candidate, value: unknown): Sent | undefined {
  const doc = ctx.spec.documents[t.api];
  const values = new Map<string, unknown>();
  for (const p of t.params)
    if (p.required)
      values.set(
        `${p.in}:${p.name}`,
        p.in === 'header' && p.name.toLowerCase() === 'idempotency-key' ? randomUUID() : p.example,
      );
  let body = t.body;
  let raw: string | undefined;
  if (c.location === 'body' && c.mutation === ROOT_NOT_OBJECT) {
    // A body that is JSON but no object, sent as is.
    raw = String(value);
  } else if (c.location === 'body') {
    if (c.mutation.startsWith('an extra member'))
      body = setAt(t.body, c.member, { ...(getAt(t.body, c.member) ?? {}), ...(value as Json) });
    else body = setAt(t.body, c.member, value);
    if (ctx.spec.validate(t.api, t.op.requestSchemaPointer!, body) === undefined) return undefined;
  } else {
    const param = t.params.find((p) => p.in === c.location && p.name === c.member)!;
    if (value === REMOVE) values.delete(`${param.in}:${param.name}`);
    else {
      const schema = resolveRef(doc, nodeAt(doc, param.schemaPointer) ?? {});
      const typed =
        typeof value === 'string' &&
        /^-?\d+$/.test(value) &&
        typesOf(schema).some((x) => x === 'integer' || x === 'number')
          ? Number(value)
          : value;
      if (ctx.spec.validate(t.api, param.schemaPointer, typed) === undefined) return undefined;
      values.set(`${param.in}:${param.name}`, value);
    }
  }
  const path = t.op.path.replace(/\{([^}]+)\}/g, (_, name: string) =>
    encodeComponent(String(values.get(`path:${name}`) ?? '')),
  );
  const query = t.params
    .filter((p) => p.in === 'query' && values.has(`query:${p.name}`))
    .map((p) => `${encodeComponent(p.name)}=${encodeComponent(String(values.get(`query:${p.name}`)))}`)
    .join('&');
  return {
    target: query ? `${path}?${query}` : path,
    headers: headersOf(values),
    body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
  };
}

function headersOf(values: Map<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, v] of values) if (key.startsWith('header:')) out[key.slice('header:'.length)] = String(v);
  return out;
}

// ---------------------------------------------------------------------------------------------
// The sweep: one well-formed call to every partner read

async function listedDomain(ctx: Context, credentials: Credentials): Promise<string> {
  const op = ctx.spec.byId('searchDomains');
  const exchange = await ctx.http.signed({
    target: `${op.path}?q=coffee`,
    credentials,
    operation: opTemplate(op),
    rateClass: 'search',
  });
  const hits =
    (jsonOf(exchange) as { results?: Array<{ domain?: unknown; available?: unknown }> } | undefined)?.results ?? [];
  const hit = hits.find((r) => r.available === true && typeof r.domain === 'string');
  return typeof hit?.domain === 'string' ? hit.domain : 'bestcoffeebeans.com';
}

/** The operations of one document the run's exchanges already had answered without a server error (with `ok`, with a 2xx). */
export function answeredOperations(ctx: Context, api: Api, ok = false): Set<string> {
  const out = new Set<string>();
  for (const e of ctx.http.exchanges) {
    if (e.status >= 500 || (ok && (e.status < 200 || e.status > 299))) continue;
    const found = operationOf(ctx, e);
    if (found?.api === api) out.add(found.op.operationId);
  }
  return out;
}

/**
 * The property behind both surfaces' invalid-input checks: a target operation with one member of
 * a well-formed request broken is refused with 400 and the candidate's code (with details for a
 * validation_error), never a 5xx. `send` delivers the request as the surface needs (signed or not).
 */
export async function checkBrokenInputs(
  ctx: Context,
  targets: Target[],
  o: {
    runs: number;
    send: (t: Target, sent: Sent) => Promise<Exchange>;
    unjudged?: (exchange: Exchange, operation: string) => boolean;
    spend?: Spend;
  },
): Promise<void> {
  const byOperation = new Map(targets.map((t) => [`${t.op.method} ${t.op.path}`, t]));
  const arbitrary = fc.constantFrom(...targets).chain((t) =>
    fc.constantFrom(...t.candidates).chain((c) =>
      c.arbitrary.map((value) => ({
        operation: c.operation,
        location: c.location,
        member: c.member,
        mutation: c.mutation,
        value,
        code: c.code,
      })),
    ),
  );
  await property(
    ctx,
    arbitrary,
    async (input) => {
      const t = byOperation.get(input.operation)!;
      const c = t.candidates.find(
        (x) => x.location === input.location && x.member === input.member && x.mutation === input.mutation,
      )!;
      const sent = brokenRequest(ctx, t, c, input.value);
      fc.pre(sent !== undefined);
      const exchange = await o.send(t, sent);
      if (o.unjudged?.(exchange, input.operation)) fc.pre(false);
      const body = jsonOf(exchange) as { code?: unknown; details?: unknown } | undefined;
      const what = `${input.operation} with ${input.location === 'body' ? `body member "${input.member || '(the body)'}"` : `${input.location} parameter "${input.member}"`} ${input.mutation}${input.value === REMOVE ? '' : ` (${JSON.stringify(input.value)?.slice(0, 80)})`}`;
      if (exchange.status !== 400 || body?.code !== input.code) {
        throw new CheckFailure(
          `${what}: expected 400 ${input.code}, got ${exchange.status} ${String(body?.code ?? '(no Error body)')}${exchange.status >= 500 ? ' (a server error on an input the contract refuses)' : ''}`,
          [exchange],
        );
      }
      if (input.code === 'validation_error' && (!Array.isArray(body.details) || body.details.length === 0)) {
        throw new CheckFailure(`${what}: the validation_error has no details naming the failing member`, [exchange]);
      }
    },
    o.runs,
    o.spend,
  );
}

export const schemaFamily: Family = {
  name: 'schema',
  surface: 'partner',
  description:
    'Every answer of the run matches the contract (status, media type, body, headers, Error codes); invalid inputs get 400',
  needs: ['credentials'],
  last: true,
  checks: [
    {
      id: 'partner.schema.sweep',
      rules: ['spec:partner#/paths'],
      name: 'sweep: one well-formed call to every partner read answers without a server error',
      async run(ctx) {
        const credentials = await ctx.credentials();
        const domain = await listedDomain(ctx, credentials);
        const unlisted = `conformance-unlisted-${randomBytes(5).toString('hex')}.com`;
        const known: Record<string, string> = { domain, name: domain, q: 'coffee' };
        // A read the run already had answered (2xx) is not asked again; the rows of lists it read
        // give the detail reads real ids.
        const answered = answeredOperations(ctx, 'partner', true);
        for (const e of ctx.http.exchanges) {
          const first = e.status === 200 ? (jsonOf(e) as { data?: unknown[] } | undefined)?.data?.[0] : undefined;
          if (first && typeof first === 'object' && operationOf(ctx, e)?.api === 'partner') {
            for (const [k, v] of Object.entries(first as Json))
              if (typeof v === 'string' && !(k in known)) known[k] = v;
          }
        }
        const reads = ctx.spec.operations.filter(
          (o) => o.api === 'partner' && o.method === 'GET' && !answered.has(o.operationId),
        );
        // Lists first: their rows give the detail reads real ids.
        reads.sort((a, b) => Number(a.path.includes('{')) - Number(b.path.includes('{')));
        const failures: Exchange[] = [];
        const statuses = new Map<number, number>();
        const call = async (op: SpecOperation, values: Record<string, string>) => {
          const params = paramsOf(ctx, 'partner', op);
          const valueOf = (p: ParamInfo) => values[p.name] ?? (p.example === undefined ? undefined : String(p.example));
          const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) =>
            encodeComponent(values[name] ?? String(params.find((p) => p.name === name)?.example ?? 'x')),
          );
          const query = params
            .filter((p) => p.in === 'query' && p.required && valueOf(p) !== undefined)
            .map((p) => `${encodeComponent(p.name)}=${encodeComponent(valueOf(p)!)}`)
            .join('&');
          const exchange = await ctx.http.signed({
            target: query ? `${path}?${query}` : path,
            credentials,
            operation: opTemplate(op),
            ...(op.rateClass ? { rateClass: op.rateClass } : {}),
          });
          statuses.set(exchange.status, (statuses.get(exchange.status) ?? 0) + 1);
          if (exchange.status >= 500) failures.push(exchange);
          return exchange;
        };
        for (const op of reads) {
          const exchange = await call(op, known);
          // Ids of the first row of a list (public_id, case_id…) for the detail reads.
          const first = (jsonOf(exchange) as { data?: unknown[] } | undefined)?.data?.[0];
          if (exchange.status === 200 && first && typeof first === 'object') {
            for (const [k, v] of Object.entries(first as Json))
              if (typeof v === 'string' && !(k in known)) known[k] = v;
          }
        }
        // The other branches of the discovery reads: an unlisted domain (available false, 404s).
        for (const id of ['getAvailability', 'getPricing', 'getDomain'])
          await call(ctx.spec.byId(id), { ...known, domain: unlisted, name: unlisted });
        ctx.log(
          `  swept ${reads.length + 3} reads (listed domain ${domain}): ${[...statuses].map(([s, n]) => `${s}×${n}`).join(', ')}`,
        );
        if (failures.length > 0) {
          const lines = failures.map((e) => {
            const body = jsonOf(e) as { code?: unknown; message?: unknown } | undefined;
            return `  ${e.method} ${e.url.slice(ctx.http.baseUrl.length)} → ${e.status} ${String(body?.code ?? '')} ${typeof body?.message === 'string' ? JSON.stringify(body.message) : ''}`.trimEnd();
          });
          throw new CheckFailure(
            `${failures.length} well-formed reads answered with a server error:\n${lines.join('\n')}`,
            failures.slice(0, 2),
          );
        }
      },
    },
    {
      id: 'partner.schema.invalid-inputs',
      rules: ['spec:partner#/components/schemas/ErrorCode/x-status-of-code/validation_error'],
      name: 'schema-derived invalid inputs (one member broken, correctly signed) are refused with 400, never a 5xx',
      async run(ctx) {
        const credentials = await ctx.credentials();
        // The suite mints its own credential with every scope; a given one may lack some.
        const everyScope = (credentials as { partnerId?: string }).partnerId !== undefined;
        const forbidden = new Set<string>();
        await checkBrokenInputs(ctx, buildTargets(ctx), {
          runs: Math.max(ctx.fc.numRuns * 2, 40),
          // A sample may aim at any class: planned against the scarcest.
          spend: { credentials, cost: { search: 1, write: 1, reporting: 1 } },
          send: (t, sent) =>
            ctx.http.signed({
              method: t.op.method,
              target: sent.target,
              headers: sent.headers,
              ...(sent.body !== undefined ? { body: sent.body } : {}),
              credentials,
              operation: opTemplate(t.op),
              ...(t.op.rateClass ? { rateClass: t.op.rateClass } : {}),
              deliberate: true,
            }),
          // A credential lacking a scope may be refused first; such a sample is not judged.
          unjudged: (exchange, operation) => {
            const refused =
              exchange.status === 403 &&
              (jsonOf(exchange) as { code?: unknown } | undefined)?.code === 'forbidden' &&
              !everyScope;
            if (refused) forbidden.add(operation);
            return refused;
          },
        });
        if (forbidden.size > 0)
          ctx.log(`  not judged (the credential may not call them): ${[...forbidden].join(', ')}`);
      },
    },
    {
      id: 'partner.schema.every-answer',
      rules: ['spec:partner#/paths', 'spec:partner#/components/schemas/Error'],
      name: 'every exchange of the run: documented status, Content-Type, body schema, required headers, Error code of that status',
      async run(ctx) {
        reviewSurface(ctx, 'partner');
      },
    },
  ],
};

/**
 * Reviews every exchange of the run on one surface against its document; fails with the
 * problems grouped by operation and status. Logs which operations the run exercised.
 */
export function reviewSurface(ctx: Context, api: Api): void {
  const groups = new Map<string, Group>();
  const exercised = new Set<string>();
  let reviewed = 0;
  for (const exchange of ctx.http.exchanges) {
    if (surfaceOf(ctx, exchange) !== api) continue;
    reviewed++;
    const found = operationOf(ctx, exchange);
    if (found) exercised.add(`${found.api} ${found.op.operationId}`);
    const { key, problems } = reviewExchange(ctx, exchange);
    if (problems.length === 0) continue;
    const group = groups.get(key) ?? { key, count: 0, problems: new Map<string, number>(), examples: [] };
    group.count++;
    for (const p of new Set(problems.map(normalise))) group.problems.set(p, (group.problems.get(p) ?? 0) + 1);
    if (group.examples.length < 2) group.examples.push(exchange);
    groups.set(key, group);
  }
  const ops = ctx.spec.operations.filter((o) => o.api === api);
  const missing = ops.filter((o) => !exercised.has(`${api} ${o.operationId}`)).map((o) => o.operationId);
  ctx.log(
    `  reviewed ${reviewed} ${api} exchanges; ${api} operations exercised: ${ops.length - missing.length} of ${ops.length}${missing.length ? ` (not: ${missing.join(', ')})` : ''}`,
  );
  if (groups.size > 0) {
    const sorted = [...groups.values()].sort((a, b) => b.count - a.count);
    throw new CheckFailure(groupedReport(sorted, reviewed));
  }
}
